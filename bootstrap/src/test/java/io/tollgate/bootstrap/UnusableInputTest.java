package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.user.Permission;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Input that no field can take, found in review: each is a 400 or 401 in the envelope that
 * changes nothing (never a 500, a slow answer or a huge one), and no error sends back a card
 * number or security code the request carried.
 */
class UnusableInputTest {

  static TestGateway gw;
  static String[] user;

  @BeforeAll
  static void start() throws Exception {
    // bank transfers stay PENDING for the whole test
    gw = TestGateway.start(Map.of("TOLLGATE_SANDBOX_BANK_DELAY", "PT1H"));
    user = gw.merchantUser(gw.merchant, "review@shop.example", Permission.values());
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void a_body_cut_short_is_refused_without_the_card_it_carried() {
    int before = gw.countPayments();
    TestGateway.Answer a = gw.post("/api/v1/payments", """
        {"card":{"cardNumber":"4000000000000408","cardholderName":"ANN LEE","cardSecurityCode":"123",\
        "expiryMonth":"12","expiryYear":"2045"},"paymentType":"DEPOSIT","amount":40.00,"currency":"EUR\"""");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().get("message").asText()).startsWith("Malformed JSON");
    assertThat(a.body()).doesNotContain("4000000000000408").doesNotContain("cardSecurityCode").doesNotContain("ANN LEE");

    TestGateway.Answer token = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":5,"currency":"EUR","card":{"cardToken":"4000000000000408"}}""");
    assertThat(token.status()).isEqualTo(400);
    assertThat(token.body()).doesNotContain("4000000000000408").contains("400000******0408");

