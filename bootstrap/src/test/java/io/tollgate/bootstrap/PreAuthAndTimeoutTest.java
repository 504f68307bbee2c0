package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PreAuthAndTimeoutTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static String authorized(String amount) {
    String id = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", amount, true);
    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}");
    assertThat(a.json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
    return id;
  }

  /** A deposit of the shop whose key is given, created with a card for host-to-host. */
  private static String cardDeposit(String key, String amount, String card) {
    return gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":" + amount + ",\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"" + card + "\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}", key, null)
        .json().at("/result/id").asText();
  }

  /** The host-to-host PATCH of a deposit of the shop whose key is given. */
  private static Answer execute(String id, String key) {
    return gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + id))
        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
        .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"203.0.113.7\"}")));
  }

  @Test
  void a_pre_auth_is_captured_in_full() {
    String id = authorized("50.00");
    Answer c = gw.post("/api/v1/payments/" + id + "/capture", "");
    assertThat(c.status()).as(c.body()).isEqualTo(200);
    assertThat(c.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(c.json().at("/result/amount").decimalValue()).isEqualByComparingTo("50.00");
  }

  /**
   * A capture's and a void's bodies are optional; a client generated from the API's description
   * sends the JSON {@code null} for a body it was given no value for, which was refused as "not
   * a JSON object".
   */
  @Test
  void a_json_null_body_is_no_body() {
    String captured = authorized("12.00");
    Answer c = gw.post("/api/v1/payments/" + captured + "/capture", " null ");
    assertThat(c.status()).as(c.body()).isEqualTo(200);
    assertThat(c.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(c.json().at("/result/amount").decimalValue()).isEqualByComparingTo("12.00");

    String voided = authorized("3.00");
    Answer v = gw.post("/api/v1/payments/" + voided + "/void", "null");
    assertThat(v.status()).as(v.body()).isEqualTo(200);
    assertThat(v.json().at("/result/state").asText()).isEqualTo("CANCELLED");
  }

  /**
   * Void and approve have no body in the reference: a PHP client sends {@code json_encode([])},
   * {@code []}, and others send {@code {}} as a form, which were a 400 and a 415 that left the
   * payment as it was. A retry with its key and another such body is the same request.
   */
  @Test
  void a_void_or_an_approval_is_done_whatever_body_a_client_sends_with_it() {
    String id = authorized("3.00");
    String path = "/api/v1/payments/" + id + "/void";
    Answer v = gw.post(path, "[]", gw.apiKey, "void-array-" + id);
    assertThat(v.status()).as(v.body()).isEqualTo(200);
    assertThat(v.json().at("/result/state").asText()).isEqualTo("CANCELLED");
    Answer again = formPost(path, gw.apiKey, "void-array-" + id);
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");

    ShopId approving = gw.createShop(gw.merchant, "Approving body shop", true);
    String key = gw.issueKey(approving, Environment.SANDBOX);
    Answer waiting = gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":5,\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"4000000000000408\"}}", key, null);
    assertThat(waiting.json().at("/result/state").asText()).isEqualTo("AWAITING_APPROVAL");
    Answer approved = formPost("/api/v1/payments/" + waiting.json().at("/result/id").asText() + "/approve", key, null);
    assertThat(approved.status()).as(approved.body()).isEqualTo(200);
    assertThat(approved.json().at("/result/state").asText()).isEqualTo("PENDING");
  }

  /** A POST of {@code {}} as a form, as some HTTP clients send any body by default. */
  private static Answer formPost(String path, String key, String idempotencyKey) {
    java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(gw.uri(path))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
        .header("Content-Type", "application/x-www-form-urlencoded").header("Authorization", "Bearer " + key);
    if (idempotencyKey != null) {
      b.header("Idempotency-Key", idempotencyKey);
    }
    return gw.send(b);
  }

  @Test
  void a_capture_retried_with_its_idempotency_key_captures_once_and_says_it_is_a_replay() {
    String id = authorized("40.00");
    String path = "/api/v1/payments/" + id + "/capture";
    Answer first = gw.post(path, "{\"amount\":15.00}", gw.apiKey, "capture-" + id);
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.header("Idempotent-Replayed")).isNull();
    Answer again = gw.post(path, "{\"amount\": 15.00}", gw.apiKey, "capture-" + id);
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(again.json().at("/result/amount").decimalValue()).isEqualByComparingTo("15.00");
    long captures = gw.get("/api/v1/payments/" + id + "/operations").json().get("result").findValuesAsText("operation")
        .stream().filter("CAPTURE"::equals).count();
    assertThat(captures).isEqualTo(1);

    Answer otherBody = gw.post(path, "{\"amount\":10.00}", gw.apiKey, "capture-" + id);
    assertThat(otherBody.status()).isEqualTo(409);
    assertThat(gw.post(path, "", gw.apiKey, "x".repeat(256)).status()).isEqualTo(400);

    String other = authorized("5.00");
    assertThat(gw.post("/api/v1/payments/" + other + "/void", "", gw.apiKey, "capture-" + id).status())
        .as("a key names one request, whichever payment it acts on").isEqualTo(409);
    assertThat(gw.post("/api/v1/payments/" + other + "/void", "{\"garbage", gw.apiKey, null).status()).isEqualTo(400);
    assertThat(gw.get("/api/v1/payments/" + other).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
    Answer voided = gw.post("/api/v1/payments/" + other + "/void", "", gw.apiKey, "void-" + other);
    Answer voidedAgain = gw.post("/api/v1/payments/" + other + "/void", "", gw.apiKey, "void-" + other);
    assertThat(voided.json().at("/result/state").asText()).isEqualTo("CANCELLED");
    assertThat(voidedAgain.status()).isEqualTo(200);
    assertThat(voidedAgain.header("Idempotent-Replayed")).isEqualTo("true");
  }

  @Test
  void a_partial_capture_takes_the_captured_amount_and_more_than_authorized_is_refused() {
    String id = authorized("50.00");
    Answer over = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":50.01}");
    assertThat(over.status()).isEqualTo(400);
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
    assertThat(gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":1.001}").status()).isEqualTo(400);

    Answer part = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":20.00}");
    assertThat(part.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(part.json().at("/result/amount").decimalValue()).isEqualByComparingTo("20.00");
    assertThat(gw.post("/api/v1/payments/" + id + "/capture", "").status()).isEqualTo(409);
  }

  /**
   * A capture is held to a payment's least amount, 0.00001, as every refund is: a bitcoin
   * pre-authorization captured at 0.000001 BTC was COMPLETED, and no refund in bitcoin could give
   * it back (one of 0.000001 is below the least, one of 0.00001 more than was paid).
   */
  @Test
  void a_capture_below_the_least_amount_is_refused_and_the_pre_auth_stays() {
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":1,"currency":"BTC","preAuth":true,
         "card":{"cardNumber":"4000000000000408","cardholderName":"ANN LEE","cardSecurityCode":"123",
                 "expiryMonth":"12","expiryYear":"2045"}}""");
    String id = created.json().at("/result/id").asText();
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}").json()
        .at("/result/state").asText()).isEqualTo("AUTHORIZED");

    Answer tiny = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":0.000001}");
    assertThat(tiny.status()).as(tiny.body()).isEqualTo(400);
    assertThat(tiny.json().get("errors").findValuesAsText("field")).containsExactly("amount");
    assertThat(tiny.body()).contains("at least 0.00001");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");

    Answer least = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":0.00001}");
    assertThat(least.json().at("/result/state").asText()).as(least.body()).isEqualTo("COMPLETED");
    assertThat(least.json().at("/result/amount").decimalValue()).isEqualByComparingTo("0.00001");
  }

  /** Every violation at once (CONTRACT section 0): a capture in another currency of a negative amount is both. */
  @Test
  void a_capture_wrong_in_currency_and_amount_lists_both() {
    String id = authorized("30.00");
    Answer both = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":-1,\"currency\":\"USD\"}");
    assertThat(both.status()).isEqualTo(400);
    assertThat(both.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("currency", "amount");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
  }

  @Test
  void a_void_cancels_the_pre_auth() {
    String id = authorized("5.00");
    Answer v = gw.post("/api/v1/payments/" + id + "/void", "");
    assertThat(v.json().at("/result/state").asText()).isEqualTo("CANCELLED");
    assertThat(gw.post("/api/v1/payments/" + id + "/capture", "").json().get("message").asText())
        .isEqualTo("1.00 Illegal Workflow State");
  }

  /**
   * A capture of a card verification is refused as any capture is: one of more than the authorized
   * 0.00 EUR is a 400, and one of the whole, nothing, the 409 of an action the payment's state does
   * not allow. It answered a 409 with a message of its own to both, a code a client looks for.
   */
  @Test
  void a_zero_amount_pre_auth_verifies_the_card_and_is_voided_not_captured() {
    String id = authorized("0");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");

    Answer capture = gw.post("/api/v1/payments/" + id + "/capture", "");
    assertThat(capture.status()).as(capture.body()).isEqualTo(409);
    assertThat(capture.json().get("message").asText()).startsWith("1.00 Illegal Workflow State")
        .contains("void it instead");
    Answer some = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":1.00}");
    assertThat(some.status()).as(some.body()).isEqualTo(400);
    assertThat(some.json().at("/errors/0/field").asText()).isEqualTo("amount");
    assertThat(some.json().at("/errors/0/message").asText()).isEqualTo("must not exceed the authorized 0.00 EUR");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
    assertThat(gw.post("/api/v1/payments/" + id + "/void", "").json().at("/result/state").asText())
        .isEqualTo("CANCELLED");
  }

  @Test
  void concurrent_capture_and_void_of_one_pre_auth_let_exactly_one_win() throws Exception {
    for (int round = 0; round < 5; round++) {
      String id = authorized("9.00");
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<Integer>> results = new ArrayList<>();
      for (String action : List.of("capture", "void", "capture", "void")) {
        results.add(CompletableFuture.supplyAsync(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return gw.post("/api/v1/payments/" + id + "/" + action, "").status();
        }));
      }
      go.countDown();
      List<Integer> statuses = new ArrayList<>();
      for (CompletableFuture<Integer> f : results) {
        statuses.add(f.get());
      }
      assertThat(statuses).filteredOn(s -> s == 200).hasSize(1);
      assertThat(statuses).filteredOn(s -> s == 409).hasSize(3);
    }
  }

  @Test
  void capture_and_void_are_refused_for_another_shops_payment() {
    String id = authorized("3.00");
    ShopId other = gw.createShop(gw.merchant, "Nosy", false);
    String key = gw.issueKey(other, Environment.SANDBOX);
    assertThat(gw.post("/api/v1/payments/" + id + "/capture", "", key, null).status()).isEqualTo(404);
    assertThat(gw.post("/api/v1/payments/" + id + "/void", "", key, null).status()).isEqualTo(404);
  }

  /**
   * A customer who enters a 3-D Secure card late in the checkout gets the shop's timeout again
   * for the challenge; a challenge left unanswered for that long ends cancelled 1.04. Time goes by
   * as the payment's times are moved back, not waited out: the shop's timeout is a minute.
   */
  @Test
  void a_3ds_challenge_has_the_timeout_from_the_challenge_not_from_the_checkout() throws Exception {
    ShopId shop = gw.createShop(gw.merchant, "A minute", false, false, Duration.ofMinutes(1));
    String key = gw.issueKey(shop, Environment.SANDBOX);
    String id = cardDeposit(key, "1", "4000000000000002");
    backdate(id, "created", Duration.ofSeconds(50));
    Answer challenged = execute(id, key);
    assertThat(challenged.json().at("/result/state").asText()).isEqualTo("PENDING");
    // two minutes after the checkout began, half a minute into the challenge
    backdate(id, "created", Duration.ofSeconds(70));
    backdate(id, "updated", Duration.ofSeconds(30));
    // a checkout of the shop left alone as long, cancelled: the job has looked at both since
    String leftAlone = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}",
        key, null).json().at("/result/id").asText();
    backdate(leftAlone, "created", Duration.ofMinutes(2));
    assertThat(gw.awaitStateOtherThan(leftAlone, "CHECKOUT", Duration.ofSeconds(10), key).get("state").asText())
        .isEqualTo("CANCELLED");
    assertThat(gw.get("/api/v1/payments/" + id, key).json().at("/result/state").asText())
        .as("two minutes after the checkout began, half a minute into the challenge").isEqualTo("PENDING");

    backdate(id, "updated", Duration.ofSeconds(40));
    JsonNode abandoned = gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10), key);
    assertThat(abandoned.get("state").asText()).isEqualTo("CANCELLED");
    assertThat(abandoned.get("errorCode").asText()).isEqualTo("1.04");
  }

  /** Moves one of the payment's times {@code by} into the past, as if that long had gone by since. */
  private static void backdate(String id, String column, Duration by) {
    gw.database.jdbi().useHandle(h -> assertThat(h.createUpdate("UPDATE payments SET " + column + " = " + column
        + " - :seconds * interval '1 second' WHERE id = :id").bind("seconds", by.toSeconds()).bind("id", id)
        .execute()).isEqualTo(1));
  }

  /**
   * A shop made without a checkout timeout of its own has the default 30 minutes: a checkout left
   * alone for 29 minutes is still open, one left alone for 31 ends cancelled 1.04.
   */
  @Test
  void a_shop_without_a_timeout_of_its_own_keeps_a_checkout_open_for_30_minutes() throws Exception {
    ShopId shop = gw.createShop(gw.merchant, "Default timeout", false);
    String key = gw.issueKey(shop, Environment.SANDBOX);
    String body = "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}";
    String open = gw.post("/api/v1/payments", body, key, null).json().at("/result/id").asText();
    String expired = gw.post("/api/v1/payments", body, key, null).json().at("/result/id").asText();
    // in this order: the job that cancels the one has looked at the other since it was moved back
    backdate(open, "created", Duration.ofMinutes(29));
    backdate(expired, "created", Duration.ofMinutes(31));

    JsonNode cancelled = gw.awaitStateOtherThan(expired, "CHECKOUT", Duration.ofSeconds(10), key);
    assertThat(cancelled.get("state").asText()).isEqualTo("CANCELLED");
    assertThat(cancelled.get("errorCode").asText()).isEqualTo("1.04");
    assertThat(gw.get("/api/v1/payments/" + open, key).json().at("/result/state").asText())
        .as("left alone for 29 minutes").isEqualTo("CHECKOUT");
  }

  @Test
  void a_checkout_left_alone_past_the_shops_timeout_ends_cancelled_104() throws Exception {
    ShopId hasty = gw.createShop(gw.merchant, "Hasty", false, false, Duration.ofSeconds(1));
    String key = gw.issueKey(hasty, Environment.SANDBOX);
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}", key, null);
    String id = a.json().at("/result/id").asText();
    String patient = gw.deposit("1", "EUR");

    Thread.sleep(1500);
    var p = gw.get("/api/v1/payments/" + id, key).json().get("result");
    long deadline = System.currentTimeMillis() + 10_000;
    while (p.get("state").asText().equals("CHECKOUT") && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
      p = gw.get("/api/v1/payments/" + id, key).json().get("result");
    }
    assertThat(p.get("state").asText()).isEqualTo("CANCELLED");
    assertThat(p.get("errorCode").asText()).isEqualTo("1.04");
    assertThat(gw.get("/api/v1/payments/" + patient).json().at("/result/state").asText())
        .as("a shop with the default 30 minutes is not touched").isEqualTo("CHECKOUT");
  }

  /**
   * A host-to-host deposit whose request was cut short after its terminal was committed, and
   * before the answer was stored (as the service leaves it when it stops in between): past the
   * checkout timeout, it is not cancelled as a checkout left alone, but taken up by the job for
   * unanswered deposits at its terminal, which charged the card, and completed, with its ledger
   * entry and webhook event. The merchant's execution sent again meanwhile is refused.
   */
  @Test
  void a_deposit_left_unanswered_by_a_request_cut_short_is_completed_by_the_job_not_cancelled() throws Exception {
    // the shop's checkout timeout drops to one second only once the deposit is cut short: the job
    // that cancels checkouts left alone could otherwise take it first on a slow machine
    ShopId hasty = gw.createShop(gw.merchant, "Cut short", false, false, null);
    String key = gw.issueKey(hasty, Environment.SANDBOX);
    String id = cardDeposit(key, "7.25", "4000000000000408");
    // what a request that stopped while the terminal charged leaves committed
    gw.database.jdbi().useTransaction(h -> {
      int cut = h.createUpdate("""
              UPDATE payments SET state = 'PENDING', terminal_name = :terminal, updated = now(), version = version + 1
              WHERE id = :id AND state = 'CHECKOUT'""")
          .bind("id", id).bind("terminal", new io.tollgate.processor.sandbox.SandboxProcessor(java.time.Clock.systemUTC())
              .terminalName()).execute();
      assertThat(cut).isEqualTo(1);
      h.createUpdate("UPDATE shops SET checkout_timeout_seconds = 1 WHERE id = :shop").bind("shop", hasty.value())
          .execute();
      h.createUpdate("""
              INSERT INTO payment_operations (payment_id, shop_id, merchant_id, operation, started, completed,
                  payment_state, details)
              SELECT id, shop_id, merchant_id, 'CHECKOUT', updated, updated, 'PENDING', 'host-to-host from 203.0.113.7'
              FROM payments WHERE id = :id""")
          .bind("id", id).execute();
    });
    Answer again = execute(id, key);
    assertThat(again.status()).isEqualTo(409);
    String page = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/checkout/" + id))).body();
    assertThat(page).contains("being processed").doesNotContain("/3ds").doesNotContain("/cancel")
        .as("a button to look again, no reload to find")
        .contains("<form method=\"get\" action=\"/checkout/" + id + "\">").contains("id=\"check-again\"");
    Thread.sleep(1_500);
    assertThat(gw.get("/api/v1/payments/" + id, key).json().at("/result/state").asText())
        .as("past the checkout timeout, younger than a terminal may take").isEqualTo("PENDING");

    // three minutes on, the terminal's answer is overdue
    gw.database.jdbi().useHandle(h -> h.createUpdate(
        "UPDATE payments SET updated = updated - interval '3 minutes' WHERE id = :id").bind("id", id).execute());
    JsonNode settled = gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10), key);

    assertThat(settled.get("state").asText()).isEqualTo("COMPLETED");
    List<String> ops = new ArrayList<>();
    gw.get("/api/v1/payments/" + id + "/operations", key).json().get("result")
        .forEach(o -> ops.add(o.get("operation").asText() + ":" + o.get("paymentState").asText()));
    assertThat(ops).containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
    assertThat(gw.ledgerSum(hasty, "EUR")[0]).isEqualByComparingTo("7.25");
    long events = gw.database.jdbi().withHandle(h -> h.createQuery(
        "SELECT count(*) FROM webhook_events WHERE payment_id = :id AND payment_state = 'COMPLETED'")
        .bind("id", id).mapTo(Long.class).one());
    assertThat(events).isEqualTo(1);
  }
}
