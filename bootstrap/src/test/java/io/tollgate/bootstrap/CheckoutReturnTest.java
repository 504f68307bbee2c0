package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.CookieManager;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * When the checkout page takes the customer back to the merchant by itself: on the first view of
 * the result after a page of the payment in flight or a form of theirs (a cookie marks it), and
 * not when a form finds the payment long finished (a stale tab). The browser's side of it is in
 * {@link CheckoutPageBrowserTest}; here, the marks each answer sets.
 */
class CheckoutReturnTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    // bank transfers stay PENDING for the whole test
    gw = TestGateway.start(Map.of("TOLLGATE_SANDBOX_BANK_DELAY", "PT1H"));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void looking_for_a_transfer_not_yet_arrived_says_so_and_keeps_the_customer_marked() {
    String id = deposit("\"paymentMethod\":\"BANKTRANSFER\"");
    String csrf = csrf(id);
    assertThat(post(id, "/bank-transfer", csrf).status()).isEqualTo(303);
    TestGateway.Answer details = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET());
    assertThat(details.body()).contains("id=\"check-again\"").doesNotContain("id=\"not-yet\"");

    TestGateway.Answer looked = post(id, "/check", csrf);
    assertThat(looked.status()).isEqualTo(303);
    assertThat(looked.header("Location")).isEqualTo("/checkout/" + id + "?looked=1");
    assertThat(looked.header("Set-Cookie")).startsWith("tollgate_returning=1").contains("Max-Age=1800")
        .contains("Path=/checkout/" + id);
    TestGateway.Answer page = gw.send(HttpRequest.newBuilder(gw.uri(looked.header("Location"))).GET());
    // the answer takes the focus: it is what a screen reader reads first, not the page's top
    assertThat(page.body())
        .contains("<p class=\"description\" id=\"not-yet\" role=\"status\" tabindex=\"-1\" autofocus>")
        .contains("has not arrived yet");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("PENDING");
  }

  @Test
  void a_form_that_finds_the_payment_long_finished_takes_the_customer_nowhere() {
    String id = deposit("\"returnUrl\":\"https://shop.example/thanks\"");
    String csrf = csrf(id);
    TestGateway.Answer paid = post(id, "", csrf, CARD);
    assertThat(paid.header("Set-Cookie")).contains("Max-Age=1800");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("COMPLETED");

    // a second press of the button, moments later, goes on as the first did
    assertThat(post(id, "", csrf, CARD).header("Set-Cookie")).contains("Max-Age=1800");

    // a Cancel from a tab left open a minute: the payment stays as it is, and the mark goes
    gw.database.jdbi().useHandle(h -> h.createUpdate("UPDATE payments SET updated = updated - interval '1 minute' "
        + "WHERE id = :id").bind("id", id).execute());
    TestGateway.Answer stale = post(id, "/cancel", csrf);
    assertThat(stale.status()).isEqualTo(303);
    assertThat(stale.header("Set-Cookie")).startsWith("tollgate_returning=").contains("Max-Age=0");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("COMPLETED");

    String unmarked = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    assertThat(unmarked).contains("id=\"return\"").doesNotContain("http-equiv=\"refresh\"");
    TestGateway.Answer marked = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Cookie", "tollgate_returning=1").GET());
    assertThat(marked.body()).contains("http-equiv=\"refresh\" content=\"0; url=https://shop.example/thanks\"");
    assertThat(marked.header("Set-Cookie")).as("used up").contains("Max-Age=0");
  }

  /**
   * Cancel pressed in a tab left open, moments after the payment was made in another: the
   * customer stays on the result and its link. It used to count as a second press of the button
   * that made the payment (any form within 5 seconds of its last change did), and took them to
   * the merchant's page for a payment made.
   */
  @Test
  void a_cancel_from_another_tab_moments_after_the_payment_takes_the_customer_nowhere() throws Exception {
    String id = deposit("\"returnUrl\":\"https://shop.example/thanks\"");
    HttpClient browser = browser();
    String csrf = csrf(browser, id);
    HttpResponse<String> paid = submit(browser, id, "", csrf, CARD);
    assertThat(paid.body()).as("the payment takes the customer back")
        .contains("http-equiv=\"refresh\" content=\"0; url=https://shop.example/thanks\"");

    HttpResponse<String> cancel = submit(browser, id, "/cancel", csrf, "");

    assertThat(cancel.previousResponse().orElseThrow().headers().firstValue("Set-Cookie")).get().asString()
        .startsWith("tollgate_returning=").contains("Max-Age=0");
    assertThat(cancel.body()).contains("Thank you: your payment is complete.").contains("id=\"return\"")
        .doesNotContain("http-equiv=\"refresh\"");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  /**
   * Cancel pressed twice: the customer is taken back from either press, and the payment is
   * cancelled once, by the customer (2.00), with one CANCEL and one webhook to tell the shop.
   */
  @Test
  void cancel_pressed_twice_takes_the_customer_back_from_either_press() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      String id = deposit("\"returnUrl\":\"https://shop.example/thanks\",\"webhookUrl\":\""
          + receiver.url("/cancelled") + "\"");
      HttpClient browser = browser();
      String csrf = csrf(browser, id);
      submit(browser, id, "/cancel", csrf, "");

      HttpResponse<String> again = submit(browser, id, "/cancel", csrf, "");

      assertThat(again.body()).contains("Your payment was cancelled.")
          .contains("http-equiv=\"refresh\" content=\"0; url=https://shop.example/thanks\"");
      JsonNode payment = gw.get("/api/v1/payments/" + id).json().get("result");
      assertThat(payment.get("state").asText()).isEqualTo("CANCELLED");
      assertThat(payment.get("errorCode").asText()).isEqualTo("2.00");
      List<String> operations = new ArrayList<>();
      gw.get("/api/v1/payments/" + id + "/operations").json().get("result")
          .forEach(o -> operations.add(o.get("operation").asText()));
      assertThat(operations).filteredOn("CANCEL"::equals).hasSize(1);
      // each event is written to the outbox with the step that made it: this one, delivered, is all there is
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1
          && webhookEvents(id).equals(List.of("CANCELLED DELIVERED")), Duration.ofSeconds(10)))
          .as("the webhook events: %s", webhookEvents(id)).isTrue();
      JsonNode sent = TestGateway.JSON.readTree(receiver.receivedFor(id).get(0).body());
      assertThat(sent.get("state").asText()).isEqualTo("CANCELLED");
      assertThat(sent.get("errorCode").asText()).isEqualTo("2.00");
      assertThat(receiver.receivedFor(id)).hasSize(1);
    }
  }

  /**
   * The bank details asked for again from a tab left open on the choice of a transfer, after the
   * transfer arrived: the customer stays on the result and its link. The form's conflict used to
   * be answered with the page alone, and the mark the page set when it was opened took the
   * customer on to the merchant.
   */
  @Test
  void a_transfer_form_from_a_tab_left_open_after_the_transfer_arrived_takes_the_customer_nowhere()
      throws Exception {
    String id = deposit("\"paymentMethod\":\"BANKTRANSFER\",\"returnUrl\":\"https://shop.example/thanks\"");
    HttpClient browser = browser();
    String csrf = csrf(browser, id);
    assertThat(submit(browser, id, "/bank-transfer", csrf, "").body()).contains("Waiting for your transfer");
    // awaited longer than the sandbox bank's delay: the bank's answer comes at the next round
    gw.database.jdbi().useHandle(h -> h.createUpdate("UPDATE payments SET updated = updated - interval '2 hours' "
        + "WHERE id = :id").bind("id", id).execute());
    assertThat(gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10)).get("state").asText())
        .isEqualTo("COMPLETED");

    HttpResponse<String> stale = submit(browser, id, "/bank-transfer", csrf, "");

    assertThat(stale.previousResponse().orElseThrow().headers().firstValue("Set-Cookie")).get().asString()
        .startsWith("tollgate_returning=").contains("Max-Age=0");
    assertThat(stale.body()).contains("Thank you: your payment is complete.").contains("id=\"return\"")
        .doesNotContain("http-equiv=\"refresh\"");
  }

  /** The payment's webhook events, oldest first: the state each tells of, and its delivery's status. */
  private static List<String> webhookEvents(String id) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(
            "SELECT payment_state || ' ' || status FROM webhook_events WHERE payment_id = :id ORDER BY seq")
        .bind("id", id).mapTo(String.class).list());
  }

  /** A card the sandbox approves at once, as the card form sends it after its token. */
  private static final String CARD = "&cardNumber=4000000000000408&cardholderName=Ann+Lee&expiryMonth=12"
      + "&expiryYear=2045&cardSecurityCode=123";

  /** A browser whose tabs share their cookies and follow a form's redirect, as a browser's do. */
  private static HttpClient browser() {
    return HttpClient.newBuilder().cookieHandler(new CookieManager()).followRedirects(HttpClient.Redirect.NORMAL)
        .build();
  }

  /** The payment's page opened in {@code browser}: the token of its forms. */
  private static String csrf(HttpClient browser, String id) throws Exception {
    HttpResponse<String> page = browser.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page.body());
    assertThat(csrf.find()).as(page.body()).isTrue();
    return csrf.group(1);
  }

  /**
   * A form of the page sent from {@code browser}, its token and its other {@code fields}: the page
   * the browser then shows.
   */
  private static HttpResponse<String> submit(HttpClient browser, String id, String action, String csrf,
      String fields) throws Exception {
    return browser.send(form(id, action, csrf, fields).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String deposit(String extra) {
    TestGateway.Answer a = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":7.50,\"currency\":\"EUR\"," + extra + "}");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  private static String csrf(String id) {
    TestGateway.Answer page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET());
    assertThat(page.header("Set-Cookie")).as("a page of the payment in flight marks the customer")
        .startsWith("tollgate_returning=1");
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page.body());
    assertThat(csrf.find()).isTrue();
    return csrf.group(1);
  }

  private static TestGateway.Answer post(String id, String action, String csrf) {
    return post(id, action, csrf, "");
  }

  private static TestGateway.Answer post(String id, String action, String csrf, String fields) {
    return gw.send(form(id, action, csrf, fields));
  }

  private static HttpRequest.Builder form(String id, String action, String csrf, String fields) {
    return HttpRequest.newBuilder(gw.uri("/checkout/" + id + action))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + URLEncoder.encode(csrf, StandardCharsets.UTF_8) + fields));
  }
}
