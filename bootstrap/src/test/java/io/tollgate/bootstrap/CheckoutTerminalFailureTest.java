package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.payment.PaymentId;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A form on the checkout page whose terminal call fails with an error instead of an answer (a
 * dropped connection, a processor that throws) after the payment was committed as sent: the
 * customer, who has just typed their card, is taken to the payment's page as after any form, and
 * reads there that the payment is being processed. It used to be a raw JSON error envelope (500)
 * in their browser, and no page of the payment at all.
 */
class CheckoutTerminalFailureTest {

  /** The payments whose every terminal call fails, as the test names them. */
  static final Set<String> FAILING = ConcurrentHashMap.newKeySet();

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    // the job that asks a terminal again after two minutes stays out of the way
    gw = TestGateway.start(Map.of("TOLLGATE_JOB_INTERVAL", "PT1H"), sandbox -> UnansweringTerminal.around(sandbox,
        (method, args) -> args != null && args.length > 0 && FAILING.contains(paymentOf(args[0]))));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static String paymentOf(Object firstArgument) {
    if (firstArgument instanceof PaymentProcessor.CardCharge charge) {
      return charge.payment().value();
    }
    return firstArgument instanceof PaymentId id ? id.value() : null;
  }

  private static Answer form(String id, String action, String body) {
    String csrf = "csrf=" + URLEncoder.encode(gw.checkoutCsrf(id), StandardCharsets.UTF_8);
    return gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id + action))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(csrf + body)));
  }

  private static String card(String number) {
    return "&cardNumber=" + number + "&cardholderName=Ann+Lee&expiryMonth=12&expiryYear=2045&cardSecurityCode=123";
  }

  /** The page the form's redirect names, as the browser opens it: HTML, saying where the payment stands. */
  private static Answer followed(String id, Answer posted) {
    assertThat(posted.status()).as(posted.body()).isEqualTo(303);
    assertThat(posted.header("Location")).isEqualTo("/checkout/" + id);
    Answer page = gw.send(HttpRequest.newBuilder(gw.uri(posted.header("Location"))).GET());
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Type")).startsWith("text/html");
    return page;
  }

  private static String state(String id) {
    return gw.get("/api/v1/payments/" + id).json().at("/result/state").asText();
  }

  @Test
  void a_card_whose_terminal_call_fails_shows_the_page_saying_it_is_being_processed() {
    String id = gw.deposit("6.60", "EUR");
    FAILING.add(id);

    Answer posted = form(id, "", card("4000000000000408"));

    assertThat(posted.header("Set-Cookie")).as("the result, once known, takes the customer back")
        .startsWith("tollgate_returning=1").contains("Max-Age=1800");
    assertThat(followed(id, posted).body()).contains("Your card payment is being processed.")
        .doesNotContain("name=\"cardNumber\"");
    assertThat(state(id)).isEqualTo("PENDING");
  }

  @Test
  void a_card_that_came_with_the_payment_whose_terminal_call_fails_shows_the_page_saying_it_is_being_processed() {
    String id = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":6.61,\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}")
        .json().at("/result/id").asText();
    FAILING.add(id);

    assertThat(followed(id, form(id, "/process", "")).body()).contains("Your card payment is being processed.");
    assertThat(state(id)).isEqualTo("PENDING");
  }

  @Test
  void a_3ds_answer_whose_terminal_call_fails_shows_the_page_saying_it_is_being_processed() {
    String id = gw.deposit("6.62", "EUR");
    assertThat(followed(id, form(id, "", card("4000000000000002"))).body()).contains("id=\"authenticate\"");
    FAILING.add(id);

    Answer posted = form(id, "/3ds", "&result=pass");

    assertThat(followed(id, posted).body()).contains("Your card payment is being processed.")
        .doesNotContain("id=\"authenticate\"");
    assertThat(state(id)).isEqualTo("PENDING");
  }

  @Test
  void a_bank_transfer_whose_terminal_call_fails_shows_the_page_again_to_choose_it() {
    String id = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":6.63,\"currency\":\"EUR\","
        + "\"paymentMethod\":\"BANKTRANSFER\"}").json().at("/result/id").asText();
    FAILING.add(id);

    Answer posted = form(id, "/bank-transfer", "");

    // nothing was opened: the customer may try again
    assertThat(followed(id, posted).body()).contains("action=\"/checkout/" + id + "/bank-transfer\"");
    assertThat(state(id)).isEqualTo("CHECKOUT");
  }
}
