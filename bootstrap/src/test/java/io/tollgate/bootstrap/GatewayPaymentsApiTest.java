package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** POST, GET and list of /api/v1/payments through real HTTP and PostgreSQL. */
class GatewayPaymentsApiTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void a_deposit_is_created_in_checkout_with_a_redirect_url_and_the_success_envelope() {
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10.5,"currency":"EUR","referenceId":"order-1",
         "description":"Two coffees","returnUrl":"https://shop.example/return?id={id}",
         "customer":{"referenceId":"c-1","email":"Ann@Example.com","citizenshipCountryCode":"de"},
         "billingAddress":{"addressLine1":"Main 1","city":"Berlin","countryCode":"DE","postalCode":"10115"}}
        """);

    assertThat(a.status()).isEqualTo(200);
    JsonNode body = a.json();
    assertThat(body.get("status").asInt()).isEqualTo(200);
    assertThat(body.get("timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\+00:00");
    JsonNode p = body.get("result");
    assertThat(p.get("id").asText()).matches("[0-9a-f]{32}");
    assertThat(p.get("state").asText()).isEqualTo("CHECKOUT");
    assertThat(p.get("paymentType").asText()).isEqualTo("DEPOSIT");
    assertThat(p.get("paymentMethod").asText()).isEqualTo("BASIC_CARD");
    assertThat(p.get("amount").decimalValue()).isEqualByComparingTo("10.50");
    assertThat(a.body()).as("amounts keep the currency's scale").contains("\"amount\":10.50,");
    assertThat(p.get("currency").asText()).isEqualTo("EUR");
    assertThat(p.get("created").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d");
    assertThat(p.get("redirectUrl").asText()).isEqualTo(gw.app.publicUrl() + "/checkout/" + p.get("id").asText());
    assertThat(p.at("/customer/email").asText()).as("as the merchant spelled it").isEqualTo("Ann@Example.com");
    assertThat(p.at("/customer/citizenshipCountryCode").asText()).isEqualTo("DE");
    assertThat(p.at("/billingAddress/city").asText()).isEqualTo("Berlin");

    Answer read = gw.get("/api/v1/payments/" + p.get("id").asText());
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().get("result")).isEqualTo(p);
  }

  @Test
  void each_answer_names_the_payment_s_own_shop() {
    String otherKey = gw.issueKey(gw.createShop(gw.merchant, "Corner Bakery", false), Environment.SANDBOX);
    String card = ",\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";
    Answer created = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":3.00,\"currency\":\"EUR\"" + card + "}", otherKey, null);
    String id = created.json().at("/result/id").asText();
    Answer own = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":3.00,\"currency\":\"EUR\"}");

    assertThat(created.json().at("/result/shopName").asText()).isEqualTo("Corner Bakery");
    assertThat(own.json().at("/result/shopName").asText()).isEqualTo("Test Shop");
    assertThat(gw.get("/api/v1/payments/" + id, otherKey).json().at("/result/shopName").asText())
        .isEqualTo("Corner Bakery");
    assertThat(gw.get("/api/v1/payments?limit=5", otherKey).json().get("result").findValuesAsText("shopName"))
        .isNotEmpty().containsOnly("Corner Bakery");
    Answer executed = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}", otherKey);
    assertThat(executed.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(executed.json().at("/result/shopName").asText()).isEqualTo("Corner Bakery");
  }

  @Test
  void a_card_given_at_creation_is_kept_only_masked_with_a_token() {
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":1,"currency":"USD",
         "card":{"cardNumber":"4000 0000 0000 0408","cardholderName":"ANN LEE","cardSecurityCode":"123",
                 "expiryMonth":"12","expiryYear":"2045"}}
        """);
    assertThat(a.status()).isEqualTo(200);
    JsonNode details = a.json().at("/result/paymentMethodDetails");
    assertThat(details.get("customerAccountNumber").asText()).isEqualTo("400000******0408");
    assertThat(details.get("cardBrand").asText()).isEqualTo("VISA");
    assertThat(details.get("cardToken").asText()).matches("[0-9a-f]{32}");
    assertThat(details.get("cardExpiryYear").asText()).isEqualTo("2045");
    assertThat(a.body()).doesNotContain("4000000000000408").doesNotContain("\"123\"");
  }

  /**
   * A deposit with the card's token alone is charged with the expiry (and name) of the card's
   * newest deposit an acquirer took: an acquirer declines a charge without one. A later deposit
   * with a mistyped expiry (declined 4.04), or a refund that touches an older deposit, does not
   * change it.
   */
  @Test
  void a_card_token_alone_is_charged_with_the_expiry_its_card_was_last_taken_with() {
    String card = "\"cardNumber\":\"5555000000000107\",\"cardholderName\":\"ANN LEE\"";
    String older = executed(card + ",\"expiryMonth\":\"12\",\"expiryYear\":\"2044\"", "COMPLETED");
    String newer = executed(card + ",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"", "COMPLETED");
    executed(card + ",\"expiryMonth\":\"01\",\"expiryYear\":\"2021\"", "DECLINED");
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":1,\"currency\":\"EUR\","
        + "\"parentPaymentId\":\"" + older + "\"}").status()).isEqualTo(200);
    String token = gw.get("/api/v1/payments/" + newer).json().at("/result/paymentMethodDetails/cardToken").asText();

    Answer byToken = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2,"currency":"EUR","card":{"cardToken":"%s"}}
        """.formatted(token));
    assertThat(byToken.status()).as(byToken.body()).isEqualTo(200);
    JsonNode details = byToken.json().at("/result/paymentMethodDetails");
    assertThat(details.get("cardExpiryMonth").asText()).isEqualTo("12");
    assertThat(details.get("cardExpiryYear").asText()).isEqualTo("2045");
    assertThat(details.get("cardholderName").asText()).isEqualTo("ANN LEE");
    Answer paid = gw.patch("/api/v1/payments/" + byToken.json().at("/result/id").asText(),
        "{\"customerIp\":\"203.0.113.5\"}");
    assertThat(paid.json().at("/result/state").asText()).as(paid.body()).isEqualTo("COMPLETED");

    Answer given = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2,"currency":"EUR","card":{"cardToken":"%s","expiryMonth":"01","expiryYear":"2021"}}
        """.formatted(token));
    assertThat(given.json().at("/result/paymentMethodDetails/cardExpiryYear").asText())
        .as("an expiry sent with the token wins").isEqualTo("2021");
  }

  /** A deposit of 2.00 EUR with this card, executed host-to-host into {@code state}; its id. */
  private static String executed(String card, String state) {
    Answer created = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":2,\"currency\":\"EUR\",\"card\":{" + card + "}}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String id = created.json().at("/result/id").asText();
    Answer done = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.5\"}");
    assertThat(done.json().at("/result/state").asText()).as(done.body()).isEqualTo(state);
    return id;
  }

  @Test
  void withdrawals_start_pending_or_awaiting_approval_as_the_shop_is_set_up() {
    String card = "\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"01\",\"expiryYear\":\"2045\"}";
    Answer plain = gw.post("/api/v1/payments",
        "{\"paymentType\":\"WITHDRAWAL\",\"amount\":5,\"currency\":\"EUR\"," + card + "}");
    assertThat(plain.status()).isEqualTo(200);
    assertThat(plain.json().at("/result/state").asText()).isEqualTo("PENDING");
    assertThat(plain.json().at("/result/redirectUrl").isMissingNode()).isTrue();

    ShopId approving = gw.createShop(gw.merchant, "Approving Shop", true);
    String key = gw.issueKey(approving, Environment.SANDBOX);
    Answer waiting = gw.post("/api/v1/payments",
        "{\"paymentType\":\"WITHDRAWAL\",\"amount\":5,\"currency\":\"EUR\"," + card + "}", key, null);
    assertThat(waiting.json().at("/result/state").asText()).isEqualTo("AWAITING_APPROVAL");
  }

  /** A payout is credited to the card's number: it needs no expiry, which a charge does. */
  @Test
  void a_card_payout_needs_no_expiry_and_a_card_charge_does() throws Exception {
    Answer payout = gw.post("/api/v1/payments", """
        {"paymentType":"WITHDRAWAL","amount":3,"currency":"EUR",
         "card":{"cardNumber":"4000000000000408","cardholderName":"A Payee"}}""");
    assertThat(payout.status()).as(payout.body()).isEqualTo(200);
    JsonNode paid = gw.awaitStateOtherThan(payout.json().at("/result/id").asText(), "PENDING",
        java.time.Duration.ofSeconds(15));
    assertThat(paid.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(paid.at("/paymentMethodDetails/customerAccountNumber").asText()).isEqualTo("400000******0408");
    assertThat(paid.at("/paymentMethodDetails/cardExpiryMonth").isMissingNode()).isTrue();

    Answer charge = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":3,"currency":"EUR","card":{"cardNumber":"4000000000000408"}}""");
    assertThat(charge.status()).isEqualTo(400);
    List<String> fields = new ArrayList<>();
    charge.json().get("errors").forEach(e -> fields.add(e.get("field").asText()));
    assertThat(fields).containsExactlyInAnyOrder("card.expiryMonth", "card.expiryYear");
  }

  @Test
  void a_pre_authorization_may_be_for_zero_to_verify_a_card() {
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"currency\":\"EUR\",\"preAuth\":true}");
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.json().at("/result/amount").decimalValue()).isZero();
    assertThat(a.json().at("/result/preAuth").asBoolean()).isTrue();
  }

  /**
   * What the merchant knows of its customer's standing is kept and answered, as the API's
   * description has it: it was accepted and dropped.
   */
  @Test
  void a_customer_s_routing_group_kyc_and_first_deposit_are_kept_and_answered() {
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR",
         "customer":{"referenceId":"standing-1","routingGroup":"VIP","kycStatus":true,
                     "paymentInstrumentKycStatus":false,"dateOfFirstDeposit":"2021-01-01"}}""");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    String id = a.json().at("/result/id").asText();
    for (JsonNode customer : List.of(a.json().at("/result/customer"),
        gw.get("/api/v1/payments/" + id).json().at("/result/customer"))) {
      assertThat(customer.get("routingGroup").asText()).isEqualTo("VIP");
      assertThat(customer.get("kycStatus").asBoolean()).isTrue();
      assertThat(customer.get("paymentInstrumentKycStatus").isBoolean()).isTrue();
      assertThat(customer.get("paymentInstrumentKycStatus").asBoolean()).isFalse();
      assertThat(customer.get("dateOfFirstDeposit").asText()).isEqualTo("2021-01-01");
    }
    String[] user = gw.merchantUser(gw.merchant, "standing@shop.example");
    JsonNode listed = gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=1"), user).json().at("/result/0");
    assertThat(listed.get("id").asText()).isEqualTo(id);
    assertThat(listed.get("customerRoutingGroup").asText()).isEqualTo("VIP");

    int before = gw.countPayments();
    Answer bad = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR",
         "customer":{"routingGroup":"%s","dateOfFirstDeposit":"01/01/2021"}}"""
        .formatted("g".repeat(65)));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder("customer.routingGroup", "customer.dateOfFirstDeposit");
    Answer notBoolean = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR","customer":{"kycStatus":"yes"}}""");
    assertThat(notBoolean.status()).isEqualTo(400);
    assertThat(notBoolean.json().get("errors").findValuesAsText("field")).containsExactly("customer.kycStatus");
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  /**
   * A phone number is taken as the merchant keeps it, punctuation and all, as the reference
   * limits only its length: "(020) 7224-3688" was a 400 that lost the whole payment.
   */
  @Test
  void a_customer_s_phone_is_kept_as_written_up_to_18_characters() {
    for (String phone : List.of("(020) 7224-3688", "44-20-7224-3688", "+44 20 7224 3688")) {
      Answer a = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR","customer":{"phone":"%s"}}""".formatted(phone));
      assertThat(a.status()).as(phone + ": " + a.body()).isEqualTo(200);
      assertThat(a.json().at("/result/state").asText()).isEqualTo("CHECKOUT");
      assertThat(a.json().at("/result/customer/phone").asText()).isEqualTo(phone);
      String id = a.json().at("/result/id").asText();
      assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/customer/phone").asText()).isEqualTo(phone);
    }

    int before = gw.countPayments();
    // a card behind a country code shows in no group of its digits, but no phone has 16 or more (E.164)
    for (String phone : List.of("+44 (20) 7224-36881", "020 CALL-ME", "4000/0000/00000408", "+14000000000000408",
        "14000000000000408", "+44378282246310005")) {
      Answer refused = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR","customer":{"phone":"%s"}}""".formatted(phone));
      assertThat(refused.status()).as(phone).isEqualTo(400);
      assertThat(refused.json().get("status").asInt()).isEqualTo(400);
      assertThat(refused.json().get("errors").findValuesAsText("field")).as(phone).containsExactly("customer.phone");
      assertThat(refused.body()).as("a card number is never echoed").doesNotContain("4000/0000/00000408")
          .doesNotContain("4000000000000408").doesNotContain("378282246310005");
    }
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  /**
   * The customer's deposit and withdrawal history must be the integers the reference says, as
   * every other field must be of its type: a count that is not one used to pass unnoticed, and
   * the merchant never learnt that what it sent was wrong. Integers, or empty, are accepted.
   */
  @Test
  void a_customer_s_deposit_and_withdrawal_history_that_is_no_integer_is_refused() {
    int before = gw.countPayments();
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR",
         "customer":{"depositsAmount":"abc","withdrawalsAmount":{"EUR":10},"depositsCnt":"five",
                     "withdrawalsCnt":[1]}}""");

    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("customer.depositsAmount",
        "customer.withdrawalsAmount", "customer.depositsCnt", "customer.withdrawalsCnt");
    assertThat(a.json().get("errors").findValuesAsText("message")).containsOnly("must be an integer");
    assertThat(gw.countPayments()).isEqualTo(before);

    Answer counted = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR",
         "customer":{"referenceId":"history-1","depositsAmount":125000000000,"withdrawalsAmount":"1000",
                     "depositsCnt":5,"withdrawalsCnt":""}}""");
    assertThat(counted.status()).as(counted.body()).isEqualTo(200);
    assertThat(counted.json().at("/result/customer/referenceId").asText()).isEqualTo("history-1");
  }

  /** The card's issuing bank is answered, as the API's description has it, from the BIN data. */
  @Test
  void a_card_s_issuing_bank_comes_from_the_bin_data_and_is_kept() {
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR",
         "card":{"cardNumber":"4111111111111111","expiryMonth":"12","expiryYear":"2045"}}""");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().at("/result/paymentMethodDetails/cardIssuingOrganization").asText())
        .isEqualTo("Sandbox Sparkasse");
    assertThat(a.json().at("/result/paymentMethodDetails/cardIssuingCountryCode").asText()).isEqualTo("DE");
    String id = a.json().at("/result/id").asText();
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/paymentMethodDetails/cardIssuingOrganization")
        .asText()).isEqualTo("Sandbox Sparkasse");
  }

  /**
   * Clients that write every field of a structure send the optional strings they have no value
   * for as "": the API's description allows them, and they were refused as bad URLs or as a
   * parent a deposit cannot have.
   */
  @Test
  void empty_optional_urls_and_parent_are_as_if_not_sent() {
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":3.00,"currency":"EUR","returnUrl":"","webhookUrl":"",
         "parentPaymentId":""}""");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().get("result").has("returnUrl")).isFalse();
    assertThat(a.json().get("result").has("webhookUrl")).isFalse();
    assertThat(a.json().get("result").has("parentPaymentId")).isFalse();

    Answer refund = gw.post("/api/v1/payments", """
        {"paymentType":"REFUND","amount":1.00,"currency":"EUR","parentPaymentId":""}""");
    assertThat(refund.status()).isEqualTo(400);
    assertThat(refund.json().get("errors").findValuesAsText("field")).contains("parentPaymentId");
    assertThat(gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":3.00,"currency":"EUR","returnUrl":" "}""").status())
        .as("a blank is no URL").isEqualTo(400);
  }

  @Test
  void every_broken_rule_is_listed_in_one_400_and_nothing_is_stored() {
    int before = gw.countPayments();
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"PAYOUT","amount":10.001,"currency":"EUR","paymentMethod":"PAYPAL",
         "referenceId":"%s","returnUrl":"not a url",
         "card":{"cardNumber":"1234","cardSecurityCode":"12345","expiryMonth":"13","expiryYear":"30"},
         "customer":{"email":"no-at-sign","citizenshipCountryCode":"XX","dateOfBirth":"31-01-1990"},
         "billingAddress":{"countryCode":"usa"}}
        """.formatted("r".repeat(257)));

    assertThat(a.status()).isEqualTo(400);
    JsonNode body = a.json();
    assertThat(body.get("error").asText()).isEqualTo("Bad Request");
    assertThat(body.get("path").asText()).isEqualTo("/api/v1/payments");
    List<String> fields = new ArrayList<>();
    body.get("errors").forEach(e -> fields.add(e.get("field").asText()));
    assertThat(fields).contains("paymentType", "paymentMethod", "referenceId", "returnUrl",
        "card.cardNumber", "card.cardSecurityCode", "card.expiryMonth", "card.expiryYear",
        "customer.email", "customer.citizenshipCountryCode", "customer.dateOfBirth",
        "billingAddress.countryCode");
    assertThat(body.toString()).contains("payment method not available for this shop");
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  @Test
  void amounts_with_more_decimals_than_the_currency_allows_are_refused() {
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":100.5,\"currency\":\"JPY\"}").status())
        .isEqualTo(400);
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1.0001,\"currency\":\"KWD\"}").status())
        .isEqualTo(400);
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1.001,\"currency\":\"KWD\"}").status())
        .isEqualTo(200);
    assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":0.00001001,\"currency\":\"BTC\"}").status())
        .isEqualTo(200);
  }

  @Test
  void wrong_json_types_negative_zero_and_huge_amounts_are_400s() {
    for (String body : List.of(
        "{\"paymentType\":\"DEPOSIT\",\"amount\":\"10 EUR\",\"currency\":\"EUR\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":{\"value\":10},\"currency\":\"EUR\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":-1,\"currency\":\"EUR\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":0,\"currency\":\"EUR\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":1e400,\"currency\":\"EUR\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":1000000000.01,\"currency\":\"EUR\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":10,\"currency\":\"eur\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":10,\"currency\":\"EUR\",\"preAuth\":\"yes\"}",
        "{\"paymentType\":7,\"amount\":10,\"currency\":\"EUR\"}",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":10,\"currency\":\"EUR\",\"card\":\"4000000000000408\"}",
        "{\"amount\":10,\"currency\":\"EUR\"}",
        "[]",
        "\"DEPOSIT\"")) {
      Answer a = gw.post("/api/v1/payments", body);
      assertThat(a.status()).as(body).isEqualTo(400);
      assertThat(a.json().get("errors").isArray()).as(body).isTrue();
      assertThat(a.body()).doesNotContain("4000000000000408");
    }
  }

  @Test
  void malformed_json_is_a_400_that_says_so() {
    for (String body : List.of("{\"paymentType\":", "{\"amount\":1,\"amount\":2}", "{} {}", "{}x", "")) {
      Answer a = gw.post("/api/v1/payments", body);
      assertThat(a.status()).as(body).isEqualTo(400);
      assertThat(a.json().get("message").asText()).as(body).containsAnyOf("Malformed JSON", "body is required");
    }
    assertThat(gw.post("/api/v1/payments", "{\"amount\":1,\"amount\":2}").json().get("message").asText())
        .contains("Duplicate field");
  }

  @Test
  void unknown_properties_are_ignored() {
    Answer a = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",\"somethingNew\":{\"x\":1}}");
    assertThat(a.status()).isEqualTo(200);
  }

  /**
   * A charge by recurring token, or a subscription, is refused rather than turned into a deposit
   * that waits on the checkout page for a customer who is not there; asking to start recurring
   * payments is no harm, and null is as good as absent. So is an empty token or subscription, as
   * clients that write every field send them: those used to be refused as recurring payments.
   */
  @Test
  void recurring_charges_and_subscriptions_are_refused_and_nothing_is_stored() {
    int before = gw.countPayments();
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10,"currency":"EUR","recurringToken":"rt-secret-1",
         "subscription":{"frequency":1,"frequencyUnit":"MONTH","amount":10}}""");
    assertThat(a.status()).isEqualTo(400);
    List<String> fields = new ArrayList<>();
    a.json().get("errors").forEach(e -> fields.add(e.get("field").asText()));
    assertThat(fields).containsExactlyInAnyOrder("recurringToken", "subscription");
    assertThat(a.body()).contains("recurring payments are not supported").doesNotContain("rt-secret-1");
    assertThat(gw.countPayments()).isEqualTo(before);

    assertThat(gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10,"currency":"EUR","startRecurring":true,
         "recurringToken":null,"subscription":null}""").status()).isEqualTo(200);
    Answer empty = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10,"currency":"EUR","recurringToken":"",
         "subscription":{}}""");
    assertThat(empty.status()).as(empty.body()).isEqualTo(200);
    assertThat(empty.json().at("/result/state").asText()).isEqualTo("CHECKOUT");
    Answer blank = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10,"currency":"EUR","recurringToken":" ",
         "subscription":{"description":"","frequency":null}}""");
    assertThat(blank.status()).as(blank.body()).isEqualTo(200);
    Answer token = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10,"currency":"EUR","recurringToken":"rt-1","subscription":{}}""");
    assertThat(token.status()).isEqualTo(400);
    assertThat(token.json().get("errors").findValuesAsText("field")).containsExactly("recurringToken");
  }

  /**
   * A wallet's payment data is not dropped for a deposit that would ask the customer for a card;
   * an empty wallet object holds no payment data and counts as not sent (it used to be refused).
   */
  @Test
  void google_pay_and_apple_pay_data_are_refused_and_nothing_is_stored() {
    int before = gw.countPayments();
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10,"currency":"EUR","googlePay":{"token":"gp-1"},"applePay":{"token":"ap-1"}}""");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("googlePay", "applePay");
    assertThat(gw.countPayments()).isEqualTo(before);

    Answer empty = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":10,"currency":"EUR","googlePay":{},"applePay":{"paymentData":null}}""");
    assertThat(empty.status()).as(empty.body()).isEqualTo(200);
  }

  @Test
  void bodies_over_64_kib_are_a_413() {
    String big = "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",\"description\":\""
        + "x".repeat(70_000) + "\"}";
    int before = gw.countPayments();
    Answer a = gw.post("/api/v1/payments", big);
    assertThat(a.status()).isEqualTo(413);
    assertThat(a.json().get("error").asText()).isEqualTo("Payload Too Large");
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  @Test
  void a_non_json_content_type_is_a_415() {
    Answer a = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("paymentType=DEPOSIT"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Authorization", "Bearer " + gw.apiKey));
    assertThat(a.status()).isEqualTo(415);
    assertThat(a.json().get("status").asInt()).isEqualTo(415);
  }

  @Test
  void a_missing_or_wrong_key_is_a_401_invalid_token() {
    for (String key : new String[] {null, "tg_test_wrong", ""}) {
      Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}", key, null);
      assertThat(a.status()).isEqualTo(401);
      assertThat(a.json().get("message").asText()).isEqualTo("Invalid token");
      assertThat(a.json().get("error").asText()).isEqualTo("Unauthorized");
    }
    assertThat(gw.get("/api/v1/payments", "nope").status()).isEqualTo(401);
  }

  @Test
  void a_key_of_the_other_environment_is_refused() {
    ShopId other = gw.createShop(gw.merchant, "Production-only Shop", false);
    String productionKey = gw.issueKey(other, Environment.PRODUCTION);
    assertThat(gw.get("/api/v1/payments", productionKey).status()).isEqualTo(401);
  }

  @Test
  void a_reissued_key_replaces_the_old_one() {
    ShopId s = gw.createShop(gw.merchant, "Rotating Shop", false);
    String first = gw.issueKey(s, Environment.SANDBOX);
    String second = gw.issueKey(s, Environment.SANDBOX);
    assertThat(gw.get("/api/v1/payments", first).status()).isEqualTo(401);
    assertThat(gw.get("/api/v1/payments", second).status()).isEqualTo(200);
  }

  /**
   * An empty {@code customer.referenceId}, as form-driven integrations send for what they do not
   * know, names no customer: every guest's payment was kept as one customer of the shop, shown
   * with the name of whoever paid last beside the phone of an earlier one.
   */
  @Test
  void an_empty_customer_reference_names_no_customer() {
    ShopId s = gw.createShop(gw.merchant, "Guest checkout shop", false);
    String key = gw.issueKey(s, Environment.SANDBOX);
    String[] user = gw.merchantUser(gw.merchant, "guests@guest-checkout.example");
    for (String customer : List.of(
        "{\"referenceId\":\"\",\"firstName\":\"Ann\",\"email\":\"ann@a.example\",\"phone\":\"442071234567\"}",
        "{\"referenceId\":\"\",\"firstName\":\"Bob\",\"email\":\"bob@b.example\"}")) {
      Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":3,\"currency\":\"EUR\","
          + "\"customer\":" + customer + "}", key, null);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
    }
    assertThat(gw.merchantGet("/merchant-api/v1/customers?shopId.eq=" + s.value(), user).json().get("result"))
        .isEmpty();
  }

  @Test
  void a_shop_never_sees_another_shops_payment() {
    String id = gw.deposit("3.00", "EUR");
    ShopId other = gw.createShop(gw.merchant, "Other Shop", false);
    String otherKey = gw.issueKey(other, Environment.SANDBOX);

    Answer a = gw.get("/api/v1/payments/" + id, otherKey);
    assertThat(a.status()).isEqualTo(404);
    assertThat(a.json().get("message").asText()).isEqualTo("Payment not found");
    assertThat(gw.get("/api/v1/payments/" + id + "/operations", otherKey).status()).isEqualTo(404);
    assertThat(gw.get("/api/v1/payments?limit=1000", otherKey).json().get("result").toString()).doesNotContain(id);
  }

  @Test
  void unknown_and_malformed_ids_are_404_payment_not_found() {
    assertThat(gw.get("/api/v1/payments/" + "0".repeat(32)).json().get("message").asText()).isEqualTo("Payment not found");
    assertThat(gw.get("/api/v1/payments/not-an-id").status()).isEqualTo(404);
  }

  @Test
  void operations_show_the_creation() {
    String id = gw.deposit("4.00", "EUR");
    Answer a = gw.get("/api/v1/payments/" + id + "/operations");
    assertThat(a.status()).isEqualTo(200);
    JsonNode ops = a.json().get("result");
    assertThat(ops).hasSize(1);
    assertThat(ops.get(0).get("operation").asText()).isEqualTo("CREATE_PAYMENT");
    assertThat(ops.get(0).get("paymentState").asText()).isEqualTo("CHECKOUT");
    assertThat(ops.get(0).get("completed").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d");
    assertThat(a.json().has("hasMore")).isFalse();
  }

  /**
   * A client generated from the reference (openapi-generator's Java client, with its defaults)
   * refuses an answer with a field its model does not define: the list's entries are the
   * reference's {@code Payment}, which lacks what only {@code PaymentResult} has, and an
   * operation carries the reference's fields and the contract's {@code errorCode} only.
   */
  @Test
  void list_entries_and_operations_carry_only_the_fields_the_reference_defines_for_them() {
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":6.00,"currency":"EUR","referenceId":"fields-check",
         "additionalParameters":{"channel":"web"},
         "card":{"cardNumber":"4000000000000416","cardholderName":"ANN LEE","cardSecurityCode":"123",
                 "expiryMonth":"12","expiryYear":"2045"}}""");
    String id = created.json().at("/result/id").asText();
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}").json().at("/result/state")
        .asText()).isEqualTo("DECLINED");

    JsonNode byId = gw.get("/api/v1/payments/" + id).json().get("result");
    assertThat(byId.get("externalId").asText()).as("PaymentResult has it").startsWith("sbx_");
    assertThat(byId.at("/additionalParameters/channel").asText()).isEqualTo("web");

    JsonNode entry = gw.get("/api/v1/payments?referenceId.eq=fields-check").json().at("/result/0");
    assertThat(entry.get("id").asText()).isEqualTo(id);
    assertThat(entry.has("externalId")).isFalse();
    assertThat(entry.has("externalRefs")).isFalse();
    assertThat(entry.has("additionalParameters")).isFalse();
    assertThat(entry.get("externalResultCode").asText()).isEqualTo(byId.get("externalResultCode").asText());

    JsonNode ops = gw.get("/api/v1/payments/" + id + "/operations").json().get("result");
    assertThat(ops).hasSizeGreaterThan(2);
    for (JsonNode op : ops) {
      java.util.List<String> names = new java.util.ArrayList<>();
      op.fieldNames().forEachRemaining(names::add);
      assertThat(names).as(op.toString()).isSubsetOf("id", "operation", "started", "completed", "paymentState",
          "outgoingMessages", "incomingMessages", "errorCode");
    }
    assertThat(ops.get(0).get("errorCode").asText()).isEqualTo("4.00");
  }
}
