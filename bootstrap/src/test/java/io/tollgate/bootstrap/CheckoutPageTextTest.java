package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the checkout page tells the customer, read from its HTML through HTTP: the time they have
 * to pay, what a result means for them, and the context a screen reader needs for the bare
 * values at its top. How the page behaves in a browser is {@link CheckoutPageBrowserTest}'s.
 */
class CheckoutPageTextTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /**
   * The shop's checkout timeout cancels a payment left alone; the customer is told how long they
   * have, and until when, on the card form and again, from its own start, on the 3-D Secure page.
   */
  @Test
  void the_card_form_and_the_3ds_page_say_by_when_to_pay() {
    ShopId shop = gw.createShop(gw.merchant, "Forty-five minutes", false, false, Duration.ofMinutes(45));
    String key = gw.issueKey(shop, Environment.SANDBOX);
    String id = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\"}",
        key, null).json().at("/result/id").asText();

    String form = page(id);
    assertThat(form).containsPattern("<p class=\"description\" id=\"pay-by\">" + payBy(time(id, "created")) + "</p>");

    assertThat(sendCard(id, csrf(form), "4000000000000002").status()).isEqualTo(303);
    String challenge = page(id);
    assertThat(challenge).as("from the challenge's start").contains("id=\"authenticate\"")
        .containsPattern("id=\"pay-by\">" + payBy(time(id, "updated")));

    // a result has no time left to show
    post(id, "/3ds", csrf(challenge), "&result=pass");
    assertThat(page(id)).contains("id=\"result\"").doesNotContain("pay-by");
  }

  /** A decline says in plain words whose answer it was and that no money was taken, above its code. */
  @Test
  void a_declined_payment_says_what_it_means_above_its_code_in_smaller_print() {
    String id = gw.deposit("5.00", "EUR");
    sendCard(id, csrf(page(id)), "4000000000000416");
    String page = page(id);
    String explanation = "<p id=\"result-explanation\">Your bank declined the payment. No money was taken.</p>";
    String code = "<p class=\"description small\" id=\"result-error\">4.00 Declined by Issuer</p>";
    assertThat(page).contains(explanation).contains(code);
    assertThat(page.indexOf(explanation)).as("the sentence above the code").isLessThan(page.indexOf(code));
    assertThat(page).as("no return URL: the customer stays here").contains("You can close this page.");
  }

  @Test
  void a_failed_3ds_challenge_says_the_bank_could_not_confirm_the_payment() {
    String id = gw.deposit("5.00", "EUR");
    sendCard(id, csrf(page(id)), "4000000000000002");
    post(id, "/3ds", csrf(page(id)), "&result=fail");
    assertThat(page(id)).contains("Your bank could not confirm the payment. No money was taken.")
        .contains("id=\"result-error\">5.00 Declined by 3DS");
  }

  @Test
  void a_cancelled_payment_says_so_and_with_a_way_back_does_not_say_to_close_the_page() {
    String id = gw.deposit("5.00", "EUR");
    post(id, "/cancel", csrf(page(id)), "");
    assertThat(page(id)).contains("<p id=\"result-explanation\">The payment was cancelled. No money was taken.</p>")
        .contains("You can close this page.");

    String back = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\","
        + "\"returnUrl\":\"https://shop.example/back\"}").json().at("/result/id").asText();
    post(back, "/cancel", csrf(page(back)), "");
    assertThat(page(back)).contains("The payment was cancelled.").contains("id=\"return\"")
        .doesNotContain("You can close this page.");
  }

  /** The shop's name and the amount are read out with what they are, not as two bare values. */
  @Test
  void the_shop_and_the_amount_are_read_with_what_they_are() {
    String page = page(gw.deposit("12.50", "EUR"));
    assertThat(page).contains("<p class=\"shop\"><span class=\"visually-hidden\">Paying </span>Test Shop</p>")
        .contains("<span class=\"visually-hidden\">Amount: </span><span id=\"amount\">12.50 EUR</span>");
    String css = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/assets/checkout.css")).GET()).body();
    assertThat(css).containsPattern("\\.visually-hidden \\{[^}]*clip: rect\\(0 0 0 0\\)");
  }

  private static String page(String id) {
    return gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
  }

  private static String csrf(String page) {
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).as(page).isTrue();
    return csrf.group(1);
  }

  private static TestGateway.Answer sendCard(String id, String csrf, String card) {
    return post(id, "", csrf, "&cardNumber=" + card + "&cardholderName=Ann+Lee&expiryMonth=12&expiryYear=2045"
        + "&cardSecurityCode=123");
  }

  private static TestGateway.Answer post(String id, String action, String csrf, String fields) {
    return gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id + action))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + URLEncoder.encode(csrf, StandardCharsets.UTF_8) + fields)));
  }

  /** The payment's {@code created} or {@code updated} time, as stored. */
  private static Instant time(String id, String column) {
    return gw.database.jdbi().withHandle(h -> h.createQuery("SELECT " + column + " FROM payments WHERE id = :id")
        .bind("id", id).mapTo(Instant.class).one());
  }

  /**
   * The sentence for 45 minutes from {@code since}, as the server writes it: 44 once the clock's
   * minute has turned since then; the time in UTC, marked up with its instant for the page's
   * script, and the date after the time when that is tomorrow.
   */
  private static String payBy(Instant since) {
    Instant by = since.plus(Duration.ofMinutes(45)).truncatedTo(ChronoUnit.MINUTES);
    String clock = DateTimeFormatter.ofPattern("HH:mm").format(by.atZone(ZoneOffset.UTC));
    return "Please pay within 4[45] minutes \\(by <time id=\"pay-by-time\"\\s+datetime=\"" + by + "\">" + clock
        + " UTC( on [0-9]+ [A-Z][a-z]+)?</time>\\)\\.";
  }
}
