package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.bootstrap.TestGateway.Answer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A deposit whose card came with the request (StS mode): the merchant sends the customer's
 * browser to its checkout page, which goes straight on to charge that card. Whoever opens the
 * link first, though, may be no customer: a chat app's preview, a mail scanner, a security proxy
 * or a browser's prefetch. So opening the page charges nothing; the charge is the POST of the
 * form the page shows, which its script sends at once (see {@link CheckoutPageBrowserTest} for a
 * browser going through), and which a customer without script sends with its button.
 */
class CardOnFileCheckoutTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static String depositWithCard(String card, String extra) {
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":9.00,\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"" + card + "\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}" + extra + "}");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  private static String state(String id) {
    return gw.get("/api/v1/payments/" + id).json().at("/result/state").asText();
  }

  private static List<String> operations(String id) {
    List<String> ops = new ArrayList<>();
    gw.get("/api/v1/payments/" + id + "/operations").json().get("result")
        .forEach(o -> ops.add(o.get("operation").asText() + ":" + o.get("paymentState").asText()));
    return ops;
  }

  /** The page at the deposit's {@code redirectUrl}, opened by a client that runs no script and keeps no cookie. */
  private static Answer open(String id) {
    Answer created = gw.get("/api/v1/payments/" + id);
    URI page = URI.create(created.json().at("/result/redirectUrl").asText());
    return gw.send(HttpRequest.newBuilder(gw.uri(page.getRawPath())).GET());
  }

  @Test
  void opening_the_link_charges_nothing_and_shows_a_form_that_sends_the_card_on() {
    String id = depositWithCard("4000000000000408", ",\"returnUrl\":\"https://shop.example/thanks\"");

    Answer preview = open(id);
    Answer again = open(id);

    for (Answer page : List.of(preview, again)) {
      assertThat(page.status()).isEqualTo(200);
      assertThat(page.body()).contains("<h1 id=\"heading\">Processing your payment</h1>")
          .containsPattern("<form method=\"post\" action=\"/checkout/" + id + "/process\" id=\"process-form\">\\s*"
              + "<input type=\"hidden\" name=\"csrf\" value=\"[^\"]+\">")
          .contains("<button type=\"submit\" id=\"process\" class=\"primary\">Pay 9.00 EUR</button>")
          .contains("Paying with your card ending in 0408.")
          .doesNotContain("name=\"cardNumber\"").doesNotContain("http-equiv=\"refresh\"");
    }
    assertThat(state(id)).isEqualTo("CHECKOUT");
    assertThat(operations(id)).as("nothing sent to the terminal").containsExactly("CREATE_PAYMENT:CHECKOUT");
  }

  @Test
  void the_form_charges_the_card_once_and_takes_the_customer_back_to_the_merchant() {
    String id = depositWithCard("4000000000000408", ",\"returnUrl\":\"https://shop.example/thanks\"");
    open(id);
    String csrf = gw.checkoutCsrf(id);

    Answer sent = gw.processCard(id, csrf);

    assertThat(sent.status()).isEqualTo(303);
    assertThat(sent.header("Location")).isEqualTo("/checkout/" + id);
    assertThat(sent.header("Set-Cookie")).startsWith("tollgate_returning=1").contains("Max-Age=1800")
        .contains("Path=/checkout/" + id);
    assertThat(state(id)).isEqualTo("COMPLETED");
    Answer result = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Cookie", "tollgate_returning=1").GET());
    assertThat(result.body()).contains("Thank you: your payment is complete.")
        .contains("http-equiv=\"refresh\" content=\"0; url=https://shop.example/thanks\"");
    assertThat(result.header("Set-Cookie")).as("used up").contains("Max-Age=0");

    // the button pressed as the script sent the form, and the form sent again long after
    assertThat(gw.processCard(id, csrf).status()).isEqualTo(303);
    gw.database.jdbi().useHandle(h -> h.createUpdate("UPDATE payments SET updated = updated - interval '1 minute' "
        + "WHERE id = :id").bind("id", id).execute());
    Answer stale = gw.processCard(id, csrf);
    assertThat(stale.status()).isEqualTo(303);
    assertThat(stale.header("Set-Cookie")).as("takes the customer nowhere").contains("Max-Age=0");
    assertThat(operations(id)).as("charged once")
        .containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  @Test
  void forms_sent_at_once_from_two_tabs_charge_the_card_once() throws Exception {
    String id = depositWithCard("4000000000000408", "");
    String csrf = gw.checkoutCsrf(id);
    assertThat(GroupsAtWorkTest.race(List.of(id, id, id, id), same -> gw.processCard(same, csrf).status()))
        .containsOnly(303);
    assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  @Test
  void a_3ds_card_goes_from_the_form_to_the_challenge() {
    String id = depositWithCard("5555000000000008", "");
    assertThat(state(id)).isEqualTo("CHECKOUT");
    Answer challenge = gw.openWithCardOnFile(id);
    assertThat(challenge.body()).contains("Confirm with your bank").contains("action=\"/checkout/" + id + "/3ds\"");
    assertThat(challenge.header("Set-Cookie")).as("the result takes the customer back").contains("Max-Age=1800");
    assertThat(state(id)).isEqualTo("PENDING");
  }

  @Test
  void the_form_without_its_token_or_with_another_payments_is_refused_and_charges_nothing() {
    String id = depositWithCard("4000000000000408", "");
    String other = depositWithCard("4000000000000408", "");

    Answer without = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id + "/process"))
        .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("")));
    Answer foreign = gw.processCard(id, gw.checkoutCsrf(other));
    Answer forged = gw.processCard(id, "forged");

    assertThat(List.of(without.status(), foreign.status(), forged.status())).containsOnly(403);
    assertThat(state(id)).isEqualTo("CHECKOUT");
    assertThat(operations(id)).containsExactly("CREATE_PAYMENT:CHECKOUT");
  }

  /**
   * The page's token is on a page anyone with the link may open before the charge: a card typed
   * into a card form sent by hand does not replace the one the merchant sent.
   */
  @Test
  void a_card_form_sent_by_hand_does_not_replace_the_card_that_came_with_the_deposit() {
    String id = depositWithCard("4000000000000408", "");
    String csrf = URLEncoder.encode(gw.checkoutCsrf(id), StandardCharsets.UTF_8);

    Answer typed = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + csrf + "&cardNumber=5555000000000107"
            + "&cardholderName=Bob&expiryMonth=12&expiryYear=2045&cardSecurityCode=123")));

    assertThat(typed.status()).isEqualTo(303);
    assertThat(state(id)).isEqualTo("CHECKOUT");
    assertThat(operations(id)).containsExactly("CREATE_PAYMENT:CHECKOUT");
    assertThat(gw.openWithCardOnFile(id).body()).contains("Thank you: your payment is complete.");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/paymentMethodDetails/customerAccountNumber")
        .asText()).isEqualTo("400000******0408");
  }

  /** The page's scripts run by their hashes in its Content-Security-Policy, which allows no other. */
  @Test
  void the_pages_inline_scripts_are_each_allowed_by_their_hash_and_nothing_else_is() throws Exception {
    String id = depositWithCard("4000000000000408", "");
    Answer page = open(id);

    Matcher script = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL).matcher(page.body());
    List<String> hashes = new ArrayList<>();
    while (script.find()) {
      hashes.add("'sha256-" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
          .digest(script.group(1).getBytes(StandardCharsets.UTF_8))) + "'");
    }
    assertThat(hashes).as("the deadline's and the one that sends the form").hasSize(2);
    assertThat(page.body()).doesNotContain("<script src").doesNotContainPattern("\\son[a-z]+=");
    String policy = page.header("Content-Security-Policy");
    Matcher scriptSrc = Pattern.compile("(?:^|; )script-src ([^;]+)").matcher(policy);
    assertThat(scriptSrc.find()).as(policy).isTrue();
    assertThat(scriptSrc.group(1).split(" ")).as("hashes only").containsExactlyInAnyOrderElementsOf(hashes);
    assertThat(policy).isEqualTo("default-src 'none'; script-src " + scriptSrc.group(1) + "; style-src 'self'; "
        + "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  }

  @Test
  void a_payment_past_checkout_shows_as_before() {
    String id = depositWithCard("4000000000000416", ",\"returnUrl\":\"https://shop.example/thanks\"");
    gw.processCard(id, gw.checkoutCsrf(id));
    assertThat(state(id)).isEqualTo("DECLINED");

    // no redirectUrl any more: the customer has no step left there
    Answer looked = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET());
    assertThat(looked.body()).contains("Your payment was declined.").contains("id=\"return\"")
        .doesNotContain("/process").doesNotContain("http-equiv=\"refresh\"");
    assertThat(looked.header("Set-Cookie")).isNull();
  }
}
