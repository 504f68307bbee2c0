package io.tollgate.bootstrap;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.DestinationPolicy;
import io.tollgate.application.service.PaymentService;
import io.tollgate.application.service.PaymentWriter;
import io.tollgate.application.service.ProcessingService;
import io.tollgate.application.service.SecurityCodes;
import io.tollgate.application.service.GroupService;
import io.tollgate.application.service.MerchantRecordsService;
import io.tollgate.application.service.MerchantUserService;
import io.tollgate.application.service.ShopService;
import io.tollgate.application.service.RecentShops;
import io.tollgate.application.service.WebhookService;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.shop.Environment;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import io.tollgate.persistence.PersistenceAdapters;
import io.tollgate.processor.sandbox.SandboxProcessor;
import io.tollgate.rest.common.PaymentResultPayloads;
import io.tollgate.rest.common.RequestMetricsFilter;
import io.tollgate.rest.gateway.GatewayApi;
import io.tollgate.rest.merchant.BcryptPasswordHasher;
import io.tollgate.rest.merchant.MerchantApi;
import io.tollgate.webhook.PublicDestinations;
import io.tollgate.webhook.WebhookDispatcher;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.glassfish.jersey.servlet.ServletContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The running service: the database, the services wired with plain {@code new}, Jetty. */
public final class Tollgate implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Tollgate.class);

  private final TollgateConfig config;
  private final Database database;
  private final boolean ownsDatabase;
  private final Services services;
  private final Server server;
  private final String publicUrl;
  private volatile BackgroundJobs jobs;
  private volatile WebhookDispatcher webhooks;
  private final Observability observability;
  private final MerchantListShare listShare;
  private final ResponseRateHandler responseRate;
  /** The demo merchant this start seeded in a fresh sandbox, whose keys are shown once. */
  private final java.util.Optional<DemoSeed.Demo> demo;

  /** How long a large list page waits for its rows of the budget before it is a 503. */
  private static final Duration LARGE_PAGE_WAIT = Duration.ofSeconds(2);

  /** How long a merchant API list waits for its places (its merchant's share, the total) before it is a 503. */
  private static final Duration MERCHANT_LIST_WAIT = Duration.ofSeconds(2);

  /** Sent on every answer when the public URL is https: a browser keeps to https for a year. */
  private static final org.eclipse.jetty.http.HttpField STRICT_TRANSPORT_SECURITY =
      new org.eclipse.jetty.http.PreEncodedHttpField(org.eclipse.jetty.http.HttpHeader.STRICT_TRANSPORT_SECURITY,
          "max-age=31536000");

  /** How long a stop waits for the requests in flight to finish. */
  private static final long STOP_TIMEOUT_MILLIS = 15_000;
  /** How long a connection may send nothing while the service stops (see where it is set). */
  static final long SHUTDOWN_IDLE_MILLIS = 3_000;

  /** The product version, as the jar's manifest says; "dev" when run from classes. */
  public static final String VERSION = java.util.Optional.ofNullable(Tollgate.class.getPackage().getImplementationVersion())
      .orElse("dev");

  private Tollgate(TollgateConfig config, Database database, boolean ownsDatabase,
      java.util.function.BiConsumer<DemoSeed.Demo, String> demoSeeded,
      java.util.function.UnaryOperator<io.tollgate.application.port.out.PaymentProcessor> acquirer) throws Exception {
    this.config = config;
    this.database = database;
    this.ownsDatabase = ownsDatabase;
    // before anything is bound, loaded or started: a server of the other environment works nothing,
    // and one that cannot open the database's secrets takes nothing
    SecretBox secrets = ServedEnvironment.claim(database, config.environment(),
        () -> Services.unlock(config, database));

    QueuedThreadPool threads = new QueuedThreadPool(200, 8);
    // No reserved threads: the selector queues each request for an idle worker instead of
    // running it itself and waking a reserved thread to select in its place. On two cores that
    // spared wake-up is worth 6% of reads by id and 4% of card payments (BENCHMARKS.md, ninth round).
    threads.setReservedThreads(0);
    threads.setName("http");
    this.server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    // Slow clients: a connection that sends nothing for 30 s is closed. A request's headers, and
    // its body up to the body limit (BodyPrefetchHandler), are read without holding a thread; a
    // client that reads its answer slower than a floor is cut off (ResponseRateHandler).
    http.setIdleTimeout(30_000);
    http.setSendServerVersion(false);
    http.setSendDateHeader(true);
    http.setRequestHeaderSize(8 * 1024);
    http.setUriCompliance(UriCompliance.DEFAULT);
    ServerConnector connector = new ServerConnector(server, new RequestTargetConnectionFactory(http));
    connector.setHost(config.host());
    connector.setPort(config.port());
    connector.setIdleTimeout(30_000);
    // While stopping, Jetty cuts connections idle for this long (1 s by default), those between
    // requests and those of a request still sending its body alike: long enough for a client
    // on a slow link pausing mid-body, short enough that a pooled keep-alive connection (a load
    // balancer holds some) does not hold every stop up for the whole stop timeout.
    connector.setShutdownIdleTimeout(SHUTDOWN_IDLE_MILLIS);
    server.addConnector(connector);
    server.setStopTimeout(STOP_TIMEOUT_MILLIS);
    server.setStopAtShutdown(false);

    // The public URL may depend on the bound port, so bind first, then build the APIs.
    connector.open();
    this.publicUrl = config.publicUrlFor(connector.getLocalPort());
    // TLS ends in front of the service: a browser told so goes there over https only, not over
    // http first (a typed address, an old link), where anyone on its network could answer. Jetty
    // answers a request it cannot read (a bad URI, headers too large) before any customizer runs.
    boolean https = publicUrl.startsWith("https://");
    if (https) {
      http.addCustomizer((request, responseHeaders) -> {
        responseHeaders.add(STRICT_TRANSPORT_SECURITY);
        return request;
      });
    }
    server.setErrorHandler(new JsonErrorHandler(https ? STRICT_TRANSPORT_SECURITY : null));
    this.observability = new Observability();
    database.publishPoolMetrics(observability.registry);
    this.services = Services.wire(config, database, secrets, publicUrl, observability.paymentMetrics(), acquirer);
    observability.cachedGauge("tollgate.webhooks.outbox.pending", "webhook events not yet delivered",
        () -> services.persistence().webhookOutbox().pendingCount());
    observability.cachedGauge("tollgate.payments.unanswered",
        "payments sent to their terminal whose answer has been missing for over two minutes",
        () -> services.processing().overdueUnansweredPayments());
    if (config.environment() == Environment.SANDBOX) {
      SandboxReference.loadIfEmpty(services, new Currencies(config.cryptoCurrencies()));
    }
    // before the server answers: /health/ready said UP, and a script polling it went on to use
    // the demo, a moment before its merchant and keys were there. Its keys are handed on at once,
    // before anything else of the start can fail or be stopped: a demo whose keys were never
    // shown is never seeded again.
    this.demo = demoSeeded == null ? java.util.Optional.empty() : DemoSeed.seedIfFresh(config, services);
    demo.ifPresent(seeded -> demoSeeded.accept(seeded, publicUrl));

    ServletContextHandler context = new ServletContextHandler("/", false, false);
    context.setErrorHandler(new ServletJsonErrorHandler());
    context.addFilter(new org.eclipse.jetty.ee10.servlet.FilterHolder(
        new RequestIdFilter(new ClientAddresses(config.trustedProxies()))), "/*",
        java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
    // the APIs' own; RefusedRequestMetrics, in front of the body reader, counts what they never see
    RequestMetricsFilter gatewayMetrics = new RequestMetricsFilter(observability.registry, "gateway");
    RequestMetricsFilter merchantMetrics = new RequestMetricsFilter(observability.registry, "merchant");
    context.addFilter(new org.eclipse.jetty.ee10.servlet.FilterHolder(new MalformedHeaderFilter()), "/*",
        java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
    if (config.rateLimit() > 0) {
      var limit = new org.eclipse.jetty.ee10.servlet.FilterHolder(new RateLimitFilter(config.rateLimit(),
          config.rateLimitBurst()));
      context.addFilter(limit, "/api/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
      context.addFilter(limit, "/merchant-api/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
    }
    if (config.pageRateLimit() > 0) {
      // every other path (the checkout page, the docs, unknown paths) per client address; it
      // leaves the APIs' paths to the limit above, and never holds back the health checks
      context.addFilter(new org.eclipse.jetty.ee10.servlet.FilterHolder(RateLimitFilter.pages(config.pageRateLimit())),
          "/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
    }
    // behind the rate limit: a request it refuses holds none of the budget
    LargePageBudget largePages = new LargePageBudget(config.largePageRows(), LARGE_PAGE_WAIT);
    if (config.largePageRows() > 0) {
      var budget = new org.eclipse.jetty.ee10.servlet.FilterHolder(largePages);
      context.addFilter(budget, "/api/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
      context.addFilter(budget, "/merchant-api/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
    }
    // The merchant API's lists only: the gateway's requests never wait for a merchant's share or the total.
    this.listShare = new MerchantListShare(Math.max(1, config.merchantListShare()),
        config.merchantListShare() > 0 ? config.merchantListsTotal() : 0, MERCHANT_LIST_WAIT);
    if (config.merchantListShare() > 0) {
      context.addFilter(new org.eclipse.jetty.ee10.servlet.FilterHolder(listShare), "/merchant-api/*",
          java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
    }
    var gateway = GatewayApi.application(
        new GatewayApi.Dependencies(services.shops(), services.payments(), services.payments(),
            services.recentShops()::name, services.processing(), services.payments(), services.processing(),
            config.gatewayBalances(), publicUrl, config.bodyLimitBytes(), Clock.systemUTC()));
    gateway.register(gatewayMetrics);
    gateway.register(largePages.binding());
    context.addServlet(new ServletHolder("gateway", new ServletContainer(gateway)), "/api/v1/*");
    context.addServlet(new ServletHolder("checkout", new ServletContainer(GatewayApi.checkout(
        services.processing(), id -> services.secrets().fingerprint("checkout-csrf:" + id),
        new io.tollgate.rest.gateway.PageSeal() {
          @Override
          public String seal(String context, String plaintext) {
            return services.secrets().sealForUrl(context, plaintext);
          }

          @Override
          public String open(String context, String sealed) {
            return services.secrets().openFromUrl(context, sealed);
          }
        }, config.bodyLimitBytes()))), "/checkout/*");
    var merchant = MerchantApi.application(
        new MerchantApi.Dependencies(services.users(), services.webhooks(), services.groups(), services.shops(),
            services.processing(), services.merchantRecords(),
            config.merchantApiCore() ? MerchantApi.Profile.CORE : MerchantApi.Profile.FULL,
            config.bodyLimitBytes(), Clock.systemUTC()));
    merchant.register(merchantMetrics);
    merchant.register(listShare.binding());
    merchant.register(largePages.binding());
    context.addServlet(new ServletHolder("merchant", new ServletContainer(merchant)), "/merchant-api/v1/*");
    DatabaseReadiness readiness = new DatabaseReadiness(database, Duration.ofSeconds(2));
    ServletHolder ops = new ServletHolder("ops", new OpsServlet(observability, java.util.List.of(
        new OpsServlet.Check("database", () -> {
          var health = readiness.health();
          return health.reachable() ? null : health.problem();
        }),
        new OpsServlet.Check("migrations", () -> {
          var health = readiness.health();
          return health.migrated() ? null : health.problem();
        }),
        new OpsServlet.Check("webhookDispatcher", () -> webhooks != null && webhooks.isRunning() ? null
            : "the webhook dispatcher is not running"))));
    ServletHolder docs = new ServletHolder("docs", new DocsServlet(GatewayApi.openApi().json(),
        MerchantApi.openApi().json()));
    context.addServlet(docs, "/api/v1/openapi.json");
    context.addServlet(docs, "/merchant-api/v1/openapi.json");
    context.addServlet(docs, "/docs");
    context.addServlet(docs, "/docs/*");
    context.addServlet(ops, "/health/*");
    context.addServlet(ops, "/metrics");
    context.addServlet(new ServletHolder("unknown", new ReadOnlyServlet.NoSuchEndpoint()), "/");
    this.responseRate = new ResponseRateHandler(new RefusedRequestMetrics(
        new BodyPrefetchHandler(context, config.bodyLimitBytes()), gatewayMetrics, merchantMetrics));
    server.setHandler(new GracefulHandler(responseRate));
    server.start();
    this.jobs = new BackgroundJobs(services.processing(), services.payments()::forgetExpiredIdempotencyKeys,
        batch -> services.webhooks().forgetDeliveriesOlderThan(config.webhookLogRetention(), batch),
        batch -> services.processing().forgetUnusedCards(config.cardRetention(), batch), config.jobInterval());
    BackgroundJobs started = jobs;
    io.micrometer.core.instrument.Gauge.builder("tollgate.jobs.progress.age", started::secondsSinceProgress)
        .description("how long the background jobs (payouts, bank transfers, unanswered deposits, captures "
            + "and voids, checkout timeouts) have waited on one batch, or how late their next round is; 0 while all "
            + "is well")
        .baseUnit("seconds").register(observability.registry);
    for (String job : BackgroundJobs.JOBS) {
      io.micrometer.core.instrument.FunctionCounter.builder("tollgate.jobs.failures", started, j -> j.failures(job))
          .description("rounds of a background job that failed; one that keeps rising is a job stuck on "
              + "something it cannot get past (its log lines say what)")
          .tag("job", job).register(observability.registry);
    }
    this.webhooks = new WebhookDispatcher(services.webhooks(), services.destinations(),
        new WebhookDispatcher.Settings(config.webhookParallelism(), Duration.ofMillis(200), config.webhookTimeout(),
            config.webhookTimeout().multipliedBy(3), "Tollgate-Webhooks/" + VERSION),
        Clock.systemUTC(), observability.registry).start();
    LOG.info("Tollgate {} listening on {} (public URL {})", config.environment().lowerName(),
        connector.getLocalPort(), publicUrl);
  }

  /**
   * Starts on the configured database (embedded when none is configured). A fresh sandbox's demo
   * merchant ({@link #demo}) is seeded before the service answers anything.
   */
  public static Tollgate start(TollgateConfig config) throws Exception {
    return start(config, (demo, publicUrl) -> { });
  }

  /**
   * As {@link #start(TollgateConfig)}, handing a demo merchant seeded now and the public URL to
   * {@code demoSeeded} as soon as it is seeded, to show its keys.
   */
  static Tollgate start(TollgateConfig config, java.util.function.BiConsumer<DemoSeed.Demo, String> demoSeeded)
      throws Exception {
    Database db = Database.start(new DatabaseSettings(config.dbUrl(), config.dbUser(), config.dbPassword(),
        config.dbUrl() == null ? config.dataDirectory().resolve("postgres") : null, config.dbPoolSize()));
    try {
      return new Tollgate(config, db, true, demoSeeded, java.util.function.UnaryOperator.identity());
    } catch (Exception e) {
      db.close();
      throw e;
    }
  }

  /** Starts on a database someone else owns (tests), seeding no demo merchant. */
  public static Tollgate start(TollgateConfig config, Database database) throws Exception {
    return start(config, database, java.util.function.UnaryOperator.identity());
  }

  /**
   * As {@link #start(TollgateConfig, Database)}, its payments sent to the acquirer {@code acquirer}
   * makes of the configured one: for tests of acquirers that answer late or not at all.
   */
  static Tollgate start(TollgateConfig config, Database database,
      java.util.function.UnaryOperator<io.tollgate.application.port.out.PaymentProcessor> acquirer) throws Exception {
    return new Tollgate(config, database, false, null, acquirer);
  }

  /** The demo merchant this start seeded, in a fresh sandbox; its keys are shown only now. */
  java.util.Optional<DemoSeed.Demo> demo() {
    return demo;
  }

  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port());
  }

  public int port() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /**
   * How long a connection accepted from now on may send nothing before it is closed (30 s
   * otherwise), also while its request is served: for tests of a client that stops sending,
   * which cannot wait that long.
   */
  void idleTimeout(java.time.Duration timeout) {
    ServerConnector connector = (ServerConnector) server.getConnectors()[0];
    connector.setIdleTimeout(timeout.toMillis());
    connector.getConnectionFactory(HttpConnectionFactory.class).getHttpConfiguration().setIdleTimeout(timeout.toMillis());
  }

  /**
   * The send buffer of connections accepted from now on, and how long the writes of an answer may wait on its
   * client before its reading counts against the floor ({@link ResponseRateHandler#GRACE} otherwise): for tests
   * of a client that reads slowly, whose answer the loopback interface's buffers (megabytes) would take whole, and
   * which cannot wait the grace.
   */
  void slowLink(int sendBufferBytes, java.time.Duration grace) {
    ((ServerConnector) server.getConnectors()[0]).setAcceptedSendBufferSize(sendBufferBytes);
    responseRate.grace(grace);
  }

  /** Merchants with merchant API lists served or waiting now: for tests that check none is kept after. */
  int merchantsWithListsInFlight() {
    return listShare.merchantsInFlight();
  }

  /** Merchant API lists holding a place of the total now: for tests that check each is given back once. */
  int merchantListsServed() {
    return listShare.listsServed();
  }

  /** Requests being served now: for tests that stop the service with one in flight. */
  long requestsInFlight() {
    return ((GracefulHandler) server.getHandler()).getCurrentRequestCount();
  }

  public String publicUrl() {
    return publicUrl;
  }

  public Services services() {
    return services;
  }

  public Database database() {
    return database;
  }

  /** Stops taking requests, lets those in flight finish, then releases the database. */
  @Override
  public void close() {
    // The jobs and the webhook dispatcher stop claiming work at once and finish theirs while the
    // server lets its requests end: one after another the three took up to about 50 s, past the
    // grace period a container platform gives a stop (10 s or 30 s by default) before it kills
    // the process, which then leaves answered webhooks unrecorded, to be sent again.
    Thread jobsStop = new Thread(jobs::close, "stop-jobs");
    Thread webhooksStop = new Thread(webhooks::close, "stop-webhooks");
    jobsStop.start();
    webhooksStop.start();
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("error while stopping the HTTP server", e);
    }
    try {
      jobsStop.join();
      webhooksStop.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    observability.close();
    if (ownsDatabase) {
      database.close();
    }
    LOG.info("Tollgate stopped");
  }

  /** The application services, wired by hand. */
  public record Services(PaymentService payments, ShopService shops, ProcessingService processing,
      WebhookService webhooks, MerchantUserService users, GroupService groups, MerchantRecordsService merchantRecords,
      DestinationPolicy destinations, PersistenceAdapters persistence,
      Environment environment, SecretBox secrets, RecentShops recentShops) {

    /**
     * The sandbox simulator in the sandbox; in production, none: no real acquirer adapter ships
     * yet, and the simulator must never answer for real money, so every payment is declined
     * (1.05) until a team wires its own {@link io.tollgate.application.port.out.PaymentProcessor} here.
     */
    static io.tollgate.application.port.out.PaymentProcessor processor(TollgateConfig config, Clock clock) {
      if (config.environment() == Environment.PRODUCTION) {
        LOG.warn("production: no acquirer is connected, so every payment is declined (1.05 NO_ACQUIRER); "
            + "Tollgate ships only the sandbox acquirer, which never answers for real money");
        return new io.tollgate.processor.none.NoAcquirer();
      }
      return new SandboxProcessor(clock);
    }

    /**
     * The services' clock, to the microsecond as PostgreSQL keeps times: a time in nanoseconds
     * was answered and sent in webhooks cut to its second, and read back rounded to its
     * microsecond, which at the end of a second is the next one.
     */
    static final Clock CLOCK = Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));

    /**
     * Refuses to start when payments or balances are kept in a crypto symbol the setting no
     * longer has, or gives fewer decimals than an amount kept in it has: each of them, every list
     * that holds one, and the job that cancels timed-out checkouts would fail to read it, at every
     * round. Refused at start instead, naming the setting. Reads the record of the currencies in
     * use and of the decimals each symbol was last given, not the payments, but for the rare
     * start that drops a symbol in use, or gives one fewer decimals than it was last given (or
     * than no start recorded yet, as after the upgrade that began to record them).
     */
    private static void checkCurrenciesKept(java.util.Map<String, Integer> crypto, Currencies currencies,
        Database database) {
      java.util.Set<String> recorded = database.currenciesRecorded();
      java.util.List<String> unrecognised = recorded.stream().filter(c -> currencies.find(c).isEmpty()).toList();
      java.util.List<String> unknown = unrecognised.isEmpty() ? unrecognised
          : database.currenciesInUse(unrecognised).stream().sorted().toList();
      if (!unknown.isEmpty()) {
        throw new IllegalStateException("TOLLGATE_CRYPTO_CURRENCIES must keep " + String.join(", ", unknown)
            + " (with the decimals it had): payments or balances are kept in " + (unknown.size() == 1 ? "it" : "them"));
      }
      java.util.Map<String, Integer> given = database.decimalsRecorded();
      java.util.List<String> fewer = recorded.stream().filter(crypto::containsKey)
          .filter(c -> given.getOrDefault(c, Integer.MAX_VALUE) > crypto.get(c)).sorted().toList();
      java.util.Map<String, Integer> kept = fewer.isEmpty() ? java.util.Map.of() : database.decimalsKept(fewer);
      java.util.List<String> tooFew = fewer.stream().filter(c -> kept.getOrDefault(c, 0) > crypto.get(c)).toList();
      if (!tooFew.isEmpty()) {
        throw new IllegalStateException("TOLLGATE_CRYPTO_CURRENCIES must give " + tooFew.stream()
            .map(c -> c + " at least " + kept.get(c) + " decimals (it gives " + crypto.get(c) + ")")
            .collect(java.util.stream.Collectors.joining(", ")) + ": payments or balances are kept in "
            + (tooFew.size() == 1 ? "it" : "them") + " with that many");
      }
      java.util.Map<String, Integer> changed = new java.util.HashMap<>(crypto);
      changed.entrySet().removeIf(e -> !recorded.contains(e.getKey()) || e.getValue().equals(given.get(e.getKey())));
      if (!changed.isEmpty()) {
        database.recordDecimals(changed);
      }
    }

    /** The database's secrets, opened with the configured master key (see {@link MasterKey}). */
    static SecretBox unlock(TollgateConfig config, Database database) {
      return new SecretBox(new io.tollgate.persistence.MasterKeyRing(database.jdbi()).unlock(MasterKey.load(config)));
    }

    static Services wire(TollgateConfig config, Database database, String publicUrl) {
      return wire(config, database, publicUrl, io.tollgate.application.port.out.PaymentMetrics.NONE,
          java.util.function.UnaryOperator.identity());
    }

    static Services wire(TollgateConfig config, Database database, String publicUrl,
        io.tollgate.application.port.out.PaymentMetrics metrics,
        java.util.function.UnaryOperator<io.tollgate.application.port.out.PaymentProcessor> acquirer) {
      return wire(config, database, unlock(config, database), publicUrl, metrics, acquirer);
    }

    static Services wire(TollgateConfig config, Database database, SecretBox secrets, String publicUrl,
        io.tollgate.application.port.out.PaymentMetrics metrics,
        java.util.function.UnaryOperator<io.tollgate.application.port.out.PaymentProcessor> acquirer) {
      Clock clock = CLOCK;
      Currencies currencies = new Currencies(config.cryptoCurrencies());
      checkCurrenciesKept(config.cryptoCurrencies(), currencies, database);
      PersistenceAdapters adapters = new PersistenceAdapters(database, secrets, currencies);
      DestinationPolicy destinations = config.environment() == Environment.PRODUCTION
          ? new PublicDestinations() : DestinationPolicy.ALLOW_ALL;
      RecentShops recentShops = new RecentShops(adapters.shops());
      PaymentWriter writer = new PaymentWriter(adapters.payments(),
          new PaymentResultPayloads(publicUrl, recentShops::name), metrics, adapters.idempotency());
      SecurityCodes securityCodes = new SecurityCodes();
      PaymentService payments = new PaymentService(adapters.transactionRunner(), adapters.payments(), writer,
          adapters.balances(), adapters.shops(), adapters.idempotency(), adapters.cardVault(), secrets,
          currencies, destinations, adapters.referenceData(), clock, securityCodes);
      ProcessingService processing = new ProcessingService(adapters.transactionRunner(), adapters.payments(),
          writer, adapters.balances(), adapters.shops(), adapters.cardVault(), acquirer.apply(processor(config, clock)),
          adapters.referenceData(), adapters.groups(), secrets, currencies, clock, config.sandboxBankDelay(),
          securityCodes, recentShops);
      ShopService shops = new ShopService(adapters.transactionRunner(), adapters.shops(), secrets,
          config.environment(), clock, destinations);
      WebhookService webhooks = new WebhookService(adapters.webhookOutbox(), adapters.payments(), adapters.shops(),
          adapters.referenceData(), shops, config.webhookRetrySchedule(), clock);
      MerchantUserService users = new MerchantUserService(adapters.users(), adapters.shops(),
          adapters.referenceData(), new BcryptPasswordHasher(), secrets, clock);
      GroupService groups = new GroupService(adapters.groups(), adapters.shops(), secrets, clock);
      MerchantRecordsService merchantRecords = new MerchantRecordsService(adapters.payments(), adapters.referenceData(),
          adapters.shops(), adapters.balances(), currencies, config.baseCurrency(), clock);
      return new Services(payments, shops, processing, webhooks, users, groups, merchantRecords, destinations,
          adapters, config.environment(), secrets, recentShops);
    }
  }
}
