package io.tollgate.bootstrap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand;
import io.tollgate.application.port.in.ProvisioningUseCase.IssuedKeys;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** A whole Tollgate on a fresh database and a free port, with a shop and its keys. */
final class TestGateway implements AutoCloseable {

  static final ObjectMapper JSON = new ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

  final Database database;
  final Tollgate app;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final MerchantId merchant;
  final ShopId shop;
  final String apiKey;
  final String signingKey;
  final Path dataDirectory;
  /** When this gateway was started: every record a test makes on it is made after it. */
  final java.time.Instant started = java.time.Instant.now();

  /** The master key a test gateway seals its secrets with, unless its settings name another. */
  static final String MASTER_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  private TestGateway(Map<String, String> env,
      java.util.function.UnaryOperator<io.tollgate.application.port.out.PaymentProcessor> acquirer) throws Exception {
    this.dataDirectory = ScratchDirectories.create("tollgate-test");
    Map<String, String> all = new HashMap<>(env);
    all.putIfAbsent("TOLLGATE_PORT", "0");
    all.putIfAbsent("TOLLGATE_HOST", "127.0.0.1");
    all.putIfAbsent("TOLLGATE_DATA_DIR", dataDirectory.toString());
    all.putIfAbsent("TOLLGATE_JOB_INTERVAL", "PT0.1S");
    all.putIfAbsent("TOLLGATE_RATE_LIMIT", "0");
    all.putIfAbsent("TOLLGATE_SANDBOX_BANK_DELAY", "PT0.5S");
    all.putIfAbsent("TOLLGATE_MASTER_KEY", MASTER_KEY);
    if ("production".equals(all.get("TOLLGATE_ENVIRONMENT"))) {
      all.putIfAbsent("TOLLGATE_DB_URL", "jdbc:postgresql://placeholder/unused");
      all.putIfAbsent("TOLLGATE_PUBLIC_URL", "https://pay.example.com");
    }
    this.database = TestDatabase.fresh();
    this.app = Tollgate.start(TollgateConfig.from(all), database, acquirer);
    this.merchant = app.services().shops().createMerchant("Test Merchant");
    this.shop = createShop(merchant, "Test Shop", false);
    IssuedKeys keys = app.services().shops().issueKeys(shop, app.services().environment());
    this.apiKey = keys.apiKey();
    this.signingKey = keys.signingKey();
  }

  static TestGateway start() throws Exception {
    return start(Map.of());
  }

  static TestGateway start(Map<String, String> env) throws Exception {
    return new TestGateway(env, java.util.function.UnaryOperator.identity());
  }

  /** A gateway whose payments go to the acquirer {@code acquirer} makes of the sandbox. */
  static TestGateway start(Map<String, String> env,
      java.util.function.UnaryOperator<io.tollgate.application.port.out.PaymentProcessor> acquirer) throws Exception {
    return new TestGateway(env, acquirer);
  }

  /**
   * The settings of a command line run beside this gateway, as an operator's would be: its
   * database, data directory and master key; a map the caller may add to.
   */
  Map<String, String> commandLineEnvironment() {
    Map<String, String> env = new HashMap<>();
    env.put("TOLLGATE_DB_URL", database.jdbcUrl());
    env.put("TOLLGATE_DB_USER", TestDatabase.user());
    env.put("TOLLGATE_DB_PASSWORD", TestDatabase.password());
    env.put("TOLLGATE_DATA_DIR", dataDirectory.toString());
    env.put("TOLLGATE_MASTER_KEY", MASTER_KEY);
    env.put("TOLLGATE_PORT", "0");
    env.put("TOLLGATE_HOST", "127.0.0.1");
    return env;
  }

