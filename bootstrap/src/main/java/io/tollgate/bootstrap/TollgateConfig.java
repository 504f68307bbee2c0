package io.tollgate.bootstrap;

import io.tollgate.domain.shop.Environment;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Everything Tollgate reads from its environment. {@link #SETTINGS} is the single list of
 * variables: the README's configuration table is checked against it by a test.
 */
public record TollgateConfig(
    Environment environment,
    String host,
    int port,
    String publicUrl,
    String dbUrl,
    String dbUser,
    String dbPassword,
    int dbPoolSize,
    Path dataDirectory,
    String masterKey,
    Map<String, Integer> cryptoCurrencies,
    String baseCurrency,
    int bodyLimitBytes,
    boolean gatewayBalances,
    java.time.Duration jobInterval,
    java.time.Duration sandboxBankDelay,
    List<java.time.Duration> webhookRetrySchedule,
    java.time.Duration webhookTimeout,
    int webhookParallelism,
    java.time.Duration webhookLogRetention,
    java.time.Duration cardRetention,
    boolean merchantApiCore,
    int rateLimit,
    int rateLimitBurst,
    int pageRateLimit,
    int largePageRows,
    int merchantListShare,
    int merchantListsTotal,
    List<ClientAddresses.Range> trustedProxies) {

  /** One environment variable: its name, default and meaning. */
  public record Setting(String name, String defaultValue, String description) {}

  private static final String DEFAULT_RETRY_SCHEDULE = "PT1M,PT5M,PT15M,PT1H,PT3H,PT6H,PT12H,PT24H,PT24H,PT24H";

  /**
   * The values a duration setting may take, both ends included, written as the README gives them.
   * Every one has an upper end too: a huge value passed the start, then failed in a computation
   * (P200000D overflows as nanoseconds) in every round of a job. A webhook timeout under a
   * millisecond was 0 ms to Jetty, which means no timeout, and no webhook was ever sent.
   */
  private record Bounds(String min, String max) {
    @Override
    public String toString() {
      return "between " + min + " and " + max;
    }
  }

  // down to a millisecond, as tests run it; an hour at most, or unanswered payments and
  // checkout timeouts wait that long
  private static final Bounds JOB_INTERVAL = new Bounds("PT0.001S", "PT1H");
  private static final Bounds SANDBOX_BANK_DELAY = new Bounds("PT0S", "P1D");
  // fast retries for tests; beyond a week between two tries a merchant is left without news too long
  private static final Bounds WEBHOOK_RETRY_DELAY = new Bounds("PT0.1S", "P7D");
  // a receiver that needs more than a minute holds a delivery slot that long for every event
  private static final Bounds WEBHOOK_TIMEOUT = new Bounds("PT1S", "PT1M");
  // The log is what a merchant reads when a webhook went missing, and the last retries come days
  // after the first attempt. Ten years at most, for both retentions: a value past what an instant
  // holds failed the clean-up job in every round.
  private static final Bounds WEBHOOK_LOG_RETENTION = new Bounds("P7D", "P3650D");
  // a merchant charging a stored card monthly must find it next month
  private static final Bounds CARD_RETENTION = new Bounds("P30D", "P3650D");

  public static final List<Setting> SETTINGS = List.of(
      new Setting("TOLLGATE_ENVIRONMENT", "sandbox",
          "`sandbox` or `production`; keys only work in the environment they were issued for, and a database "
              + "serves only the environment of the first server started on it: give each its own"),
      new Setting("TOLLGATE_HOST", "0.0.0.0", "address the HTTP server binds to"),
      new Setting("TOLLGATE_PORT", "8080", "HTTP port (0 picks a free one)"),
      new Setting("TOLLGATE_PUBLIC_URL", "http://localhost:{port}",
          "base URL customers and merchants reach Tollgate at, an origin without a path (Tollgate cannot be served "
              + "under one); used in `redirectUrl` (required in production, https)"),
      new Setting("TOLLGATE_DB_URL", "(embedded PostgreSQL)",
          "JDBC URL of an external PostgreSQL; when unset an embedded PostgreSQL is started"),
      new Setting("TOLLGATE_DB_USER", "postgres", "database user for `TOLLGATE_DB_URL`"),
      new Setting("TOLLGATE_DB_PASSWORD", "(empty)", "database password for `TOLLGATE_DB_URL`"),
      new Setting("TOLLGATE_DB_POOL_SIZE", "16", "maximum database connections"),
      new Setting("TOLLGATE_DATA_DIR", "./tollgate-data",
          "where the embedded database and the sandbox master key are kept between runs"),
      new Setting("TOLLGATE_MASTER_KEY", "(generated in sandbox)",
          "base64 of 32 random bytes; opens the database's data key, which encrypts signing keys and card "
              + "numbers (`master-key rotate` replaces it). Required in production"),
      new Setting("TOLLGATE_CRYPTO_CURRENCIES", "BTC:8,ETH:8,USDT:8",
          "crypto symbols accepted besides ISO 4217 codes, with their decimals; set but empty, none; a symbol "
              + "payments or balances are kept in must stay, with at least the decimals their amounts have (the "
              + "service refuses to start otherwise)"),
      new Setting("TOLLGATE_BASE_CURRENCY", "EUR",
          "the platform's base currency: the merchant API shows each payment's amount in it too (`baseAmount`, "
              + "`paymentBaseAmount`) at today's imported rate, an estimate; an ISO 4217 code or one of "
              + "`TOLLGATE_CRYPTO_CURRENCIES`"),
      new Setting("TOLLGATE_BODY_LIMIT_BYTES", "65536", "largest request body accepted (413 above)"),
      new Setting("TOLLGATE_GATEWAY_BALANCES", "true", "`false` switches `GET /api/v1/balances` off (404)"),
      new Setting("TOLLGATE_JOB_INTERVAL", "PT0.5S",
          "how often background jobs look for work (payouts, bank transfers, unanswered card deposits, unanswered "
              + "captures and voids, checkout timeouts, expired idempotency keys, the old webhook delivery log, "
              + "unused cards); " + JOB_INTERVAL),
      new Setting("TOLLGATE_SANDBOX_BANK_DELAY", "PT5S",
          "how long the sandbox bank takes to receive a transfer after the host-to-host PATCH; " + SANDBOX_BANK_DELAY),
      new Setting("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", DEFAULT_RETRY_SCHEDULE,
          "comma-separated delays before each webhook retry, each " + WEBHOOK_RETRY_DELAY + ", none left empty; "
              + "after the last one an event is marked failed"),
      new Setting("TOLLGATE_WEBHOOK_TIMEOUT", "PT10S", "how long a webhook receiver has to answer; " + WEBHOOK_TIMEOUT),
      new Setting("TOLLGATE_WEBHOOK_PARALLELISM", "16", "webhook deliveries in flight at once, per instance"),
      new Setting("TOLLGATE_WEBHOOK_LOG_RETENTION", "P90D",
          "how long the webhook delivery log is kept (" + WEBHOOK_LOG_RETENTION + "): attempts, and events a "
              + "newer one of their payment replaced; each payment's newest event stays, to be sent again"),
      new Setting("TOLLGATE_CARD_RETENTION", "P730D",
          "how long a card number is kept after the last payment that used it (" + CARD_RETENTION + "); its token is "
              + "unknown after that, except while a payment of the card is still in flight"),
      new Setting("TOLLGATE_RATE_LIMIT", "200",
          "API requests a second per key (or per client address without one; refused credentials also count per address) before 429; 0 switches the limit off"),
      new Setting("TOLLGATE_RATE_LIMIT_BURST", "400", "requests a key may send at once above the steady rate"),
      new Setting("TOLLGATE_PAGE_RATE_LIMIT", "200",
          "requests a second per client address, in bursts of twice as many, to every path outside the two APIs "
              + "(the checkout page, the docs at `/docs/`, unknown paths) before 429; never `/health/live`, "
              + "`/health/ready`, `/metrics`; 0 switches the limit off"),
      new Setting("TOLLGATE_LARGE_PAGE_ROWS", "20000",
          "rows of large list pages (a `limit` above 500) built and written at once, per instance; a page that "
              + "cannot have its rows within 2 s is a 503 with `Retry-After`; 0 switches the budget off"),
      new Setting("TOLLGATE_MERCHANT_LIST_SHARE", "(half of `TOLLGATE_DB_POOL_SIZE`)",
          "merchant API list requests of one merchant served at once, per instance; three times as many more "
              + "wait up to 2 s, then, as any beyond those, are a 503 with `Retry-After`; 0 switches the share off"),
      new Setting("TOLLGATE_MERCHANT_LISTS_TOTAL", "(three quarters of `TOLLGATE_DB_POOL_SIZE`)",
          "merchant API list requests of all merchants served at once, per instance, at least "
              + "`TOLLGATE_MERCHANT_LIST_SHARE`; a merchant's second and further lists are served only while fewer "
              + "than `TOLLGATE_MERCHANT_LIST_SHARE` are in all and never in the total's last place, the rest is kept "
              + "for merchants with none; a list waits for its place within the same 2 s, then is a 503 with "
              + "`Retry-After`; 0, or a share of 0, switches the total off"),
      new Setting("TOLLGATE_TRUSTED_PROXIES", "",
          "comma-separated addresses or CIDR blocks of your load balancers or proxies: a request from one is "
              + "limited by the nearest address in its `X-Forwarded-For` that is not one (the pages, refused "
              + "credentials, guessed passwords); from anyone else the header is ignored"),
      new Setting("TOLLGATE_LOG_FORMAT", "text", "`json` writes one JSON object per log line (with the request id)"),
      new Setting("TOLLGATE_MERCHANT_API", "full",
          "`core` offers only payments (with each one's webhook log and resend), operations, counterparties, shops, "
              + "terminals and balances in the merchant API"));

  public static TollgateConfig fromEnvironment() {
    return from(System.getenv());
  }

  public static TollgateConfig from(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    Function<String, String> get = name -> {
      String v = env.get(name);
      return v == null || v.isBlank() ? null : v.strip();
    };
    Environment environment = Environment.SANDBOX;
    if (get.apply("TOLLGATE_ENVIRONMENT") != null) {
      try {
        environment = Environment.parse(get.apply("TOLLGATE_ENVIRONMENT"));
      } catch (IllegalArgumentException e) {
        problems.add("TOLLGATE_ENVIRONMENT must be sandbox or production");
      }
    }
    int port = integer(get.apply("TOLLGATE_PORT"), 8080, 0, 65535, "TOLLGATE_PORT", problems);
    int pool = integer(get.apply("TOLLGATE_DB_POOL_SIZE"), 16, 1, 500, "TOLLGATE_DB_POOL_SIZE", problems);
    int bodyLimit = integer(get.apply("TOLLGATE_BODY_LIMIT_BYTES"), 64 * 1024, 1024, 16 * 1024 * 1024,
        "TOLLGATE_BODY_LIMIT_BYTES", problems);
    Map<String, Integer> crypto = cryptoCurrencies(env.get("TOLLGATE_CRYPTO_CURRENCIES"), problems);
    String baseCurrency = get.apply("TOLLGATE_BASE_CURRENCY") == null ? "EUR" : get.apply("TOLLGATE_BASE_CURRENCY");
    if (new io.tollgate.domain.money.Currencies(crypto).find(baseCurrency).isEmpty()) {
      problems.add("TOLLGATE_BASE_CURRENCY must be an ISO 4217 code or one of TOLLGATE_CRYPTO_CURRENCIES (got '"
          + baseCurrency + "')");
    }
    String balances = get.apply("TOLLGATE_GATEWAY_BALANCES");
    if (balances != null && !balances.equals("true") && !balances.equals("false")) {
      problems.add("TOLLGATE_GATEWAY_BALANCES must be true or false");
    }
    java.time.Duration jobInterval = duration(get.apply("TOLLGATE_JOB_INTERVAL"), "PT0.5S", JOB_INTERVAL,
        "TOLLGATE_JOB_INTERVAL", problems);
    java.time.Duration bankDelay = duration(get.apply("TOLLGATE_SANDBOX_BANK_DELAY"), "PT5S", SANDBOX_BANK_DELAY,
        "TOLLGATE_SANDBOX_BANK_DELAY", problems);
    List<java.time.Duration> retries = new ArrayList<>();
    String schedule = get.apply("TOLLGATE_WEBHOOK_RETRY_SCHEDULE");
    // -1 keeps a trailing empty entry: "PT1M,PT5M," is a typo to point at, not two delays
    String[] delays = (schedule == null ? DEFAULT_RETRY_SCHEDULE : schedule).split(",", -1);
    if (java.util.Arrays.stream(delays).allMatch(String::isBlank)) {
      // commas alone: no retry at all, the first failed delivery of every webhook marked failed
      problems.add("TOLLGATE_WEBHOOK_RETRY_SCHEDULE must list at least one delay, such as PT1M (got '" + schedule
          + "')");
    } else if (java.util.Arrays.stream(delays).anyMatch(String::isBlank)) {
      problems.add("TOLLGATE_WEBHOOK_RETRY_SCHEDULE has an empty delay before, between or after its commas (got '"
          + schedule + "')");
    } else {
      for (String delay : delays) {
        retries.add(duration(delay.strip(), "PT1M", WEBHOOK_RETRY_DELAY, "TOLLGATE_WEBHOOK_RETRY_SCHEDULE",
            problems));
      }
    }
    java.time.Duration webhookTimeout = duration(get.apply("TOLLGATE_WEBHOOK_TIMEOUT"), "PT10S", WEBHOOK_TIMEOUT,
        "TOLLGATE_WEBHOOK_TIMEOUT", problems);
    int webhookParallelism = integer(get.apply("TOLLGATE_WEBHOOK_PARALLELISM"), 16, 1, 512,
        "TOLLGATE_WEBHOOK_PARALLELISM", problems);
    java.time.Duration webhookLogRetention = duration(get.apply("TOLLGATE_WEBHOOK_LOG_RETENTION"), "P90D",
        WEBHOOK_LOG_RETENTION, "TOLLGATE_WEBHOOK_LOG_RETENTION", problems);
    java.time.Duration cardRetention = duration(get.apply("TOLLGATE_CARD_RETENTION"), "P730D", CARD_RETENTION,
        "TOLLGATE_CARD_RETENTION", problems);
    String merchantApi = get.apply("TOLLGATE_MERCHANT_API");
    if (merchantApi != null && !merchantApi.equals("full") && !merchantApi.equals("core")) {
      problems.add("TOLLGATE_MERCHANT_API must be full or core");
    }
    int rateLimit = integer(get.apply("TOLLGATE_RATE_LIMIT"), 200, 0, 1_000_000, "TOLLGATE_RATE_LIMIT", problems);
    int rateLimitBurst = integer(get.apply("TOLLGATE_RATE_LIMIT_BURST"), 400, 1, 10_000_000,
        "TOLLGATE_RATE_LIMIT_BURST", problems);
    int pageRateLimit = integer(get.apply("TOLLGATE_PAGE_RATE_LIMIT"), 200, 0, 1_000_000, "TOLLGATE_PAGE_RATE_LIMIT",
        problems);
    List<ClientAddresses.Range> trustedProxies = ClientAddresses.parse(get.apply("TOLLGATE_TRUSTED_PROXIES"),
        problems);
    int largePageRows = integer(get.apply("TOLLGATE_LARGE_PAGE_ROWS"), 20_000, 0, 100_000_000,
        "TOLLGATE_LARGE_PAGE_ROWS", problems);
    // half the pool: one merchant's lists leave the other half to the other merchants, the gateway and the jobs
    int merchantListShare = integer(get.apply("TOLLGATE_MERCHANT_LIST_SHARE"), Math.max(1, pool / 2), 0, 500,
        "TOLLGATE_MERCHANT_LIST_SHARE", problems);
    // three quarters of the pool: heavy merchants at their share leave the last quarter to the gateway and the jobs
    int merchantListsTotal = integer(get.apply("TOLLGATE_MERCHANT_LISTS_TOTAL"),
        Math.max(merchantListShare, pool * 3 / 4), 0, 500, "TOLLGATE_MERCHANT_LISTS_TOTAL", problems);
    if (merchantListsTotal > 0 && merchantListsTotal < merchantListShare) {
      problems.add("TOLLGATE_MERCHANT_LISTS_TOTAL must be 0 or at least TOLLGATE_MERCHANT_LIST_SHARE ("
          + merchantListShare + ")");
    }
    String logFormat = get.apply("TOLLGATE_LOG_FORMAT");
    if (logFormat != null && !logFormat.equals("text") && !logFormat.equals("json")) {
      problems.add("TOLLGATE_LOG_FORMAT must be text or json");
    }
    String masterKey = get.apply("TOLLGATE_MASTER_KEY");
    if (environment == Environment.PRODUCTION && masterKey == null) {
      problems.add("TOLLGATE_MASTER_KEY is required in production (base64 of 32 random bytes)");
    }
    String dbUrl = get.apply("TOLLGATE_DB_URL");
    if (environment == Environment.PRODUCTION && dbUrl == null) {
      problems.add("TOLLGATE_DB_URL is required in production; the embedded database is for sandbox use");
    }
    String publicUrl = get.apply("TOLLGATE_PUBLIC_URL");
    if (publicUrl != null) {
      try {
        URI uri = new URI(publicUrl);
        if (uri.getHost() == null || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
          problems.add("TOLLGATE_PUBLIC_URL must be an absolute http(s) URL such as https://pay.example.com");
        } else {
          if (environment == Environment.PRODUCTION && !"https".equals(uri.getScheme())) {
            problems.add("TOLLGATE_PUBLIC_URL must be https in production: customers enter card numbers on its pages");
          }
          if (!uri.getRawPath().replaceAll("/+$", "").isEmpty() || uri.getRawQuery() != null
              || uri.getRawFragment() != null) {
            // the checkout page's links, form actions, redirects and cookie are rooted at /checkout
            problems.add("TOLLGATE_PUBLIC_URL must be an origin without a path, such as https://pay.example.com: "
                + "the checkout page's links and forms start at /checkout, so Tollgate cannot be served under a path");
          }
        }
      } catch (java.net.URISyntaxException e) {
        problems.add("TOLLGATE_PUBLIC_URL must be an absolute http(s) URL such as https://pay.example.com");
      }
    } else if (environment == Environment.PRODUCTION) {
      problems.add("TOLLGATE_PUBLIC_URL is required in production: the https address customers reach the checkout at");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("Invalid configuration:\n  " + String.join("\n  ", problems));
    }
    String dataDir = get.apply("TOLLGATE_DATA_DIR");
    return new TollgateConfig(environment,
        get.apply("TOLLGATE_HOST") == null ? "0.0.0.0" : get.apply("TOLLGATE_HOST"),
        port,
        get.apply("TOLLGATE_PUBLIC_URL"),
        dbUrl,
        get.apply("TOLLGATE_DB_USER") == null ? "postgres" : get.apply("TOLLGATE_DB_USER"),
        env.getOrDefault("TOLLGATE_DB_PASSWORD", ""),
        pool,
        Path.of(dataDir == null ? "tollgate-data" : dataDir).toAbsolutePath(),
        masterKey,
        crypto,
        baseCurrency,
        bodyLimit,
        !"false".equals(balances),
        jobInterval,
        bankDelay,
        List.copyOf(retries),
        webhookTimeout,
        webhookParallelism,
        webhookLogRetention,
        cardRetention,
        "core".equals(merchantApi),
        rateLimit,
        rateLimitBurst,
        pageRateLimit,
        largePageRows,
        merchantListShare,
        merchantListsTotal,
        trustedProxies);
  }

  /** The public URL, defaulting to localhost on the port actually bound. */
  public String publicUrlFor(int boundPort) {
    return publicUrl != null ? publicUrl.replaceAll("/+$", "") : "http://localhost:" + boundPort;
  }

  private static int integer(String raw, int def, int min, int max, String name, List<String> problems) {
    if (raw == null) {
      return def;
    }
    try {
      int v = Integer.parseInt(raw);
      if (v < min || v > max) {
        problems.add(name + " must be between " + min + " and " + max);
      }
      return v;
    } catch (NumberFormatException e) {
      problems.add(name + " must be an integer");
      return def;
    }
  }

  private static java.time.Duration duration(String raw, String def, Bounds bounds, String name,
      List<String> problems) {
    try {
      java.time.Duration d = java.time.Duration.parse(raw == null ? def : raw);
      if (d.compareTo(java.time.Duration.parse(bounds.min())) < 0
          || d.compareTo(java.time.Duration.parse(bounds.max())) > 0) {
        problems.add(name + " must be " + bounds + " (got '" + raw + "')");
      }
      return d;
    } catch (java.time.format.DateTimeParseException e) {
      problems.add(name + " must be an ISO-8601 duration such as PT5S");
      return java.time.Duration.parse(def);
    }
  }

  private static final java.util.Set<String> ISO_4217 = java.util.Currency.getAvailableCurrencies().stream()
      .map(java.util.Currency::getCurrencyCode).collect(java.util.stream.Collectors.toUnmodifiableSet());

  /**
   * The crypto symbols of the setting as set, unstripped. Unlike every other setting, set but
   * empty is not unset: it means none, ISO 4217 currencies only. An operator who empties the list
   * wants none of the default's symbols, and got all three.
   */
  private static Map<String, Integer> cryptoCurrencies(String raw, List<String> problems) {
    if (raw == null) {
      return io.tollgate.domain.money.Currencies.DEFAULT_CRYPTO;
    }
    if (raw.isBlank()) {
      return Map.of();
    }
    Map<String, Integer> map = new LinkedHashMap<>();
    for (String entry : raw.strip().split(",")) {
      String[] parts = entry.strip().split(":");
      if (parts.length != 2 || !parts[0].matches("[A-Z0-9]{2,10}") || !parts[1].matches("[0-9]{1,2}")
          || Integer.parseInt(parts[1]) > 18) {
        problems.add("TOLLGATE_CRYPTO_CURRENCIES entries look like SYMBOL:DECIMALS, e.g. BTC:8 (got '" + entry + "')");
        continue;
      }
      if (ISO_4217.contains(parts[0])) {
        // otherwise EUR:8 would quietly take EUR's amounts to eight decimals
        problems.add("TOLLGATE_CRYPTO_CURRENCIES: " + parts[0] + " is an ISO 4217 currency, whose decimals are "
            + "ISO's; list only symbols ISO 4217 does not have");
        continue;
      }
      map.put(parts[0], Integer.parseInt(parts[1]));
    }
    return Collections.unmodifiableMap(map);
  }

  @Override
  public String toString() {
    return "TollgateConfig[environment=" + environment + ", host=" + host + ", port=" + port
        + ", publicUrl=" + publicUrl + ", dbUrl=" + (dbUrl == null ? "(embedded)" : dbUrl)
        + ", dataDirectory=" + dataDirectory + "]";
  }
}
