package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The demo merchant a first start seeds behaves as the README's table of test cards says. */
class DemoSeedTest {

  @Test
  void the_demo_shop_pays_the_readmes_test_cards_as_the_table_says() throws Exception {
    Path data = ScratchDirectories.create("tollgate-demo");
    Map<String, String> env = Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
        "TOLLGATE_DATA_DIR", data.toString());
    HttpClient http = HttpClient.newHttpClient();
    try (Tollgate app = Tollgate.start(TollgateConfig.from(env))) {
      String key = app.demo().orElseThrow().keys().apiKey();
      JsonNode approved = pay(http, app, key, "4000000000000408");
      assertThat(approved.get("state").asText()).isEqualTo("COMPLETED");
      JsonNode declined = pay(http, app, key, "4000000000000416");
      assertThat(declined.get("state").asText()).isEqualTo("DECLINED");
      assertThat(declined.get("errorCode").asText()).isEqualTo("4.00");
      // declined 4.02 by the first terminal, whose cascading group holds 4.02: approved by the next
      JsonNode cascaded = pay(http, app, key, "4000000000000424");
      assertThat(cascaded.get("state").asText()).isEqualTo("COMPLETED");
      assertThat(cascaded.get("terminalName").asText()).isEqualTo("Sandbox Acquirer B");
      // and so is a payout to it
      JsonNode payout = payOut(http, app, key, "4000000000000424");
      assertThat(payout.get("state").asText()).isEqualTo("COMPLETED");
      assertThat(payout.get("terminalName").asText()).isEqualTo("Sandbox Acquirer B");
      JsonNode operations = send(http, HttpRequest.newBuilder(URI.create(app.baseUri() + "/api/v1/payments/"
          + payout.get("id").asText() + "/operations")).header("Authorization", "Bearer " + key)).get("result");
      assertThat(operations.findValuesAsText("operation"))
          .as("newest first").containsExactly("WITHDRAWAL", "CASCADING", "WITHDRAWAL", "DETECT_FRAUD", "CREATE_PAYMENT");
      // the first terminal's decline says why on its step, and only there: neither payment was declined
      assertThat(operations.get(2).path("errorCode").asText()).isEqualTo("4.02");
      assertThat(operations.get(0).path("errorCode").asText(null)).isNull();
      assertThat(payout.path("errorCode").asText(null)).isNull();
      JsonNode deposit = send(http, HttpRequest.newBuilder(URI.create(app.baseUri() + "/api/v1/payments/"
          + cascaded.get("id").asText() + "/operations")).header("Authorization", "Bearer " + key)).get("result");
      assertThat(deposit.findValuesAsText("operation")).startsWith("DEPOSIT", "CASCADING", "DEPOSIT");
      assertThat(deposit.get(2).path("errorCode").asText()).isEqualTo("4.02");
      assertThat(deposit.get(0).path("errorCode").asText(null)).isNull();
      assertThat(cascaded.path("errorCode").asText(null)).isNull();
      // a withdrawal has no 3-D Secure step, so the challenge's decline is no payout's; the other rows hold
      assertThat(payOut(http, app, key, "4242424242424242").get("state").asText()).isEqualTo("COMPLETED");
      JsonNode unfunded = payOut(http, app, key, "4000000000009995");
      assertThat(unfunded.get("state").asText()).isEqualTo("DECLINED");
      assertThat(unfunded.get("errorCode").asText()).isEqualTo("4.01");
    }
  }

  /**
   * A first start stopped while it seeds the demo leaves nothing behind, so the next start
   * seeds it whole and shows its keys: it used to leave a merchant without printed keys, and no
   * later start seeded again. (The seed fails here at its counterparty, as a stop would cut it.)
   */
  @Test
  void a_demo_seed_cut_short_is_seeded_whole_by_the_next_start() throws Exception {
    try (io.tollgate.persistence.Database db = io.tollgate.persistence.testing.TestDatabase.fresh()) {
      cutShortThenSeeded(db, TestGateway.environment(db, "tollgate-demo-cut"));
    }
  }

  /**
   * Two instances started at once on one fresh database seed one demo merchant, and only one of
   * them prints keys: both used to find no merchant, and each seeded its own. The first one's
   * merchant is held back a second here so that the second start asks while the first seeds.
   */
  @Test
  void two_first_starts_at_once_seed_one_demo() throws Exception {
    try (io.tollgate.persistence.Database db = io.tollgate.persistence.testing.TestDatabase.fresh()) {
      Map<String, String> env = TestGateway.environment(db, "tollgate-demo-twice");
      try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
        db.jdbi().useHandle(h -> h.execute("""
            CREATE FUNCTION slow_merchant() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$;
            CREATE TRIGGER slow_merchant BEFORE INSERT ON merchants FOR EACH ROW EXECUTE FUNCTION slow_merchant()"""));
        var starts = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
          var first = starts.submit(() -> DemoSeed.seedIfFresh(TollgateConfig.from(env), app.services()));
          Thread.sleep(300);
          var second = starts.submit(() -> DemoSeed.seedIfFresh(TollgateConfig.from(env), app.services()));
          assertThat(java.util.List.of(first.get(), second.get())).filteredOn(java.util.Optional::isPresent)
              .as("keys printed once").hasSize(1);
        } finally {
          starts.shutdownNow();
        }
        int merchants = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM merchants")
            .mapTo(Integer.class).one());
        assertThat(merchants).as("one demo merchant").isEqualTo(1);
      }
    }
  }

  private static void cutShortThenSeeded(io.tollgate.persistence.Database db, Map<String, String> env) throws Exception {
    try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
      var jdbi = db.jdbi();
      jdbi.useHandle(h -> h.execute("""
          CREATE FUNCTION cut_short() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'the start was stopped'; END $$;
          CREATE TRIGGER cut_short BEFORE INSERT ON counterparties FOR EACH ROW EXECUTE FUNCTION cut_short()"""));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> DemoSeed.seedIfFresh(TollgateConfig.from(env),
          app.services())).hasMessageContaining("the start was stopped");
      assertThat(app.services().persistence().shops().anyMerchant()).as("nothing left behind").isFalse();

      jdbi.useHandle(h -> h.execute("DROP TRIGGER cut_short ON counterparties"));
      String key = DemoSeed.seedIfFresh(TollgateConfig.from(env), app.services()).orElseThrow().keys().apiKey();
      assertThat(pay(HttpClient.newHttpClient(), app, key, "4000000000000408").get("state")
          .asText()).isEqualTo("COMPLETED");
    }
  }

  /**
   * A script that waits for {@code /health/ready} and then uses the demo finds it there: the
   * demo used to be seeded after the service began to answer, so readiness said UP a moment
   * before the demo merchant and its keys existed. Readiness is asked for as fast as the
   * service answers from before it starts, and at its first UP the merchant must be there and
   * its keys already handed on to be shown.
   */
  @Test
  void readiness_is_not_reported_before_the_demo_is_seeded() throws Exception {
    try (io.tollgate.persistence.Database db = io.tollgate.persistence.testing.TestDatabase.fresh()) {
      Map<String, String> env = new java.util.HashMap<>(TestGateway.environment(db, "tollgate-demo-ready"));
      int port;
      try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
        port = free.getLocalPort();
      }
      env.put("TOLLGATE_PORT", Integer.toString(port));
      HttpClient http = HttpClient.newBuilder().connectTimeout(java.time.Duration.ofSeconds(1)).build();
      java.util.concurrent.atomic.AtomicReference<DemoSeed.Demo> shown = new java.util.concurrent.atomic.AtomicReference<>();
      java.util.concurrent.CompletableFuture<Boolean> merchantAtFirstReady = java.util.concurrent.CompletableFuture
          .supplyAsync(() -> {
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
              try {
                HttpResponse<Void> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/health/ready")).timeout(java.time.Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200) {
                  return shown.get() != null && db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM merchants")
                      .mapTo(Long.class).one()) > 0;
                }
              } catch (java.io.IOException notListeningYet) {
                // the service has not bound its port yet
                pause();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            }
            throw new IllegalStateException("never ready");
          });
      try (Tollgate app = Tollgate.start(TollgateConfig.from(env), (demo, url) -> shown.set(demo))) {
        assertThat(app.demo()).as("a fresh sandbox's start seeds the demo").isPresent();
        assertThat(shown.get()).as("and hands on its keys").isEqualTo(app.demo().get());
        assertThat(merchantAtFirstReady.get(60, java.util.concurrent.TimeUnit.SECONDS))
            .as("the demo merchant exists when readiness first says UP").isTrue();
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A card withdrawal, once the worker has paid it out or declined it. */
  private static JsonNode payOut(HttpClient http, Tollgate app, String key, String card) throws Exception {
    String id = send(http, HttpRequest.newBuilder(URI.create(app.baseUri() + "/api/v1/payments"))
        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"WITHDRAWAL\",\"amount\":5.00,\"currency\":\"EUR\","
            + "\"card\":{\"cardNumber\":\"" + card + "\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}")))
        .at("/result/id").asText();
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(15).toNanos();
    while (true) {
      JsonNode p = send(http, HttpRequest.newBuilder(URI.create(app.baseUri() + "/api/v1/payments/" + id))
          .header("Authorization", "Bearer " + key)).get("result");
      if (!p.get("state").asText().equals("PENDING") || System.nanoTime() > deadline) {
        return p;
      }
      Thread.sleep(100);
    }
  }

  private static JsonNode pay(HttpClient http, Tollgate app, String key, String card) throws Exception {
    JsonNode created = send(http, HttpRequest.newBuilder(URI.create(app.baseUri() + "/api/v1/payments"))
        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\",\"amount\":40.00,\"currency\":\"EUR\","
            + "\"card\":{\"cardNumber\":\"" + card + "\",\"cardholderName\":\"ANN LEE\",\"cardSecurityCode\":\"123\","
            + "\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}")));
    return send(http, HttpRequest.newBuilder(URI.create(app.baseUri() + "/api/v1/payments/"
            + created.at("/result/id").asText()))
        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"203.0.113.9\"}"))).get("result");
  }

  private static JsonNode send(HttpClient http, HttpRequest.Builder request) throws Exception {
    HttpResponse<String> answer = OpenApiContract.checked(http.send(request.build(), HttpResponse.BodyHandlers.ofString()));
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return TestGateway.JSON.readTree(answer.body());
  }
}