  /**
   * The settings of a service or command line on {@code db}, with a scratch data directory
   * named after {@code scratch}, on a free local port; a map the caller may add to.
   */
  static Map<String, String> environment(Database db, String scratch) throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("TOLLGATE_DB_URL", db.jdbcUrl());
    env.put("TOLLGATE_DB_USER", TestDatabase.user());
    env.put("TOLLGATE_DB_PASSWORD", TestDatabase.password());
    env.put("TOLLGATE_DATA_DIR", ScratchDirectories.create(scratch).toString());
    env.put("TOLLGATE_PORT", "0");
    env.put("TOLLGATE_HOST", "127.0.0.1");
    return env;
  }

  ShopId createShop(MerchantId owner, String name, boolean requiresApproval) {
    return createShop(owner, name, requiresApproval, false, null);
  }

  ShopId createShop(MerchantId owner, String name, boolean requiresApproval, boolean checkBalance,
      java.time.Duration checkoutTimeout) {
    return app.services().shops().createShop(new CreateShopCommand(owner, name, null, null, checkoutTimeout,
        checkBalance, requiresApproval, "EUR"));
  }

  /** A deposit paid host-to-host with a card that is approved at once; returns its id. */
  String completedDeposit(String amount, String currency, String key) {
    Answer a = post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":" + amount + ",\"currency\":\""
        + currency + "\",\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}",
        key, null);
    String id = a.json().at("/result/id").asText();
    Answer done = send(HttpRequest.newBuilder(uri("/api/v1/payments/" + id))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"203.0.113.9\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + key));
    if (!"COMPLETED".equals(done.json().at("/result/state").asText())) {
      throw new AssertionError("deposit did not complete: " + done);
    }
    return id;
  }

  /** A merchant user of {@code owner} with these permissions; returns its Basic credentials. */
  String[] merchantUser(MerchantId owner, String email, io.tollgate.domain.user.Permission... permissions) {
    java.util.Set<io.tollgate.domain.user.Permission> set = java.util.EnumSet.noneOf(io.tollgate.domain.user.Permission.class);
    set.addAll(java.util.List.of(permissions));
    String password = app.services().users().create(owner, email, null, set).password();
    return new String[] {email, password};
  }

  private final Map<MerchantId, String[]> operationReaders = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * The payment's operations as its merchant reads them in the merchant API, oldest first: what
   * each step did and why is their {@code rawPaymentData} (the gateway API's operations carry
   * the reference's fields only).
   */
  java.util.List<JsonNode> merchantOperations(ShopId shop, String paymentId) {
    MerchantId owner = app.services().persistence().shops().find(shop).orElseThrow().merchantId();
    String[] reader = operationReaders.computeIfAbsent(owner,
        m -> merchantUser(m, "operations-" + m.value() + "@readers.example"));
    Answer a = merchantGet(sinceStarted("/merchant-api/v1/operations?limit=10000"), reader);
    if (a.status() != 200) {
      throw new AssertionError(a.status() + " " + a.body());
    }
    java.util.List<JsonNode> ops = new java.util.ArrayList<>();
    a.json().get("result").forEach(o -> {
      if (o.get("paymentId").asText().equals(paymentId)) {
        ops.add(o);
      }
    });
    ops.sort(java.util.Comparator.comparingLong(o -> o.get("id").asLong()));
    return ops;
  }

  /**
   * How far before {@link #started} {@link #sinceStarted} reads from: room for the records a test
   * moves back a little, as if made a while before.
   */
  static final Duration SINCE_STARTED_MARGIN = Duration.ofHours(1);

  /**
   * {@code path}, a merchant API list of payments or operations, reading from an hour before this
   * gateway started ({@code created.gte} or {@code completed.gte}): all that a test made on it.
   * Without it a list reads from the start of today UTC, and a test that runs across midnight
   * would miss the records it made before.
   */
  String sinceStarted(String path) {
    String field = path.startsWith("/merchant-api/v1/payments") ? "created.gte"
        : path.startsWith("/merchant-api/v1/operations") ? "completed.gte" : null;
    if (field == null || path.contains(field + "=")) {
      throw new IllegalArgumentException("not a list of payments or operations without its own window: " + path);
    }
    return path + (path.contains("?") ? "&" : "?") + field + "=" + dateTime(started.minus(SINCE_STARTED_MARGIN));
  }

  /** {@code instant} as the merchant API's filters take it: {@code YYYY-MM-DDTHH:MM:SS}, UTC. */
  static String dateTime(java.time.Instant instant) {
    return java.time.LocalDateTime.ofInstant(instant, java.time.ZoneOffset.UTC)
        .format(java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss"));
  }

  Answer merchantGet(String path, String[] credentials) {
    return send(HttpRequest.newBuilder(uri(path)).GET().header("Authorization", basic(credentials)));
  }

  Answer merchantPost(String path, String body, String[] credentials) {
    return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", basic(credentials)));
  }

  static String basic(String[] credentials) {
    return "Basic " + java.util.Base64.getEncoder().encodeToString(
        (credentials[0] + ":" + credentials[1]).getBytes(StandardCharsets.UTF_8));
  }

  /** Sum of the ledger of a shop in a currency: (available, reserved). */
  java.math.BigDecimal[] ledgerSum(ShopId shop, String currency) {
    return database.jdbi().withHandle(h -> h.createQuery(
            "select coalesce(sum(available),0) a, coalesce(sum(reserved),0) r from ledger_entries where shop_id = :s and currency = :c")
        .bind("s", shop.value()).bind("c", currency)
        .map((rs, ctx) -> new java.math.BigDecimal[] {rs.getBigDecimal("a"), rs.getBigDecimal("r")}).one());
  }

  /** A shop of this gateway's merchant, with an API key of its own. */
  record KeyedShop(ShopId id, String key) {}

  /** A new shop of {@link #merchant} and its API key in this gateway's environment. */
  KeyedShop keyedShop(String name) {
    return keyedShop(name, false);
  }

  /** The same, for a shop that checks its withdrawals' balance when {@code checkBalance}. */
  KeyedShop keyedShop(String name, boolean checkBalance) {
    ShopId id = createShop(merchant, name, false, checkBalance, null);
    return new KeyedShop(id, issueKey(id, app.services().environment()));
  }

  String issueKey(ShopId forShop, Environment environment) {
    return app.services().shops().issueKeys(forShop, environment).apiKey();
  }

  URI uri(String pathAndQuery) {
    return URI.create(app.baseUri() + pathAndQuery);
  }

  Answer get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET().header("Authorization", "Bearer " + apiKey));
  }

  Answer get(String path, String key) {
    return send(HttpRequest.newBuilder(uri(path)).GET().header("Authorization", "Bearer " + key));
  }

  Answer post(String path, String body) {
    return post(path, body, apiKey, null);
  }

  Answer post(String path, String body, String key, String idempotencyKey) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    if (key != null) {
      b.header("Authorization", "Bearer " + key);
    }
    if (idempotencyKey != null) {
      b.header("Idempotency-Key", idempotencyKey);
    }
    return send(b);
  }

  Answer send(HttpRequest.Builder request) {
    try {
      HttpRequest built = request.timeout(Duration.ofSeconds(30)).build();
      HttpResponse<String> r = http.send(built, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      var problems = OpenApiContract.INSTANCE.problems(built.method(), built.uri().getRawPath(), r.statusCode(),
          r.headers().firstValue("Content-Type").orElse(null), r.body());
      if (!problems.isEmpty()) {
        throw new AssertionError("the answer does not match the OpenAPI document:\n" + String.join("\n", problems));
      }
      return new Answer(r.statusCode(), r.body(), r);
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Creates a deposit and returns its id. */
  String deposit(String amount, String currency) {
    Answer a = post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":" + amount + ",\"currency\":\"" + currency + "\"}");
    if (a.status() != 200) {
      throw new AssertionError("deposit failed: " + a);
    }
    return a.json().at("/result/id").asText();
  }

  Answer patch(String path, String body) {
    return patch(path, body, apiKey);
  }

  Answer patch(String path, String body, String key) {
    return send(HttpRequest.newBuilder(uri(path)).method("PATCH", HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + key));
  }

  /** Polls a payment until it leaves {@code state} or the time is up. */
  JsonNode awaitStateOtherThan(String id, String state, Duration timeout) throws InterruptedException {
    return awaitStateOtherThan(id, state, timeout, apiKey);
  }

  JsonNode awaitStateOtherThan(String id, String state, Duration timeout, String key) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    JsonNode p;
    do {
      p = get("/api/v1/payments/" + id, key).json().get("result");
      if (!p.get("state").asText().equals(state)) {
        return p;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < end);
    return p;
  }

  /** What a client that reads slowly saw: how long its request stayed in flight, and what it had read by then. */
  record SlowRead(Duration inFlight, long read) {}

  /**
   * Sends {@code requestHead} on a connection with a tiny receive buffer and reads the answer at 1 KiB a second
   * (a quarter of a kilobyte every quarter of a second) for as long as the request is in flight, or for
   * {@code patience}. Needs the request to be the only one in flight.
   */
  SlowRead readSlowly(String requestHead, Duration patience) throws IOException, InterruptedException {
    try (java.net.Socket s = new java.net.Socket()) {
      s.setReceiveBufferSize(1024);
      s.connect(new java.net.InetSocketAddress("127.0.0.1", app.port()));
      s.setSoTimeout((int) patience.toMillis());
      s.getOutputStream().write(requestHead.getBytes(StandardCharsets.ISO_8859_1));
      long started = System.nanoTime();
      long until = started + patience.toNanos();
      while (app.requestsInFlight() == 0 && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      java.io.InputStream in = s.getInputStream();
      byte[] bytes = new byte[256];
      long read = 0;
      while (app.requestsInFlight() > 0 && System.nanoTime() < until) {
        int n = in.read(bytes);
        if (n < 0) {
          break;
        }
        read += n;
        Thread.sleep(250);
      }
      return new SlowRead(Duration.ofNanos(System.nanoTime() - started), read);
    }
  }

  int countPayments() {
    return database.jdbi().withHandle(h -> h.createQuery("select count(*) from payments").mapTo(Integer.class).one());
  }

  @Override
  public void close() {
    app.close();
    database.close();
  }

  /**
   * The page a refused checkout form sends the browser to: the POST is answered 303 to the
   * form's page with its errors, never with the page itself.
   */
  Answer refusedFormPage(Answer posted) {
    if (posted.status() != 303 || posted.header("Location") == null
        || !posted.header("Location").contains("?form=")) {
      throw new AssertionError("not a refused form's redirect: " + posted.status() + " " + posted.body());
    }
    return send(HttpRequest.newBuilder(uri(posted.header("Location"))).GET());
  }

  /** The CSRF token the forms of payment {@code id}'s checkout page carry, read from the page. */
  String checkoutCsrf(String id) {
    Answer page = send(HttpRequest.newBuilder(uri("/checkout/" + id)).GET());
    java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
        .matcher(page.body());
    if (!csrf.find()) {
      throw new AssertionError("no form on the page: " + page);
    }
    return csrf.group(1);
  }

  /** The POST of the form that sends on the card that came with deposit {@code id}, with the token given. */
  Answer processCard(String id, String csrf) {
    return send(HttpRequest.newBuilder(uri("/checkout/" + id + "/process"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + java.net.URLEncoder.encode(csrf, StandardCharsets.UTF_8))));
  }

  /**
   * Opens the checkout page of a deposit whose card came with the request as a browser does: the
   * page's GET charges nothing and shows a form, which its script sends at once; this sends it as
   * the script would and opens the page its redirect names, with the cookie it set. The answer is
   * that page: the result (with the way back to the merchant) or the 3-D Secure challenge.
   */
  Answer openWithCardOnFile(String id) {
    Answer page = send(HttpRequest.newBuilder(uri("/checkout/" + id)).GET());
    if (page.status() != 200 || !page.body().contains("action=\"/checkout/" + id + "/process\"")) {
      throw new AssertionError("no form that sends the card on: " + page);
    }
    Answer sent = processCard(id, checkoutCsrf(id));
    if (sent.status() != 303 || sent.header("Location") == null) {
      throw new AssertionError("the card was not sent on: " + sent);
    }
    HttpRequest.Builder next = HttpRequest.newBuilder(app.baseUri().resolve(sent.header("Location"))).GET();
    sent.response().headers().allValues("Set-Cookie").stream().filter(c -> !c.contains("Max-Age=0"))
        .map(c -> c.split(";", 2)[0]).reduce((a, b) -> a + "; " + b).ifPresent(c -> next.header("Cookie", c));
    return send(next);
  }

  record Answer(int status, String body, HttpResponse<String> response) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    String header(String name) {
      return response.headers().firstValue(name).orElse(null);
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }
}
