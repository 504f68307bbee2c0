package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A customer's answer on the checkout page, or a host-to-host execution, after the shop's
 * checkout timeout is refused as the expiry job would refuse it (cancelled 1.04), not charged,
 * also while the job is late: it runs after the payouts on one thread, and slow terminals can
 * hold it up for minutes. Here it runs once an hour.
 */
class LateCheckoutAnswerTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of("TOLLGATE_JOB_INTERVAL", "PT1H"));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** The API key of a new shop whose checkout timeout is {@code timeout}. */
  private static String shopKey(String name, Duration timeout) {
    ShopId shop = gw.createShop(gw.merchant, name, false, false, timeout);
    return gw.issueKey(shop, Environment.SANDBOX);
  }

  private static String deposit(String key, String extra) {
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":4.00,\"currency\":\"EUR\""
        + extra + "}", key, null);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  private static final String CARD_ON_FILE =
      ",\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";

  private static String csrf(String id) {
    String page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(m.find()).as(page).isTrue();
    return "csrf=" + URLEncoder.encode(m.group(1), StandardCharsets.UTF_8);
  }

  private static Answer form(String path, String body) {
    return gw.send(HttpRequest.newBuilder(gw.uri(path)).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static String card(String number) {
    return "&cardNumber=" + number + "&cardholderName=Ann+Lee&expiryMonth=12&expiryYear=2045&cardSecurityCode=123";
  }

  private static JsonNode payment(String id, String key) {
    return gw.get("/api/v1/payments/" + id, key).json().get("result");
  }

  private static void assertCancelledByTimeoutWithoutCharge(String id, String key) {
    assertCancelledByTimeout(id, key);
    assertThat(operations(id, key)).as("never sent to a terminal").doesNotContain("DEPOSIT");
  }

  private static void assertCancelledByTimeout(String id, String key) {
    JsonNode p = payment(id, key);
    assertThat(p.get("state").asText()).isEqualTo("CANCELLED");
    assertThat(p.get("errorCode").asText()).isEqualTo("1.04");
  }

  private static java.util.List<String> operations(String id, String key) {
    return gw.get("/api/v1/payments/" + id + "/operations", key).json().get("result").findValuesAsText("operation");
  }

  @Test
  void a_card_entered_after_the_timeout_is_not_charged() throws Exception {
    String key = shopKey("One second", Duration.ofSeconds(1));
    String id = deposit(key, "");
    String token = csrf(id);
    Thread.sleep(1_500);

    Answer late = form("/checkout/" + id, token + card("4000000000000408"));

    assertThat(late.status()).isEqualTo(303);
    assertCancelledByTimeoutWithoutCharge(id, key);
    // the customer did not cancel: the page says the time ran out
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body())
        .contains("The time to pay ran out, so the payment was cancelled.")
        .doesNotContain("Your payment was cancelled.");
  }

  @Test
  void a_deposit_whose_card_came_with_it_sent_on_after_the_timeout_is_not_charged() throws Exception {
    String key = shopKey("One second, card on file", Duration.ofSeconds(1));
    String id = deposit(key, CARD_ON_FILE);
    // the page, opened in time, charges nothing; its form, which sends the card on, is sent late
    String token = csrf(id);
    Thread.sleep(1_500);

    assertThat(form("/checkout/" + id + "/process", token).status()).isEqualTo(303);
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).status()).isEqualTo(200);

    assertCancelledByTimeoutWithoutCharge(id, key);
  }

  @Test
  void a_page_opened_after_the_timeout_says_cancelled_instead_of_asking_for_a_card() throws Exception {
    String key = shopKey("One second, opened late", Duration.ofSeconds(1));
    String id = deposit(key, "");
    Thread.sleep(1_500);

    Answer page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET());

    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body()).contains("The time to pay ran out").doesNotContain("name=\"cardNumber\"");
    assertCancelledByTimeoutWithoutCharge(id, key);
  }

  @Test
  void a_3ds_challenge_answered_after_the_timeout_is_not_charged() throws Exception {
    // the card goes in at once; the challenge then has the shop's timeout again, from the challenge
    String key = shopKey("Four seconds", Duration.ofSeconds(4));
    String id = deposit(key, "");
    String token = csrf(id);
    assertThat(form("/checkout/" + id, token + card("4000000000000002")).status()).isEqualTo(303);
    assertThat(payment(id, key).get("state").asText()).as("waiting on the challenge").isEqualTo("PENDING");
    Thread.sleep(4_500);

    Answer late = form("/checkout/" + id + "/3ds", token + "&result=pass");

    assertThat(late.status()).isEqualTo(303);
    assertCancelledByTimeout(id, key);
    assertThat(operations(id, key)).as("the answer never went to the terminal").doesNotContain("CONFIRMATION");
  }

  @Test
  void a_bank_transfer_chosen_after_the_timeout_is_not_opened() throws Exception {
    String key = shopKey("One second, by transfer", Duration.ofSeconds(1));
    String id = deposit(key, ",\"paymentMethod\":\"BANKTRANSFER\"");
    String token = csrf(id);
    Thread.sleep(1_500);

    assertThat(form("/checkout/" + id + "/bank-transfer", token).status()).isEqualTo(303);

    assertCancelledByTimeoutWithoutCharge(id, key);
    assertThat(payment(id, key).has("externalRefs")).as("no account to pay to was given").isFalse();
  }

  /**
   * Cancel pressed after the timeout finds the checkout already over by its time, as the expiry
   * job would have left it: cancelled 1.04, and the page says the time ran out. It used to be
   * recorded as the customer's own cancel (2.00), which the merchant was told instead.
   */
  @Test
  void cancel_pressed_after_the_timeout_records_the_timeout() throws Exception {
    // three seconds: time to open the page and its form, however slow the machine
    String key = shopKey("Three seconds, cancelled late", Duration.ofSeconds(3));
    String id = deposit(key, "");
    String token = csrf(id);
    Thread.sleep(3_500);

    assertThat(form("/checkout/" + id + "/cancel", token).status()).isEqualTo(303);

    assertCancelledByTimeoutWithoutCharge(id, key);
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body())
        .contains("The time to pay ran out, so the payment was cancelled.")
        .doesNotContain("Your payment was cancelled.");
  }

  @Test
  void a_host_to_host_execution_after_the_timeout_is_not_charged() throws Exception {
    String key = shopKey("One second, host to host", Duration.ofSeconds(1));
    String id = deposit(key, CARD_ON_FILE);
    Thread.sleep(1_500);

    Answer late = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}", key);

    // as when the expiry job has run first: the deposit is no longer in CHECKOUT
    assertThat(late.status()).as(late.body()).isEqualTo(409);
    assertThat(late.json().get("message").asText()).isEqualTo("1.00 Illegal Workflow State");
    assertCancelledByTimeoutWithoutCharge(id, key);
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}", key).status())
        .as("and again").isEqualTo(409);
  }

  @Test
  void a_host_to_host_execution_within_the_timeout_goes_through() {
    String key = shopKey("A minute, host to host", Duration.ofMinutes(1));
    String id = deposit(key, CARD_ON_FILE);

    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}", key);

    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  @Test
  void an_answer_within_the_timeout_goes_through() {
    String key = shopKey("A minute", Duration.ofMinutes(1));
    String id = deposit(key, "");

    assertThat(form("/checkout/" + id, csrf(id) + card("4000000000000408")).status()).isEqualTo(303);

    assertThat(payment(id, key).get("state").asText()).isEqualTo("COMPLETED");
  }
}
