package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import io.tollgate.persistence.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The database goes away under load for a few seconds: the service answers 503 in the
 * envelope meanwhile, says so on /health/ready, and recovers by itself, losing nothing it
 * confirmed.
 */
class DatabaseOutageTest {

  @Test
  void an_outage_is_a_503_with_the_envelope_and_the_service_recovers_alone() throws Exception {
    try (Database direct = TestDatabase.fresh()) {
      URI target = URI.create(direct.jdbcUrl().substring("jdbc:".length()));
      try (TcpProxy proxy = new TcpProxy(target.getHost(), target.getPort())) {
        String proxied = "jdbc:postgresql://127.0.0.1:" + proxy.port() + target.getPath()
            + (target.getQuery() == null ? "" : "?" + target.getQuery());
        Map<String, String> env = Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
            "TOLLGATE_DATA_DIR", ScratchDirectories.create("tollgate-outage").toString(),
            "TOLLGATE_MASTER_KEY", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "TOLLGATE_RATE_LIMIT", "0",
            "TOLLGATE_JOB_INTERVAL", "PT0.2S");
        try (Database viaProxy = Database.start(new DatabaseSettings(proxied, TestDatabase.user(),
                TestDatabase.password(), null, 8));
            Tollgate app = Tollgate.start(TollgateConfig.from(env), viaProxy)) {
          var merchant = app.services().shops().createMerchant("Outage Merchant");
          var shop = app.services().shops().createShop(new io.tollgate.application.port.in.ProvisioningUseCase
              .CreateShopCommand(merchant, "Outage Shop", null, null, null, false, false, "EUR"));
          String key = app.services().shops().issueKeys(shop, app.services().environment()).apiKey();
          HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

          AtomicBoolean running = new AtomicBoolean(true);
          Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
          List<String> confirmed = new CopyOnWriteArrayList<>();
          List<String> badBodies = new CopyOnWriteArrayList<>();
          Thread load = new Thread(() -> {
            int i = 0;
            while (running.get()) {
              try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(app.baseUri().resolve("/api/v1/payments"))
                    .timeout(Duration.ofSeconds(15)).header("Authorization", "Bearer " + key)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\",\"amount\":1,"
                        + "\"currency\":\"EUR\",\"referenceId\":\"load-" + (i++) + "\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
                statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
                badBodies.addAll(OpenApiContract.INSTANCE.problems(r));
                if (r.statusCode() == 200) {
                  confirmed.add(TestGateway.JSON.readTree(r.body()).at("/result/id").asText());
                } else if (r.statusCode() != 503 || !r.body().contains("\"status\":503")
                    || !r.headers().firstValue("Retry-After").isPresent() || r.body().contains("Exception")) {
                  badBodies.add(r.statusCode() + " " + r.body());
                }
              } catch (Exception e) {
                badBodies.add("no answer: " + e);
              }
            }
          });
          load.start();
          Thread.sleep(1_000);
          proxy.cut();
          Thread.sleep(1_500);
          // within what a probe waits: the answer is bounded, not the pool's timeout twice over
          HttpResponse<String> readyDuring = http.send(HttpRequest.newBuilder(app.baseUri().resolve("/health/ready"))
              .timeout(Duration.ofSeconds(15)).build(), HttpResponse.BodyHandlers.ofString());
          // past the gauges' five seconds, so that the scrape finds them due to be read again
          Thread.sleep(3_000);
          HttpResponse<String> metricsDuring = http.send(HttpRequest.newBuilder(app.baseUri().resolve("/metrics"))
              .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
          Thread.sleep(500);
          proxy.restore();

          boolean recovered = WebhookReceiver.await(() -> {
            try {
              return http.send(HttpRequest.newBuilder(app.baseUri().resolve("/health/ready")).build(),
                  HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
            } catch (Exception e) {
              return false;
            }
          }, Duration.ofSeconds(30));
          int okBefore = statuses.getOrDefault(200, new AtomicInteger()).get();
          Thread.sleep(1_500);
          running.set(false);
          load.join(20_000);

          assertThat(readyDuring.statusCode()).isEqualTo(503);
          assertThat(metricsDuring.statusCode()).isEqualTo(200);
          assertThat(metricsDuring.body()).contains("tollgate_webhooks_outbox_pending");
          // what the answers say, not how long they took: read during the scrape, a gauge would wait out the
          // pool's 5 s for a connection and show NaN; unbounded, the probe would report the pool's timeout
          assertThat(metricsDuring.body().lines().filter(line -> line.startsWith("tollgate_webhooks_outbox_pending ")
              || line.startsWith("tollgate_payments_unanswered ")))
              .as("the database gauges are read in the background: the scrape answers the values read before")
              .hasSize(2).noneMatch(line -> line.endsWith("NaN"));
          assertThat(readyDuring.body()).as("the 2 s probe's answer, not the pool's 5 s wait for a connection")
              .contains("\"database\":\"the database did not answer within 2000 ms\"");
          assertThat(readyDuring.body()).contains("\"status\":\"DOWN\"").contains("database");
          assertThat(recovered).as("ready again without a restart").isTrue();
          assertThat(statuses.get(503)).as("503s during the outage: " + statuses).isNotNull();
          assertThat(statuses.keySet()).as("only 200 and 503: " + statuses).containsOnly(200, 503);
          assertThat(badBodies).isEmpty();
          assertThat(statuses.get(200).get()).as("creates succeed again after the outage").isGreaterThan(okBefore);
          for (String id : confirmed) {
            int found = direct.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM payments WHERE id = :id")
                .bind("id", id).mapTo(Integer.class).one());
            assertThat(found).as("confirmed payment " + id).isEqualTo(1);
          }

          // The webhook dispatcher's claims failed during the outage; it sends again after it.
          try (WebhookReceiver receiver = new WebhookReceiver()) {
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(app.baseUri().resolve("/api/v1/payments"))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("""
                    {"paymentType":"DEPOSIT","amount":2,"currency":"EUR","webhookUrl":"%s",
                     "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}"""
                    .formatted(receiver.url("/after-outage"))))
                .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            String id = TestGateway.JSON.readTree(created.body()).at("/result/id").asText();
            HttpResponse<String> completed = http.send(HttpRequest.newBuilder(app.baseUri().resolve("/api/v1/payments/" + id))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"203.0.113.1\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(completed.body()).contains("\"state\":\"COMPLETED\"");
            assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(15)))
                .as("the payment's webhook arrives after the outage").isTrue();
          }
        }
      }
    }
  }
}
