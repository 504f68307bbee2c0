package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** No webhook is lost or doubled with several instances, on shutdown, or when an instance is killed. */
class WebhookReliabilityTest {

  private static final String MASTER_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  static Map<String, String> instanceEnv(Map<String, String> extra) throws Exception {
    Map<String, String> env = new HashMap<>(Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
        "TOLLGATE_DATA_DIR", ScratchDirectories.create("tollgate-instance").toString(),
        "TOLLGATE_MASTER_KEY", MASTER_KEY, "TOLLGATE_JOB_INTERVAL", "PT0.1S", "TOLLGATE_RATE_LIMIT", "0"));
    env.putAll(extra);
    return env;
  }

  /** Creates a deposit with the approved test card and pays it host-to-host through {@code base}. */
  static String paidDeposit(HttpClient http, URI base, String apiKey, String webhookUrl) throws Exception {
    HttpResponse<String> created = OpenApiContract.checked(http.send(HttpRequest.newBuilder(base.resolve("/api/v1/payments"))
        .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("""
            {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR","webhookUrl":"%s",
             "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""".formatted(webhookUrl)))
        .build(), HttpResponse.BodyHandlers.ofString()));
    String id = TestGateway.JSON.readTree(created.body()).at("/result/id").asText();
    HttpResponse<String> paid = OpenApiContract.checked(http.send(HttpRequest.newBuilder(base.resolve("/api/v1/payments/" + id))
        .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"198.51.100.4\"}"))
        .build(), HttpResponse.BodyHandlers.ofString()));
    if (paid.statusCode() != 200) {
      throw new IllegalStateException("PATCH answered " + paid.statusCode());
    }
    return id;
  }

  static int count(Database db, String sql) {
    return db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Integer.class).one());
  }

  static Set<String> eventIds(Database db) {
    return new HashSet<>(db.jdbi().withHandle(h -> h.createQuery("SELECT id::text FROM webhook_events")
        .mapTo(String.class).list()));
  }

  static Set<String> receivedIds(WebhookReceiver receiver) {
    Set<String> ids = new HashSet<>();
    receiver.received().forEach(r -> ids.add(r.header("Webhook-Id")));
    return ids;
  }

  @Test
  void two_instances_deliver_a_thousand_events_each_exactly_once() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway gw = TestGateway.start();
        Tollgate second = Tollgate.start(TollgateConfig.from(instanceEnv(Map.of())), gw.database)) {
      List<URI> instances = List.of(gw.app.baseUri(), second.baseUri());
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<CompletableFuture<String>> created = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        URI base = instances.get(i % 2);
        created.add(CompletableFuture.supplyAsync(() -> {
          try {
            return paidDeposit(gw.http, base, gw.apiKey, receiver.url("/load"));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, pool));
      }
      CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
      pool.shutdown();

      assertThat(WebhookReceiver.await(() -> receiver.received().size() >= 1000, Duration.ofSeconds(120))).isTrue();
      // each attempt is recorded once its answer is back, a moment after the receiver counted it;
      // a delivery made twice would be recorded twice
      assertThat(WebhookReceiver.await(() -> count(gw.database, "SELECT count(*) FROM webhook_attempts") >= 1000
          && count(gw.database, "SELECT count(*) FROM webhook_events WHERE status = 'DELIVERED'") == 1000,
          Duration.ofSeconds(30))).isTrue();
      assertThat(receiver.received()).hasSize(1000);
      assertThat(receivedIds(receiver)).hasSize(1000).isEqualTo(eventIds(gw.database));
      assertThat(count(gw.database, "SELECT count(*) FROM payments WHERE state = 'COMPLETED'")).isEqualTo(1000);
      assertThat(count(gw.database, "SELECT count(*) FROM webhook_events WHERE status = 'DELIVERED'")).isEqualTo(1000);
      assertThat(count(gw.database, "SELECT count(*) FROM webhook_attempts")).isEqualTo(1000);
    }
  }

  /**
   * A shutdown finishes the deliveries in flight and gives back what it leased but has not sent:
   * after a restart every event has been delivered once. The receiver holds its answers until the
   * shutdown has begun, so that it meets deliveries in flight however fast the machine: two, one
   * for each of two shops, as many as the worker sends at once.
   */
  @Test
  void a_shutdown_finishes_or_gives_back_what_it_holds() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver().holdAnswers();
        TestGateway gw = TestGateway.start()) {
      String otherKey = gw.issueKey(gw.createShop(gw.merchant, "Other shop", false), gw.app.services().environment());
      // a timeout far longer than the answers are held: none of them is cut short
      Tollgate worker = Tollgate.start(TollgateConfig.from(instanceEnv(Map.of("TOLLGATE_WEBHOOK_PARALLELISM", "2",
          "TOLLGATE_WEBHOOK_TIMEOUT", "PT1M"))), gw.database);
      gw.app.close(); // only the worker delivers from here on
      for (int i = 0; i < 12; i++) {
        paidDeposit(gw.http, worker.baseUri(), i % 2 == 0 ? gw.apiKey : otherKey, receiver.url("/held"));
      }
      assertThat(WebhookReceiver.await(() -> receiver.arrived() == 2, Duration.ofSeconds(20))).isTrue();

      URI workerUri = worker.baseUri();
      Thread closing = new Thread(worker::close, "close-worker");
      closing.start();
      // it stops taking requests once its dispatcher has been told to stop leasing
      assertThat(WebhookReceiver.await(() -> !accepts(workerUri), Duration.ofSeconds(20))).isTrue();
      assertThat(receiver.arrived()).as("in flight: no slot was free for more").isEqualTo(2);
      receiver.answerHeld();
      closing.join(Duration.ofSeconds(90).toMillis());
      assertThat(closing.isAlive()).as("the shutdown ended").isFalse();

      int delivered = count(gw.database, "SELECT count(*) FROM webhook_events WHERE status = 'DELIVERED'");
      assertThat(delivered).as("the deliveries in flight were finished, each answer recorded")
          .isEqualTo(receiver.received().size()).isGreaterThanOrEqualTo(2).isLessThan(12);
      assertThat(count(gw.database, "SELECT count(*) FROM webhook_events WHERE lease_token IS NOT NULL")).isZero();
      assertThat(count(gw.database, """
          SELECT count(*) FROM webhook_events WHERE status = 'PENDING' AND attempts = 0 AND next_attempt_at <= now()
          """)).as("the rest given back untried, due at once").isEqualTo(12 - delivered);

      try (Tollgate next = Tollgate.start(TollgateConfig.from(instanceEnv(Map.of())), gw.database)) {
        assertThat(WebhookReceiver.await(() -> count(gw.database,
            "SELECT count(*) FROM webhook_events WHERE status = 'DELIVERED'") == 12, Duration.ofSeconds(30))).isTrue();
      }
      assertThat(receiver.received()).hasSize(12).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
      assertThat(receivedIds(receiver)).as("each event once").isEqualTo(eventIds(gw.database));
      assertThat(count(gw.database, "SELECT count(*) FROM webhook_attempts")).isEqualTo(12);
    }
  }

  /** Whether a connection to {@code base} is taken. */
  private static boolean accepts(URI base) {
    try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
      return true;
    } catch (java.io.IOException refused) {
      return false;
    }
  }

  @Test
  void killing_an_instance_mid_burst_loses_no_event() throws Exception {
    Database db = TestDatabase.fresh();
    String apiKey;
    try (Tollgate setup = Tollgate.start(TollgateConfig.from(instanceEnv(Map.of())), db)) {
      var merchant = setup.services().shops().createMerchant("Crash Merchant");
      var shop = setup.services().shops().createShop(new io.tollgate.application.port.in.ProvisioningUseCase
          .CreateShopCommand(merchant, "Crash Shop", null, null, null, false, false, "EUR"));
      apiKey = setup.services().shops().issueKeys(shop, setup.services().environment()).apiKey();
    }
    // A slow receiver (about 10 events a second with 2 parallel sends) lets a backlog build up.
    try (WebhookReceiver receiver = new WebhookReceiver().delayEachAnswer(Duration.ofMillis(200))) {
      Map<String, String> env = instanceEnv(Map.of("TOLLGATE_DB_URL", db.jdbcUrl(),
          "TOLLGATE_DB_USER", TestDatabase.user(), "TOLLGATE_DB_PASSWORD", TestDatabase.password(),
          "TOLLGATE_WEBHOOK_TIMEOUT", "PT1S", "TOLLGATE_WEBHOOK_PARALLELISM", "2"));
      Process child = startChild(env);
      try {
        URI base = URI.create("http://127.0.0.1:" + awaitPort(child));
        HttpClient http = HttpClient.newHttpClient();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        AtomicInteger paid = new AtomicInteger();
        List<String> undocumented = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 400; i++) {
          pool.execute(() -> {
            try {
              paidDeposit(http, base, apiKey, receiver.url("/crash"));
              paid.incrementAndGet();
            } catch (AssertionError e) {
              undocumented.add(e.getMessage()); // an answer that differs from the OpenAPI document
            } catch (Exception e) {
              // the instance is gone
            }
          });
        }
        assertThat(WebhookReceiver.await(() -> receiver.received().size() >= 20, Duration.ofSeconds(60))).isTrue();
        child.destroyForcibly(); // SIGKILL: no shutdown hook, no release
        child.waitFor(10, TimeUnit.SECONDS);
        pool.shutdown();
        pool.awaitTermination(60, TimeUnit.SECONDS);
        assertThat(paid.get()).isGreaterThan(0);
        assertThat(undocumented).isEmpty();
      } finally {
        child.destroyForcibly();
      }

      int finalPayments = count(db, "SELECT count(*) FROM payments WHERE state = 'COMPLETED'");
      assertThat(count(db, "SELECT count(*) FROM webhook_events")).isEqualTo(finalPayments);
      assertThat(receivedIds(receiver).size()).isLessThan(finalPayments);

      try (Tollgate survivor = Tollgate.start(TollgateConfig.from(instanceEnv(Map.of())), db)) {
        // Events the dead instance held come due again when its lease (3 x the 1 s timeout) runs out.
        assertThat(WebhookReceiver.await(
            () -> count(db, "SELECT count(*) FROM webhook_events WHERE status <> 'DELIVERED'") == 0,
            Duration.ofSeconds(60))).isTrue();
      }
      assertThat(receivedIds(receiver)).isEqualTo(eventIds(db));
      // At least once: only what was in flight at the kill (at most its 2 parallel sends) arrives twice.
      assertThat(receiver.received().size() - receivedIds(receiver).size()).isBetween(0, 2);
    } finally {
      db.close();
    }
  }

  static Process startChild(Map<String, String> env) throws Exception {
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb = new ProcessBuilder(java.toString(), "-Xmx256m", "-cp", classpath,
        "io.tollgate.bootstrap.Main", "serve").redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("TOLLGATE_"));
    pb.environment().putAll(env);
    return pb.start();
  }

  static int awaitPort(Process child) throws Exception {
    return awaitStarted(child).port();
  }

  /** What a child printed by the time it listens: its port, and the demo API key if it printed one. */
  record Started(int port, String apiKey) {
    URI base() {
      return URI.create("http://127.0.0.1:" + port);
    }
  }

  static Started awaitStarted(Process child) throws Exception {
    Pattern running = Pattern.compile("running at http://[^:]+:(\\d+)");
    Pattern key = Pattern.compile("API key:\\s+(\\S+)");
    CompletableFuture<Started> started = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      String apiKey = null;
      try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          Matcher k = key.matcher(line);
          if (k.find()) {
            apiKey = k.group(1);
          }
          Matcher m = running.matcher(line);
          if (m.find()) {
            started.complete(new Started(Integer.parseInt(m.group(1)), apiKey));
          }
        }
      } catch (Exception e) {
        started.completeExceptionally(e);
      }
      started.completeExceptionally(new IllegalStateException("the instance exited before it listened"));
    }, "child-output");
    reader.setDaemon(true);
    reader.start();
    return started.get(90, TimeUnit.SECONDS);
  }
}
