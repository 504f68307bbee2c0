package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A service process killed with SIGKILL in the middle of a burst of creates and state changes:
 * after a restart nothing confirmed is missing and nothing is half-written.
 */
class CrashTest {

  static final String CARD = "\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";

  /** Answers of the burst that differ from the OpenAPI documents (the workers cannot fail the test themselves). */
  static final List<String> CONTRACT_PROBLEMS = new CopyOnWriteArrayList<>();

  static HttpResponse<String> post(HttpClient http, URI base, String key, String path, String body) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(java.time.Duration.ofSeconds(10))
        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
        .method(path.startsWith("/api/v1/payments/") && !path.contains("/capture") ? "PATCH" : "POST",
            HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
    CONTRACT_PROBLEMS.addAll(OpenApiContract.INSTANCE.problems(r));
    return r;
  }

  static String id(HttpResponse<String> r) throws Exception {
    return TestGateway.JSON.readTree(r.body()).at("/result/id").asText();
  }

  @Test
  void a_killed_instance_loses_nothing_it_confirmed_and_leaves_nothing_half_written() throws Exception {
    Database db = TestDatabase.fresh();
    String key;
    try (Tollgate setup = Tollgate.start(TollgateConfig.from(WebhookReliabilityTest.instanceEnv(Map.of())), db)) {
      var merchant = setup.services().shops().createMerchant("Crash Merchant");
      var shop = setup.services().shops().createShop(new io.tollgate.application.port.in.ProvisioningUseCase
          .CreateShopCommand(merchant, "Crash Shop", "http://127.0.0.1:9/unreachable", null, null, false, false, "EUR"));
      key = setup.services().shops().issueKeys(shop, setup.services().environment()).apiKey();
    }
    List<String> confirmed = new CopyOnWriteArrayList<>();
    Process child = WebhookReliabilityTest.startChild(WebhookReliabilityTest.instanceEnv(Map.of(
        "TOLLGATE_DB_URL", db.jdbcUrl(), "TOLLGATE_DB_USER", TestDatabase.user(),
        "TOLLGATE_DB_PASSWORD", TestDatabase.password(), "TOLLGATE_JOB_INTERVAL", "PT0.05S")));
    try {
      URI base = URI.create("http://127.0.0.1:" + WebhookReliabilityTest.awaitPort(child));
      HttpClient http = HttpClient.newHttpClient();
      AtomicBoolean alive = new AtomicBoolean(true);
      ExecutorService pool = Executors.newFixedThreadPool(6);
      for (int t = 0; t < 6; t++) {
        int flavour = t;
        pool.execute(() -> {
          while (alive.get()) {
            try {
              switch (flavour % 3) {
                case 0 -> { // a deposit paid host-to-host, then partly refunded
                  var created = post(http, base, key, "/api/v1/payments",
                      "{\"paymentType\":\"DEPOSIT\",\"amount\":20,\"currency\":\"EUR\"," + CARD + "}");
                  if (created.statusCode() != 200) {
                    continue;
                  }
                  confirmed.add(id(created));
                  var paid = post(http, base, key, "/api/v1/payments/" + id(created), "{\"customerIp\":\"203.0.113.8\"}");
                  if (paid.statusCode() == 200) {
                    var refund = post(http, base, key, "/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":5,"
                        + "\"currency\":\"EUR\",\"parentPaymentId\":\"" + id(created) + "\"}");
                    if (refund.statusCode() == 200) {
                      confirmed.add(id(refund));
                    }
                  }
                }
                case 1 -> { // a pre-authorization, then captured
                  var created = post(http, base, key, "/api/v1/payments",
                      "{\"paymentType\":\"DEPOSIT\",\"amount\":8,\"currency\":\"EUR\",\"preAuth\":true," + CARD + "}");
                  if (created.statusCode() != 200) {
                    continue;
                  }
                  confirmed.add(id(created));
                  if (post(http, base, key, "/api/v1/payments/" + id(created), "{\"customerIp\":\"203.0.113.8\"}")
                      .statusCode() == 200) {
                    post(http, base, key, "/api/v1/payments/" + id(created) + "/capture", "{}");
                  }
                }
                default -> { // withdrawals, paid out by the worker
                  var created = post(http, base, key, "/api/v1/payments",
                      "{\"paymentType\":\"WITHDRAWAL\",\"amount\":1,\"currency\":\"EUR\"," + CARD + "}");
                  if (created.statusCode() == 200) {
                    confirmed.add(id(created));
                  }
                }
              }
            } catch (Exception e) {
              // the instance is gone
            }
          }
        });
      }
      WebhookReceiver.await(() -> confirmed.size() >= 120, java.time.Duration.ofSeconds(60));
      child.destroyForcibly(); // SIGKILL mid-burst
      child.waitFor(10, TimeUnit.SECONDS);
      alive.set(false);
      pool.shutdown();
      pool.awaitTermination(30, TimeUnit.SECONDS);
    } finally {
      child.destroyForcibly();
    }
    assertThat(confirmed.size()).isGreaterThanOrEqualTo(120);

    try (Tollgate restarted = Tollgate.start(TollgateConfig.from(WebhookReliabilityTest.instanceEnv(Map.of())), db)) {
      // the worker pays out what the kill left pending, the payouts it was paying among them (their
      // terminal call and its record were one transaction, rolled back): none stays with its money held
      assertThat(WebhookReceiver.await(() -> WebhookReliabilityTest.count(db,
          "SELECT count(*) FROM payments WHERE payment_type IN ('WITHDRAWAL','REFUND') AND state = 'PENDING'") == 0,
          java.time.Duration.ofSeconds(60))).as("withdrawals and refunds still pending after the restart").isTrue();
    }
    try {
      for (String id : confirmed) {
        assertThat(WebhookReliabilityTest.count(db, "SELECT count(*) FROM payments WHERE id = '" + id + "'"))
            .as("confirmed payment " + id).isEqualTo(1);
      }
      assertThat(WebhookReliabilityTest.count(db, """
          SELECT count(*) FROM payments p WHERE state IN ('COMPLETED','DECLINED','CANCELLED','AUTHORIZED')
            AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.payment_id = p.id AND e.payment_state = p.state)
          """)).as("final states without their webhook event").isZero();
      assertThat(WebhookReliabilityTest.count(db, """
          SELECT count(*) FROM payments p WHERE p.state <> (SELECT o.payment_state FROM payment_operations o
            WHERE o.payment_id = p.id ORDER BY o.id DESC LIMIT 1)
             OR NOT EXISTS (SELECT 1 FROM payment_operations o WHERE o.payment_id = p.id AND o.operation = 'CREATE_PAYMENT')
          """)).as("payments whose operations disagree with their state").isZero();
      assertThat(WebhookReliabilityTest.count(db, """
          SELECT count(*) FROM (SELECT shop_id, currency, sum(available) AS available, sum(reserved) AS reserved
              FROM balances GROUP BY shop_id, currency) b
          WHERE b.available <> (SELECT coalesce(sum(available), 0) FROM ledger_entries l
              WHERE l.shop_id = b.shop_id AND l.currency = b.currency)
            OR b.reserved <> (SELECT coalesce(sum(reserved), 0) FROM ledger_entries l
              WHERE l.shop_id = b.shop_id AND l.currency = b.currency)
          """)).as("balances that differ from their ledger").isZero();
      assertThat(WebhookReliabilityTest.count(db, """
          SELECT count(*) FROM payments p WHERE p.payment_type = 'DEPOSIT' AND p.state = 'COMPLETED'
            AND (SELECT count(*) FROM ledger_entries l WHERE l.payment_id = p.id) <> 1
          """)).as("completed deposits without exactly one ledger entry").isZero();
      assertThat(WebhookReliabilityTest.count(db, """
          SELECT count(*) FROM payments p WHERE p.payment_type IN ('WITHDRAWAL','REFUND')
            AND NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.payment_id = p.id AND l.reason LIKE 'reserved%')
          """)).as("payouts without their reservation").isZero();
      assertThat(WebhookReliabilityTest.count(db, """
          SELECT count(*) FROM (SELECT 1 FROM ledger_entries GROUP BY shop_id, currency HAVING sum(reserved) <> 0) r
          """)).as("balances with money still reserved once every payout is settled").isZero();
      assertThat(CONTRACT_PROBLEMS).as("answers that differ from the OpenAPI documents").isEmpty();
    } finally {
      db.close();
    }
  }
}