    long group = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.CARD, "cards", false)
        .id();
    TestGateway.Answer notAnArray = gw.merchantPost("/merchant-api/v1/card-groups/" + group + "/cards",
        "{\"cardNumbers\":\"4000000000000408\"}", user);
    assertThat(notAnArray.status()).isEqualTo(400);
    assertThat(notAnArray.body()).doesNotContain("4000000000000408");
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  /**
   * Bytes that are no UTF-8, overlong forms included ({@code C0 AF} spells '/', {@code C1 BF} a
   * control character), are malformed JSON, not text that reaches a field changed.
   */
  @Test
  void a_body_that_is_not_utf_8_is_malformed_json_and_stores_nothing() {
    int before = gw.countPayments();
    for (byte[] bad : new byte[][] {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
        {(byte) 0xC1, (byte) 0xBF}, {(byte) 0xFF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}}) {
      java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
      body.writeBytes("{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\",\"referenceId\":\"ov-"
          .getBytes(StandardCharsets.UTF_8));
      body.writeBytes(bad);
      body.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
      TestGateway.Answer a = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
          .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
          .header("Authorization", "Bearer " + gw.apiKey).header("Content-Type", "application/json"));
      assertThat(a.status()).as(java.util.HexFormat.of().formatHex(bad)).isEqualTo(400);
      assertThat(a.json().get("message").asText()).startsWith("Malformed JSON");
    }
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  /** Eleven bytes that spell a billion digits; writing them out took seconds and gigabytes. */
  @Test
  void numbers_of_any_size_in_few_bytes_are_out_of_range_wherever_they_are() {
    int before = gw.countPayments();
    TestGateway.Answer unknownField = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\",\"extra\":{\"n\":[1e999999999]}}");
    assertThat(unknownField.status()).isEqualTo(400);
    assertThat(unknownField.json().at("/errors/0/field").asText()).isEqualTo("extra.n[0]");
    assertThat(unknownField.json().at("/errors/0/message").asText()).isEqualTo("number out of range");

    TestGateway.Answer amount = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":1e10000000,\"currency\":\"EUR\"}");
    assertThat(amount.status()).isEqualTo(400);
    assertThat(amount.body().length()).isLessThan(2_000);
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1e-400,\"currency\":\"EUR\"}")
        .status()).isEqualTo(400);
    // an exponent past what a BigDecimal holds: a 400 too, not a 500, in a field read or not
    for (String huge : new String[] {"1e10000000000", "-1e2147483648", "0e99999999999", "1e-2147483648"}) {
      for (String body : new String[] {"{\"paymentType\":\"DEPOSIT\",\"amount\":" + huge + ",\"currency\":\"EUR\"}",
          "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\",\"foo\":" + huge + "}"}) {
        TestGateway.Answer refused = gw.post("/api/v1/payments", body);
        assertThat(refused.status()).as(body).isEqualTo(400);
        assertThat(refused.json().get("errors").toString()).as(body).contains("out of range");
      }
    }
    assertThat(gw.countPayments()).isEqualTo(before);
    // an ordinary large exponent is still a number
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1.5E1,\"currency\":\"EUR\"}")
        .json().at("/result/amount").decimalValue()).isEqualByComparingTo("15");
  }

  /** The reference's least amount is 0.00001 (0 only for a pre-authorization). */
  @Test
  void amounts_below_the_least_are_refused() {
    int before = gw.countPayments();
    TestGateway.Answer tiny = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1e-7,\"currency\":\"BTC\"}");
    assertThat(tiny.status()).isEqualTo(400);
    assertThat(tiny.json().at("/errors/0/message").asText()).isEqualTo("must be at least 0.00001");
    assertThat(gw.countPayments()).isEqualTo(before);
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":0.00001,\"currency\":\"BTC\"}")
        .status()).isEqualTo(200);
  }

  @Test
  void text_postgresql_cannot_store_is_refused() {
    int before = gw.countPayments();
    for (String value : new String[] {"a\\u0000b", "\\ud800", "x\\udc00"}) {
      TestGateway.Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\","
          + "\"referenceId\":\"" + value + "\",\"customer\":{\"firstName\":\"" + value + "\"}}");
      assertThat(a.status()).as(value).isEqualTo(400);
      assertThat(a.json().findValuesAsText("field")).as(value).containsExactlyInAnyOrder("referenceId", "customer.firstName");
    }
    assertThat(gw.countPayments()).isEqualTo(before);
    assertThat(gw.get("/api/v1/payments?referenceId.eq=a%00b").status()).isEqualTo(400);
  }

  @Test
  void date_filters_take_four_digit_years() {
    for (String from : new String[] {"-5000-01-01T00:00:00", "%2B300000-01-01T00:00:00", "%2B99999-01-01T00:00:00"}) {
      assertThat(gw.get("/api/v1/payments?created.gte=" + from).status()).as(from).isEqualTo(400);
      assertThat(gw.merchantGet("/merchant-api/v1/payments?created.lt=" + from, user).status()).as(from).isEqualTo(400);
      assertThat(gw.merchantGet("/merchant-api/v1/operations?completed.gte=" + from, user).status()).as(from)
          .isEqualTo(400);
    }
    assertThat(gw.get("/api/v1/payments?created.gte=0001-01-01T00:00:00").status()).isEqualTo(200);
  }

  @Test
  void credentials_no_user_can_have_are_a_401() {
    assertThat(gw.merchantGet("/merchant-api/v1/shops", new String[] {user[0], "a".repeat(100)}).status()).isEqualTo(401);
    assertThat(gw.merchantGet("/merchant-api/v1/shops", new String[] {"nobody@x.test", "a".repeat(100)}).status())
        .isEqualTo(401);
    assertThat(gw.merchantGet("/merchant-api/v1/shops", new String[] {"demo\u0000@x.test", "x"}).status()).isEqualTo(401);
    assertThat(gw.merchantGet("/merchant-api/v1/shops", user).status()).isEqualTo(200);
  }

  /**
   * Once the page has shown the bank details the customer may have paid; the bank's answer,
   * not a late click, settles the deposit.
   */
  @Test
  void a_bank_transfer_awaited_from_the_bank_cannot_be_cancelled_from_the_page() {
    String id = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"paymentMethod\":\"BANKTRANSFER\",\"amount\":50.00,\"currency\":\"EUR\"}")
        .json().at("/result/id").asText();
    String page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).isTrue();
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}").json().at("/result/state").asText())
        .isEqualTo("PENDING");

    TestGateway.Answer cancel = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id + "/cancel"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8))));
    assertThat(cancel.status()).isBetween(300, 399);
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("PENDING");

    // a transfer not yet chosen still can be
    String other = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"paymentMethod\":\"BANKTRANSFER\",\"amount\":50.00,\"currency\":\"EUR\"}")
        .json().at("/result/id").asText();
    Matcher otherCsrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
        .matcher(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + other)).GET()).body());
    assertThat(otherCsrf.find()).isTrue();
    gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + other + "/cancel"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + URLEncoder.encode(otherCsrf.group(1), StandardCharsets.UTF_8))));
    assertThat(gw.get("/api/v1/payments/" + other).json().at("/result/state").asText()).isEqualTo("CANCELLED");
  }

  /** Odd posts to the checkout page were 500s: a form without its Content-Type, an unknown charset, a NUL. */
  @Test
  void the_checkout_form_refuses_what_it_cannot_read_with_a_4xx() {
    String id = gw.deposit("5.00", "EUR");
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
        .matcher(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body());
    assertThat(csrf.find()).isTrue();
    String form = "csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
    TestGateway.Answer untyped = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id + "/cancel"))
        .POST(HttpRequest.BodyPublishers.ofString(form)));
    assertThat(untyped.status()).isEqualTo(415);
    TestGateway.Answer bogus = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Content-Type", "application/x-www-form-urlencoded; charset=bogus")
        .POST(HttpRequest.BodyPublishers.ofString(form + "&cardholderName=%E9")));
    assertThat(bogus.status()).isEqualTo(400);
    TestGateway.Answer nul = gw.refusedFormPage(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form + "&cardNumber=4000000000000408&expiryMonth=12&expiryYear=2045"
            + "&cardSecurityCode=123&cardholderName=AB%00CD"))));
    assertThat(nul.status()).isEqualTo(200);
    assertThat(nul.body()).contains("Use letters, spaces and punctuation only");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");

    // a card number typed into the name would be stored and sent in clear with it
    TestGateway.Answer numberAsName = gw.refusedFormPage(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form + "&cardNumber=4000000000000408&expiryMonth=12&expiryYear=2045"
            + "&cardSecurityCode=123&cardholderName=5555+0000+0000+0115"))));
    assertThat(numberAsName.status()).isEqualTo(200);
    assertThat(numberAsName.body()).contains("Enter the name on the card, not its number").doesNotContain("0000 0115");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
  }

  /**
   * The API and the payment page take the same expiry years: up to 30 years ahead, so that a
   * card the page takes can be sent host-to-host too, and the other way round.
   */
  @Test
  void the_api_and_the_payment_page_take_the_same_expiry_years() {
    int thisYear = java.time.Year.now(java.time.ZoneOffset.UTC).getValue();
    for (int year : new int[] {thisYear + 30, thisYear + 31}) {
      boolean taken = year == thisYear + 30;
      TestGateway.Answer api = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":5,"currency":"EUR",
           "card":{"cardNumber":"4000000000000408","expiryMonth":"01","expiryYear":"%d"}}""".formatted(year));
      assertThat(api.status()).as("API, %s", year).isEqualTo(taken ? 200 : 400);
      if (!taken) {
        assertThat(api.body()).contains("card.expiryYear");
      }

      String id = gw.deposit("5.00", "EUR");
      Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
          .matcher(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body());
      assertThat(csrf.find()).isTrue();
      TestGateway.Answer page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
          .header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString("csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8)
              + "&cardNumber=4000000000000408&expiryMonth=01&expiryYear=" + year
              + "&cardSecurityCode=123&cardholderName=Ann+Lee")));
      if (taken) {
        assertThat(page.status()).as("page, %s", year).isLessThan(400);
        assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isNotEqualTo("CHECKOUT");
      } else {
        assertThat(gw.refusedFormPage(page).body()).contains("This expiry date is too far in the future");
        assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
      }
    }
  }

  /** The same through the API: refused, echoed masked, nothing stored. */
  @Test
  void a_card_number_given_as_the_cardholders_name_is_refused() {
    int before = gw.countPayments();
    TestGateway.Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":5,"currency":"EUR",
         "card":{"cardNumber":"4000000000000408","cardholderName":"5555000000000115","expiryMonth":"12","expiryYear":"2045"}}""");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body()).contains("card.cardholderName").contains("must not hold a card number")
        .contains("555500******0115").doesNotContain("5555000000000115");
    assertThat(gw.countPayments()).isEqualTo(before);
  }
}
