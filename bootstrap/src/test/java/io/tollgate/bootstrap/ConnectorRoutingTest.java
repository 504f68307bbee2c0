package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.bootstrap.TestGateway.KeyedShop;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which connector a payment goes to, through HTTP: the payment's currency first, connectors
 * that cannot take it passed over, a shop whose connectors are all off declined, and
 * withdrawals routed like deposits.
 */
class ConnectorRoutingTest {

  static TestGateway gw;
  static ReferenceData reference;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    reference = gw.app.services().persistence().referenceData();
    rate("EUR", "USD", "1.0850");
    rate("GBP", "USD", "1.2700");
    rate("GBP", "EUR", "1.1700");
    rate("VND", "USD", "0.000039");
    rate("VND", "JPY", "0.0061");
    rate("HUF", "EUR", "0.0025");
    rate("JPY", "USD", "0.0067");
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static KeyedShop shop(String name) {
    return gw.keyedShop(name);
  }

  static void rate(String base, String quote, String rate) {
    reference.upsertCurrencyRate(new ReferenceData.CurrencyRate(base, quote, new BigDecimal(rate), Instant.now()));
  }

  /** A terminal of its own and a connector of the shop to it; returns the terminal's id. */
  static long connector(KeyedShop shop, String terminal, String method, String currency, int priority, String max) {
    return connector(shop, terminal, method, currency, priority, max, List.of("DEPOSIT", "WITHDRAWAL", "REFUND"));
  }

  /** The same, with a terminal whose API does only {@code apiTypes}. */
  static long connector(KeyedShop shop, String terminal, String method, String currency, int priority, String max,
      List<String> apiTypes) {
    long id = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, terminal, "ACTIVE", "Sandbox",
        "SANDBOX", "Sandbox", apiTypes, Instant.now()));
    reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), id, null, "ACTIVE", method, currency,
        priority, 100, null, max == null ? null : new BigDecimal(max), null, null, null), Instant.now());
    return id;
  }

  static long card(KeyedShop shop, String terminal, String currency, int priority, String max) {
    return connector(shop, terminal, "BASIC_CARD", currency, priority, max);
  }

  static TestGateway.Answer patch(KeyedShop shop, String id) {
    TestGateway.Answer done = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + id))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"198.51.100.20\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + shop.key()));
    assertThat(done.status()).as(done.body()).isEqualTo(200);
    return done;
  }

  /** A card deposit paid host-to-host (POST, then PATCH); the payment after the PATCH. */
  static JsonNode pay(KeyedShop shop, String amount, String currency) {
    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":%s,"currency":"%s",
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}"""
        .formatted(amount, currency), shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return patch(shop, created.json().at("/result/id").asText()).json().get("result");
  }

  /** A withdrawal to the card, once the worker has paid it out or declined it. */
  static JsonNode withdraw(KeyedShop shop, String amount, String currency, String card) throws Exception {
    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"WITHDRAWAL","amount":%s,"currency":"%s",
         "card":{"cardNumber":"%s","expiryMonth":"12","expiryYear":"2045"}}"""
        .formatted(amount, currency, card), shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return gw.awaitStateOtherThan(created.json().at("/result/id").asText(), "PENDING", Duration.ofSeconds(15),
        shop.key());
  }

  /** A refund of the deposit, once the worker has sent it back or declined it. */
  static JsonNode refund(KeyedShop shop, JsonNode deposit, String amount) throws Exception {
    return refundIn(shop, deposit, amount, deposit.get("currency").asText());
  }

  /** The payment's operations, oldest first, as the merchant API shows them (with what each did and why). */
  static List<JsonNode> operations(KeyedShop shop, String id) {
    return gw.merchantOperations(shop.id(), id);
  }

  static JsonNode lastOperation(KeyedShop shop, JsonNode payment) {
    List<JsonNode> ops = operations(shop, payment.get("id").asText());
    return ops.get(ops.size() - 1);
  }

  /** The shop's ledger in the currency: {available, reserved}. */
  static BigDecimal[] ledger(KeyedShop shop, String currency) {
    return gw.ledgerSum(shop.id(), currency);
  }

  /** The merchant API names the terminal a payment went through by id too, as /terminals does. */
  @Test
  void the_merchant_api_gives_the_terminal_a_payment_went_through_by_id() {
    KeyedShop shop = shop("Terminal by id");
    long terminal = card(shop, "Terminal by id EUR", "EUR", 1, null);
    String id = pay(shop, "9.00", "EUR").get("id").asText();
    String[] user = gw.merchantUser(gw.merchant, "terminal-ids@shop.example");

    TestGateway.Answer listed = gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=1000"), user);
    assertThat(listed.status()).as(listed.body()).isEqualTo(200);
    JsonNode payment = null;
    for (JsonNode p : listed.json().get("result")) {
      if (p.get("id").asText().equals(id)) {
        payment = p;
      }
    }
    assertThat(payment).as(id + " in " + listed.body()).isNotNull();
    assertThat(payment.get("terminalName").asText()).isEqualTo("Terminal by id EUR");
    assertThat(payment.get("terminalId").asLong()).isEqualTo(terminal);

    // and each of its steps at a terminal, in the operations list
    TestGateway.Answer ops = gw.merchantGet(
        gw.sinceStarted("/merchant-api/v1/operations?limit=1000&operation.in=DEPOSIT"), user);
    JsonNode charge = null;
    for (JsonNode o : ops.json().get("result")) {
      if (o.get("paymentId").asText().equals(id)) {
        charge = o;
      }
    }
    assertThat(charge).as(id + " in " + ops.body()).isNotNull();
    assertThat(charge.get("terminalName").asText()).isEqualTo("Terminal by id EUR");
    assertThat(charge.get("terminalId").asLong()).isEqualTo(terminal);
  }

  // ---- the payment's currency first ---------------------------------------------------------

  @Test
  void a_payment_goes_to_a_connector_in_its_currency_before_a_higher_priority_one_that_would_convert_it() {
    KeyedShop shop = shop("Currency first");
    card(shop, "Currency first USD", "USD", 1, null);
    card(shop, "Currency first EUR", "EUR", 2, null);

    JsonNode eur = pay(shop, "50.00", "EUR");
    assertThat(eur.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(eur.get("terminalName").asText()).isEqualTo("Currency first EUR");
    assertThat(eur.get("currency").asText()).isEqualTo("EUR");
    assertThat(eur.get("amount").decimalValue()).isEqualByComparingTo("50.00");
    assertThat(eur.has("customerAmount")).as("nothing converted").isFalse();
    assertThat(ledger(shop, "EUR")[0]).isEqualByComparingTo("50.00");
    assertThat(ledger(shop, "USD")[0]).isEqualByComparingTo("0");
    // so it can be refunded in the currency the customer paid
    TestGateway.Answer refund = gw.post("/api/v1/payments", """
        {"paymentType":"REFUND","amount":50.00,"currency":"EUR","parentPaymentId":"%s"}"""
        .formatted(eur.get("id").asText()), shop.key(), null);
    assertThat(refund.status()).as(refund.body()).isEqualTo(200);

    JsonNode usd = pay(shop, "20.00", "USD");
    assertThat(usd.get("terminalName").asText()).isEqualTo("Currency first USD");
    // a currency no connector has goes to the best one that converts it
    JsonNode gbp = pay(shop, "10.00", "GBP");
    assertThat(gbp.get("terminalName").asText()).isEqualTo("Currency first USD");
    assertThat(gbp.get("amount").decimalValue()).isEqualByComparingTo("12.70");
    assertThat(gbp.get("customerCurrency").asText()).isEqualTo("GBP");
  }

  /**
   * A merchant refunds in the currency it charged in, though routing converted the deposit for
   * its terminal: the refund goes back through that terminal in its currency, at the deposit's
   * own rate, so that refunding all of what was asked takes back exactly what was charged.
   */
  @Test
  void a_converted_deposit_is_refunded_in_the_currency_it_was_asked_in_at_its_own_rate() throws Exception {
    KeyedShop shop = shop("Refund as asked");
    card(shop, "Refund as asked USD", "USD", 1, null);
    JsonNode deposit = pay(shop, "10.01", "GBP");
    assertThat(deposit.get("amount").decimalValue()).as("10.01 GBP at 1.27").isEqualByComparingTo("12.71");
    assertThat(deposit.get("currency").asText()).isEqualTo("USD");

    TestGateway.Answer wrong = askRefund(shop, deposit, "1.00", "EUR");
    assertThat(wrong.status()).isEqualTo(400);
    assertThat(wrong.body()).contains("must be the currency of the refunded deposit (USD, or GBP in which it was asked)");

    JsonNode first = refundIn(shop, deposit, "5.00", "GBP");
    assertThat(first.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(first.get("amount").decimalValue()).as("5.00 x 12.71 / 10.01 = 6.3487").isEqualByComparingTo("6.35");
    assertThat(first.get("currency").asText()).isEqualTo("USD");
    assertThat(first.get("customerAmount").decimalValue()).isEqualByComparingTo("5.00");
    assertThat(first.get("customerCurrency").asText()).isEqualTo("GBP");
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("6.36"), BigDecimal.ZERO);
    assertThat(ledger(shop, "GBP")).as("the deposit added USD, so the refund takes USD")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);

    TestGateway.Answer tooMuch = askRefund(shop, deposit, "5.02", "GBP");
    assertThat(tooMuch.status()).isEqualTo(400);
    assertThat(tooMuch.body()).contains("exceeds what is left to refund of the deposit (5.01 GBP, 6.36 USD as charged)");

    JsonNode rest = refundIn(shop, deposit, "5.01", "GBP");
    assertThat(rest.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(rest.get("amount").decimalValue()).as("all that was asked takes back all that was charged")
        .isEqualByComparingTo("6.36");
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    TestGateway.Answer more = askRefund(shop, deposit, "0.01", "USD");
    assertThat(more.status()).isEqualTo(400);
  }

  /**
   * Partial refunds in the currency a converted deposit was asked in add up to what was asked,
   * however each one would round on its own: each takes what all of them asked for is worth,
   * converted and rounded once, less what those before it took. Refunds of 2.50 GBP (3.1743 USD
   * each) take 3.17 and 3.18 in turn, where each rounded down to 3.17 left 0.03 USD for the last
   * 0.01 GBP; refunds of 1.10 GBP (1.3967 USD each) take 1.40 and 1.39 in turn, where each rounded
   * up to 1.40 left 0.11 USD for the last 0.11 GBP. Either way the last of what was asked takes
   * the last of what was charged, and what it is worth.
   */
  @Test
  void partial_refunds_as_asked_add_up_to_what_was_asked_whatever_each_rounds() throws Exception {
    KeyedShop shop = shop("Refunds add up");
    card(shop, "Refunds add up USD", "USD", 1, null);
    JsonNode down = pay(shop, "10.01", "GBP");
    for (String taken : List.of("3.17", "3.18", "3.17", "3.18")) {
      assertThat(refundIn(shop, down, "2.50", "GBP").get("amount").decimalValue()).isEqualByComparingTo(taken);
    }
    TestGateway.Answer past = askRefund(shop, down, "0.02", "GBP");
    assertThat(past.status()).as(past.body()).isEqualTo(400);
    assertThat(past.body()).contains("exceeds what is left to refund of the deposit (0.01 GBP, 0.01 USD as charged)");
    JsonNode last = refundIn(shop, down, "0.01", "GBP");
    assertThat(last.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(last.get("amount").decimalValue()).as("the last of what was asked takes the last of what was charged")
        .isEqualByComparingTo("0.01");

    JsonNode up = pay(shop, "10.01", "GBP");
    for (String taken : List.of("1.40", "1.39", "1.40", "1.40", "1.39", "1.40", "1.40", "1.39", "1.40")) {
      assertThat(refundIn(shop, up, "1.10", "GBP").get("amount").decimalValue()).isEqualByComparingTo(taken);
    }
    JsonNode rest = refundIn(shop, up, "0.11", "GBP");
    assertThat(rest.get("state").asText()).as(rest.toString()).isEqualTo("COMPLETED");
    assertThat(rest.get("amount").decimalValue()).as("0.11 GBP is worth 0.1397 USD").isEqualByComparingTo("0.14");
    assertThat(ledger(shop, "USD")).as("both deposits taken back whole")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /**
   * A refund asked in the currency a deposit charged in bitcoin was asked in takes back at least
   * the least amount, 0.00001 BTC, as a refund asked in bitcoin must, but for the remainder: half
   * a euro went back as 0.00000575 BTC, an amount the reference refuses.
   */
  @Test
  void a_refund_asked_in_euros_that_takes_back_less_than_the_least_bitcoin_is_refused() throws Exception {
    KeyedShop shop = shop("Refunds in bitcoin");
    rate("EUR", "BTC", "0.0000115");
    card(shop, "Refunds in bitcoin BTC", "BTC", 1, null);
    JsonNode deposit = pay(shop, "100.00", "EUR");
    assertThat(deposit.get("amount").decimalValue()).isEqualByComparingTo("0.00115");

    TestGateway.Answer half = askRefund(shop, deposit, "0.50", "EUR");
    assertThat(half.status()).as(half.body()).isEqualTo(400);
    assertThat(half.body()).contains("converts to 0.00000575 BTC").contains("0.00001");

    JsonNode all = refundIn(shop, deposit, "100.00", "EUR");
    assertThat(all.get("state").asText()).as(all.toString()).isEqualTo("COMPLETED");
    assertThat(all.get("amount").decimalValue()).isEqualByComparingTo("0.00115");
  }

  /**
   * Refunds in the currency a converted deposit was asked in, each worth less than a cent of the
   * currency it was charged in, add up to what they are worth together: 100 JPY charged as 0.67
   * USD is refunded 1 JPY at a time, each part taking what the parts so far are worth, rounded
   * once, less what they took, and a part that comes to nothing is refused with the least that
   * would take something. All 100 JPY take back exactly 0.67 USD. Before, each 1 JPY was
   * rounded on its own, up to 0.01 USD: the 0.67 USD was gone after 67 JPY, and the other 33 JPY
   * could not be refunded at all.
   */
  @Test
  void refunds_of_parts_worth_less_than_a_cent_add_up_to_what_was_asked() throws Exception {
    KeyedShop shop = shop("Refunds in yen");
    card(shop, "Refunds in yen USD", "USD", 1, null);
    JsonNode deposit = pay(shop, "100", "JPY");
    assertThat(deposit.get("amount").decimalValue()).as("100 JPY at 0.0067").isEqualByComparingTo("0.67");

    int asked = 0;
    BigDecimal back = BigDecimal.ZERO;
    List<String> refunds = new ArrayList<>();
    while (asked < 100) {
      String what = "after " + asked + " JPY refunded for " + back + " USD";
      TestGateway.Answer part = askRefund(shop, deposit, "1", "JPY");
      if (part.status() == 400) {
        assertThat(part.body()).as(what).contains("converts to nothing in the deposit's currency (USD)")
            .contains("refund at least 2 JPY");
        part = askRefund(shop, deposit, "2", "JPY");
      }
      assertThat(part.status()).as(what + ": " + part.body()).isEqualTo(200);
      JsonNode refund = part.json().get("result");
      asked += refund.get("customerAmount").intValue();
      back = back.add(refund.get("amount").decimalValue());
      assertThat(back).as("what " + asked + " JPY are worth, rounded once").isEqualByComparingTo(
          BigDecimal.valueOf(asked).multiply(new BigDecimal("0.0067")).setScale(2, java.math.RoundingMode.HALF_EVEN));
      refunds.add(refund.get("id").asText());
    }
    assertThat(back).isEqualByComparingTo("0.67");
    TestGateway.Answer more = askRefund(shop, deposit, "1", "JPY");
    assertThat(more.status()).isEqualTo(400);
    assertThat(more.body()).contains("exceeds what is left to refund of the deposit (0 JPY, 0.00 USD as charged)");
    for (String id : refunds) {
      assertThat(gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(15), shop.key()).get("state").asText())
          .isEqualTo("COMPLETED");
    }
    assertThat(ledger(shop, "USD")).as("the deposit taken back whole").usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /**
   * A pre-authorization converted for its terminal is captured in the currency the merchant
   * asked in, when it says so, at the payment's own rate; without a currency the amount is the
   * authorized one's, as the reference has it, and any other currency is refused, changing nothing.
   */
  @Test
  void a_converted_preauth_is_captured_in_the_currency_it_was_asked_in_when_the_merchant_says_so() {
    KeyedShop shop = shop("Capture as asked");
    card(shop, "Capture as asked USD", "USD", 1, null);
    java.util.function.Supplier<JsonNode> authorize = () -> {
      TestGateway.Answer created = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":10.01,"currency":"GBP","preAuth":true,
           "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""", shop.key(), null);
      assertThat(created.status()).as(created.body()).isEqualTo(200);
      JsonNode authorized = patch(shop, created.json().at("/result/id").asText()).json().get("result");
      assertThat(authorized.get("state").asText()).isEqualTo("AUTHORIZED");
      assertThat(authorized.get("amount").decimalValue()).as("10.01 GBP at 1.27").isEqualByComparingTo("12.71");
      return authorized;
    };
    java.util.function.BiFunction<JsonNode, String, TestGateway.Answer> capture = (payment, body) ->
        gw.post("/api/v1/payments/" + payment.get("id").asText() + "/capture", body, shop.key(), null);

    JsonNode first = authorize.get();
    for (String refused : new String[] {"{\"amount\":5,\"currency\":\"EUR\"}", "{\"amount\":10.02,\"currency\":\"GBP\"}",
        "{\"amount\":5.001,\"currency\":\"GBP\"}"}) {
      TestGateway.Answer answer = capture.apply(first, refused);
      assertThat(answer.status()).as(refused + ": " + answer.body()).isEqualTo(400);
    }
    assertThat(capture.apply(first, "{\"amount\":5,\"currency\":\"EUR\"}").body())
        .contains("must be the currency the payment was authorized in (USD, or GBP in which it was asked)");
    assertThat(gw.get("/api/v1/payments/" + first.get("id").asText(), shop.key()).json().at("/result/state").asText())
        .as("nothing changed").isEqualTo("AUTHORIZED");

    TestGateway.Answer half = capture.apply(first, "{\"amount\":5.00,\"currency\":\"GBP\"}");
    assertThat(half.status()).as(half.body()).isEqualTo(200);
    JsonNode captured = half.json().get("result");
    assertThat(captured.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(captured.get("amount").decimalValue()).as("5.00 x 12.71 / 10.01 = 6.3487").isEqualByComparingTo("6.35");
    assertThat(captured.get("currency").asText()).isEqualTo("USD");
    assertThat(captured.get("customerAmount").decimalValue()).isEqualByComparingTo("5.00");
    assertThat(captured.get("customerCurrency").asText()).isEqualTo("GBP");

    JsonNode whole = authorize.get();
    JsonNode all = capture.apply(whole, "{\"amount\":10.01,\"currency\":\"GBP\"}").json().get("result");
    assertThat(all.get("amount").decimalValue()).as("all that was asked is all that was authorized")
        .isEqualByComparingTo("12.71");
    assertThat(all.get("customerAmount").decimalValue()).isEqualByComparingTo("10.01");

    JsonNode plain = authorize.get();
    JsonNode inUsd = capture.apply(plain, "{\"amount\":6.00}").json().get("result");
    assertThat(inUsd.get("amount").decimalValue()).as("no currency: the authorized one's").isEqualByComparingTo("6.00");
    assertThat(inUsd.get("currency").asText()).isEqualTo("USD");
  }

  static TestGateway.Answer askRefund(KeyedShop shop, JsonNode deposit, String amount, String currency) {
    return gw.post("/api/v1/payments", """
        {"paymentType":"REFUND","amount":%s,"currency":"%s","parentPaymentId":"%s"}"""
        .formatted(amount, currency, deposit.get("id").asText()), shop.key(), null);
  }

  /** A refund of the deposit in the currency, once the worker has sent it back or declined it. */
  static JsonNode refundIn(KeyedShop shop, JsonNode deposit, String amount, String currency) throws Exception {
    TestGateway.Answer created = askRefund(shop, deposit, amount, currency);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return gw.awaitStateOtherThan(created.json().at("/result/id").asText(), "PENDING", Duration.ofSeconds(15),
        shop.key());
  }

  // ---- connectors that cannot take the payment ---------------------------------------------

  @Test
  void a_connector_whose_maximum_the_payment_exceeds_is_passed_over_for_the_next_one() {
    KeyedShop shop = shop("Limits");
    card(shop, "Limits small", "EUR", 1, "100");
    card(shop, "Limits large", "EUR", 2, null);

    JsonNode p = pay(shop, "200.00", "EUR");
    assertThat(p.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(p.get("terminalName").asText()).isEqualTo("Limits large");
    assertThat(operations(shop, p.get("id").asText())).extracting(o -> o.get("operation").asText())
        .containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT");
    assertThat(lastOperation(shop, p).get("rawPaymentData").asText())
        .contains("via terminal Limits large").contains("200.00 EUR is outside the limits of terminal Limits small");
    assertThat(pay(shop, "100.00", "EUR").get("terminalName").asText()).isEqualTo("Limits small");
  }

  /**
   * A payout is routed in a step of its own, committed before its terminal is asked; when it
   * passed connectors over, that step is a CASCADING operation saying why, which the worker
   * paying it later could no longer tell.
   */
  @Test
  void a_payout_routed_past_a_connector_says_why_in_its_routing_step() throws Exception {
    KeyedShop shop = shop("Payout limits");
    card(shop, "Payout limits small", "EUR", 1, "100");
    card(shop, "Payout limits large", "EUR", 2, null);
    pay(shop, "300.00", "EUR");

    JsonNode large = withdraw(shop, "200.00", "EUR", "4000000000000408");
    assertThat(large.get("state").asText()).as(large.toString()).isEqualTo("COMPLETED");
    assertThat(large.get("terminalName").asText()).isEqualTo("Payout limits large");
    List<JsonNode> ops = operations(shop, large.get("id").asText());
    assertThat(ops).extracting(o -> o.get("operation").asText())
        .containsExactly("CREATE_PAYMENT", "CASCADING", "WITHDRAWAL");
    assertThat(ops.get(1).get("rawPaymentData").asText()).contains("routed via terminal Payout limits large")
        .contains("passed over: 200.00 EUR is outside the limits of terminal Payout limits small");
    assertThat(ops.get(1).has("errorCode")).as("nothing declined it").isFalse();

    JsonNode small = withdraw(shop, "50.00", "EUR", "4000000000000408");
    assertThat(small.get("terminalName").asText()).isEqualTo("Payout limits small");
    assertThat(operations(shop, small.get("id").asText())).extracting(o -> o.get("operation").asText())
        .containsExactly("CREATE_PAYMENT", "WITHDRAWAL");
  }

  @Test
  void a_connector_without_a_rate_for_the_payments_currency_is_passed_over_for_one_with_a_rate() {
    KeyedShop shop = shop("Rates");
    card(shop, "Rates USD", "USD", 1, null);
    card(shop, "Rates EUR", "EUR", 2, null);

    JsonNode p = pay(shop, "10000", "HUF");
    assertThat(p.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(p.get("terminalName").asText()).isEqualTo("Rates EUR");
    assertThat(p.get("amount").decimalValue()).isEqualByComparingTo("25.00");
    assertThat(p.get("currency").asText()).isEqualTo("EUR");
  }

  @Test
  void a_payment_no_connector_can_take_is_declined_with_the_best_connectors_refusal_and_every_reason() {
    KeyedShop shop = shop("Nobody");
    card(shop, "Nobody small EUR", "EUR", 1, "100");
    card(shop, "Nobody CHF", "CHF", 2, null);

    JsonNode p = pay(shop, "200.00", "EUR");
    assertThat(p.get("state").asText()).isEqualTo("DECLINED");
    assertThat(p.get("errorCode").asText()).isEqualTo("1.08");
    assertThat(p.has("externalId")).as("no processor was called").isFalse();
    JsonNode decline = lastOperation(shop, p);
    assertThat(decline.get("operation").asText()).isEqualTo("DEPOSIT");
    assertThat(decline.get("rawPaymentData").asText()).contains("no connector can take the payment")
        .contains("200.00 EUR is outside the limits of terminal Nobody small EUR")
        .contains("no EUR to CHF rate for terminal Nobody CHF");
  }

  /**
   * A card verification (a pre-authorization of 0, as CONTRACT section 2 offers it) moves no
   * money, so a connector's smallest amount does not keep it from verifying the card: it was
   * declined 1.08 by any connector that set one. A payment of an amount is still held to it.
   */
  @Test
  void a_card_verification_goes_through_a_connector_with_a_minimum_amount() {
    KeyedShop shop = shop("Verification");
    long terminal = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Verification EUR", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT"), Instant.now()));
    reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), terminal, null, "ACTIVE", "BASIC_CARD",
        "EUR", 1, 100, new BigDecimal("1.00"), null, null, null, null), Instant.now());

    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":0,"currency":"EUR","preAuth":true,
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""", shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    JsonNode verified = patch(shop, created.json().at("/result/id").asText()).json().get("result");
    assertThat(verified.get("state").asText()).as(verified.toString()).isEqualTo("AUTHORIZED");
    assertThat(verified.get("terminalName").asText()).isEqualTo("Verification EUR");
    assertThat(verified.get("amount").decimalValue()).isEqualByComparingTo("0");

    JsonNode small = pay(shop, "0.50", "EUR");
    assertThat(small.get("state").asText()).isEqualTo("DECLINED");
    assertThat(small.get("errorCode").asText()).isEqualTo("1.08");
  }

  @Test
  void a_bank_transfer_the_first_connector_cannot_take_opens_on_the_next_one() {
    KeyedShop shop = shop("Transfers");
    connector(shop, "Transfers small", "BANKTRANSFER", "EUR", 1, "100");
    connector(shop, "Transfers large", "BANKTRANSFER", "EUR", 2, null);
    TestGateway.Answer created = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"paymentMethod\":\"BANKTRANSFER\",\"amount\":300.00,\"currency\":\"EUR\"}",
        shop.key(), null);
    JsonNode p = patch(shop, created.json().at("/result/id").asText()).json().get("result");
    assertThat(p.get("state").asText()).isEqualTo("PENDING");
    assertThat(p.get("terminalName").asText()).isEqualTo("Transfers large");
  }

  @Test
  void an_amount_that_converts_to_nothing_is_not_charged_and_the_next_connector_takes_it() {
    KeyedShop shop = shop("Dong");
    card(shop, "Dong USD", "USD", 1, null);
    card(shop, "Dong JPY", "JPY", 2, null);
    // 100 VND x 0.000039 = 0.0039 USD, 0.00 at two decimals; x 0.0061 = 0.61 JPY, 1 yen
    JsonNode p = pay(shop, "100", "VND");
    assertThat(p.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(p.get("terminalName").asText()).isEqualTo("Dong JPY");
    assertThat(p.get("amount").decimalValue()).isEqualByComparingTo("1");
    assertThat(lastOperation(shop, p).get("rawPaymentData").asText()).contains("100 VND converts to 0.00 USD");

    KeyedShop dollarsOnly = shop("Dong dollars only");
    card(dollarsOnly, "Dong dollars only USD", "USD", 1, null);
    JsonNode refused = pay(dollarsOnly, "100", "VND");
    assertThat(refused.get("state").asText()).isEqualTo("DECLINED");
    assertThat(refused.get("errorCode").asText()).isEqualTo("1.08");
    assertThat(ledger(dollarsOnly, "USD")[0]).isEqualByComparingTo("0");
  }

  // ---- connectors that are off -------------------------------------------------------------

  @Test
  void a_shop_whose_only_terminal_is_disabled_declines_1_05_instead_of_using_the_sandbox_terminal() throws Exception {
    KeyedShop shop = shop("Disabled terminal");
    long terminal = card(shop, "Disabled terminal T", "EUR", 1, null);
    // no command disables a terminal yet; done before the shop's first payment, so no cache holds it
    gw.database.jdbi().useHandle(h -> h.execute("UPDATE terminals SET state = 'DISABLED' WHERE id = ?", terminal));

    JsonNode p = pay(shop, "10.00", "EUR");
    assertThat(p.get("state").asText()).isEqualTo("DECLINED");
    assertThat(p.get("errorCode").asText()).isEqualTo("1.05");
    assertThat(p.path("terminalName").asText()).isNotEqualTo("Sandbox Acquirer");
    assertThat(ledger(shop, "EUR")[0]).isEqualByComparingTo("0");

    JsonNode w = withdraw(shop, "5.00", "EUR", "4000000000000408");
    assertThat(w.get("state").asText()).isEqualTo("DECLINED");
    assertThat(w.get("errorCode").asText()).isEqualTo("1.05");
    assertThat(ledger(shop, "EUR")).as("the withdrawal's reservation released")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  @Test
  void a_shop_whose_only_connector_is_inactive_declines_1_05() {
    KeyedShop shop = shop("Inactive connector");
    card(shop, "Inactive connector T", "EUR", 1, null);
    gw.database.jdbi().useHandle(h -> h.execute("UPDATE connectors SET state = 'INACTIVE' WHERE shop_id = ?",
        shop.id().value()));
    JsonNode p = pay(shop, "10.00", "EUR");
    assertThat(p.get("errorCode").asText()).isEqualTo("1.05");
    assertThat(lastOperation(shop, p).get("rawPaymentData").asText()).contains("no active connector");
  }

  // ---- what a terminal's API does ----------------------------------------------------------

  @Test
  void a_terminal_whose_api_does_not_pay_out_is_passed_over_for_withdrawals_and_still_takes_deposits()
      throws Exception {
    KeyedShop shop = shop("Api types");
    connector(shop, "Api types deposits", "BASIC_CARD", "EUR", 1, null, List.of("DEPOSIT", "BALANCE"));
    connector(shop, "Api types payouts", "BASIC_CARD", "EUR", 2, null, List.of("WITHDRAWAL"));

    JsonNode deposit = pay(shop, "10.00", "EUR");
    assertThat(deposit.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(deposit.get("terminalName").asText()).isEqualTo("Api types deposits");

    JsonNode payout = withdraw(shop, "4.00", "EUR", "4000000000000408");
    assertThat(payout.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(payout.get("terminalName").asText()).isEqualTo("Api types payouts");
  }

  @Test
  void a_payment_whose_type_no_terminal_of_the_shop_takes_is_declined_1_05() throws Exception {
    KeyedShop deposits = shop("Deposits only");
    connector(deposits, "Deposits only T", "BASIC_CARD", "EUR", 1, null, List.of("DEPOSIT"));
    JsonNode payout = withdraw(deposits, "5.00", "EUR", "4000000000000408");
    assertThat(payout.get("state").asText()).isEqualTo("DECLINED");
    assertThat(payout.get("errorCode").asText()).isEqualTo("1.05");
    assertThat(payout.has("externalId")).as("no processor was called").isFalse();
    assertThat(lastOperation(deposits, payout).get("rawPaymentData").asText()).contains("takes WITHDRAWAL");
    assertThat(ledger(deposits, "EUR")).as("the withdrawal's reservation released")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);

    KeyedShop payouts = shop("Payouts only");
    connector(payouts, "Payouts only T", "BASIC_CARD", "EUR", 1, null, List.of("WITHDRAWAL", "REFUND"));
    JsonNode deposit = pay(payouts, "10.00", "EUR");
    assertThat(deposit.get("state").asText()).isEqualTo("DECLINED");
    assertThat(deposit.get("errorCode").asText()).isEqualTo("1.05");
  }

  @Test
  void a_refund_of_a_deposit_whose_terminal_does_not_take_refunds_is_declined_1_05_and_moves_no_money()
      throws Exception {
    KeyedShop shop = shop("No refunds");
    connector(shop, "No refunds T", "BASIC_CARD", "EUR", 1, null, List.of("DEPOSIT", "WITHDRAWAL"));
    JsonNode deposit = pay(shop, "30.00", "EUR");
    assertThat(deposit.get("state").asText()).isEqualTo("COMPLETED");

    JsonNode refund = refund(shop, deposit, "30.00");
    assertThat(refund.get("state").asText()).isEqualTo("DECLINED");
    assertThat(refund.get("errorCode").asText()).isEqualTo("1.05");
    assertThat(refund.has("externalId")).as("no processor was called").isFalse();
    JsonNode declined = lastOperation(shop, refund);
    assertThat(declined.get("operation").asText()).isEqualTo("REFUND");
    assertThat(declined.get("rawPaymentData").asText())
        .contains("terminal No refunds T of the deposit does not take REFUND payments");
    assertThat(ledger(shop, "EUR")).as("the deposit's 30.00, the refund's reservation released")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("30.00"), BigDecimal.ZERO);

    // nothing of the deposit was used up: it can still be refunded in full
    assertThat(refund(shop, deposit, "30.00").get("errorCode").asText()).isEqualTo("1.05");
    assertThat(ledger(shop, "EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("30.00"), BigDecimal.ZERO);

    KeyedShop refunding = shop("Refunds");
    connector(refunding, "Refunds T", "BASIC_CARD", "EUR", 1, null, List.of("DEPOSIT", "REFUND"));
    JsonNode sentBack = refund(refunding, pay(refunding, "30.00", "EUR"), "30.00");
    assertThat(sentBack.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(ledger(refunding, "EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /**
   * Routing reads a terminal's API types with its connectors, so an operator's change reaches
   * the connectors made before it, in a running server within five seconds.
   */
  @Test
  void api_types_changed_on_the_command_line_route_the_terminals_existing_connectors_within_five_seconds()
      throws Exception {
    KeyedShop shop = shop("Switched");
    java.util.Map<String, String> env = gw.commandLineEnvironment();
    CommandLineRun created = CommandLineRun.of(env, "terminal", "create", "--merchant",
        String.valueOf(gw.merchant.value()), "--name", "Switched T");
    String terminal = created.out().replaceAll("(?s).*terminal (\\d+) created.*", "$1");
    CommandLineRun connector = CommandLineRun.of(env, "connector", "create", "--shop",
        String.valueOf(shop.id().value()), "--terminal", terminal, "--currency", "EUR");
    assertThat(connector.exit()).as(connector.err()).isZero();
    assertThat(pay(shop, "10.00", "EUR").get("state").asText()).isEqualTo("COMPLETED");

    CommandLineRun removed = CommandLineRun.of(env, "terminal", "set-api-types", "--terminal", terminal,
        "--api-types", "withdrawal, REFUND");
    assertThat(removed.exit()).as(removed.err()).isZero();
    assertThat(removed.out()).contains("terminal " + terminal + " now has API types WITHDRAWAL,REFUND");
    JsonNode declined = within5Seconds(() -> pay(shop, "10.00", "EUR"), p -> p.get("state").asText().equals("DECLINED"));
    assertThat(declined.get("errorCode").asText()).isEqualTo("1.05");
    assertThat(lastOperation(shop, declined).get("rawPaymentData").asText()).contains("takes DEPOSIT");

    assertThat(CommandLineRun.of(env, "terminal", "set-api-types", "--terminal", terminal, "--api-types",
        "DEPOSIT,WITHDRAWAL,REFUND").exit()).isZero();
    JsonNode completed = within5Seconds(() -> pay(shop, "10.00", "EUR"),
        p -> p.get("state").asText().equals("COMPLETED"));
    assertThat(completed.get("terminalName").asText()).isEqualTo("Switched T");
  }

  /** The first answer that passes, asked again until five seconds (and a little) have passed. */
  static JsonNode within5Seconds(java.util.function.Supplier<JsonNode> ask,
      java.util.function.Predicate<JsonNode> passes) throws InterruptedException {
    long start = System.nanoTime();
    while (true) {
      JsonNode answer = ask.get();
      if (passes.test(answer)) {
        return answer;
      }
      if (System.nanoTime() - start > Duration.ofMillis(5_500).toNanos()) {
        throw new AssertionError("not within five seconds: " + answer);
      }
      Thread.sleep(200);
    }
  }

  // ---- withdrawals -------------------------------------------------------------------------

  @Test
  void a_withdrawal_goes_to_a_connector_in_its_currency_and_within_its_limits() throws Exception {
    KeyedShop shop = shop("Payout routing");
    card(shop, "Payout routing USD", "USD", 1, "100");
    card(shop, "Payout routing EUR", "EUR", 2, "400");

    JsonNode eur = withdraw(shop, "30.00", "EUR", "4000000000000408");
    assertThat(eur.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(eur.get("terminalName").asText()).as("its currency before priority").isEqualTo("Payout routing EUR");

    JsonNode small = withdraw(shop, "50.00", "USD", "4000000000000408");
    assertThat(small.get("terminalName").asText()).isEqualTo("Payout routing USD");

    // over the USD connector's maximum: converted for the next one, 500.00 x 0.9217 (the sandbox rate)
    JsonNode converted = withdraw(shop, "300.00", "USD", "4000000000000408");
    assertThat(converted.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(converted.get("terminalName").asText()).isEqualTo("Payout routing EUR");
    assertThat(converted.get("amount").decimalValue()).isEqualByComparingTo("276.51");
    assertThat(converted.get("currency").asText()).isEqualTo("EUR");

    // over both maximums (500.00 USD is 460.85 EUR)
    JsonNode large = withdraw(shop, "500.00", "USD", "4000000000000408");
    assertThat(large.get("state").asText()).isEqualTo("DECLINED");
    assertThat(large.get("errorCode").asText()).as("the refusal of the USD connector").isEqualTo("1.08");
    assertThat(large.has("externalId")).as("no processor was called").isFalse();
    assertThat(lastOperation(shop, large).get("rawPaymentData").asText())
        .contains("500.00 USD is outside the limits of terminal Payout routing USD")
        .contains("460.85 EUR is outside the limits of terminal Payout routing EUR");
    assertThat(ledger(shop, "USD")).as("the 50.00 paid out, the 300.00 moved to EUR, the 500.00 released")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("-50.00"), BigDecimal.ZERO);
    assertThat(ledger(shop, "EUR")).as("the 30.00, and the 300.00 USD paid out of EUR as 276.51")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("-306.51"), BigDecimal.ZERO);
  }

  @Test
  void a_withdrawal_in_a_currency_no_connector_has_is_converted_and_paid_out_of_the_terminals_currency()
      throws Exception {
    KeyedShop shop = shop("Payout conversion");
    card(shop, "Payout conversion USD", "USD", 1, null);

    JsonNode paid = withdraw(shop, "5.00", "GBP", "4000000000000408");
    assertThat(paid.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(paid.get("terminalName").asText()).isEqualTo("Payout conversion USD");
    assertThat(paid.get("amount").decimalValue()).isEqualByComparingTo("6.35");
    assertThat(paid.get("currency").asText()).isEqualTo("USD");
    assertThat(paid.get("customerAmount").decimalValue()).isEqualByComparingTo("5.00");
    assertThat(paid.get("customerCurrency").asText()).isEqualTo("GBP");
    assertThat(ledger(shop, "USD")).as("paid out of the dollars its terminal paid")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("-6.35"), BigDecimal.ZERO);
    assertThat(ledger(shop, "GBP")).as("the pounds it held until routed given back")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);

    // declined by the issuer after conversion: the USD it held there is released
    JsonNode declined = withdraw(shop, "7.00", "GBP", "4000000000000416");
    assertThat(declined.get("state").asText()).isEqualTo("DECLINED");
    assertThat(declined.get("currency").asText()).isEqualTo("USD");
    assertThat(ledger(shop, "GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-6.35"), BigDecimal.ZERO);
    JsonNode balances = gw.get("/api/v1/balances", shop.key()).json().get("result");
    assertThat(balances.findValuesAsText("currency")).contains("GBP", "USD");
  }

  /**
   * The money review's F1: a deposit and a withdrawal asked in one currency and converted by the
   * same terminal both book in the currency the terminal charged and paid, so they net out there;
   * before, the deposit credited USD and the withdrawal took GBP the shop never had.
   */
  @Test
  void a_converted_deposit_and_a_converted_withdrawal_through_one_terminal_net_out_in_its_currency()
      throws Exception {
    KeyedShop shop = shop("Payout nets out");
    card(shop, "Payout nets out USD", "USD", 1, null);

    JsonNode deposit = pay(shop, "10.00", "GBP");
    assertThat(deposit.get("amount").decimalValue()).isEqualByComparingTo("12.70");
    JsonNode payout = withdraw(shop, "10.00", "GBP", "4000000000000408");
    assertThat(payout.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(payout.get("amount").decimalValue()).isEqualByComparingTo("12.70");

    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    assertThat(ledger(shop, "GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /**
   * A shop that checks its withdrawals' balance has the currency a withdrawal is asked in
   * checked when it is created, and the currency of the terminal that would pay it converted
   * when it is routed there: a connector whose currency's balance cannot pay it is passed over
   * (1.10), and when none is left the withdrawal is declined 1.10, holding nothing anywhere.
   */
  @Test
  void a_checking_shop_passes_over_a_connector_whose_currency_cannot_pay_the_converted_withdrawal()
      throws Exception {
    KeyedShop shop = gw.keyedShop("Payout funds", true);
    connector(shop, "Payout funds GBP in", "BASIC_CARD", "GBP", 1, null, List.of("DEPOSIT"));
    card(shop, "Payout funds EUR", "EUR", 1, null);
    card(shop, "Payout funds USD", "USD", 2, null);
    pay(shop, "4.00", "GBP");
    pay(shop, "2.00", "EUR");
    pay(shop, "5.00", "USD");

    JsonNode paid = withdraw(shop, "3.00", "GBP", "4000000000000408");
    assertThat(paid.get("state").asText()).as(paid.toString()).isEqualTo("COMPLETED");
    assertThat(paid.get("terminalName").asText()).as("3.51 EUR is more than the 2.00 the shop has")
        .isEqualTo("Payout funds USD");
    assertThat(paid.get("amount").decimalValue()).isEqualByComparingTo("3.81");
    assertThat(operations(shop, paid.get("id").asText())).as("the step routing it past the euros says why")
        .filteredOn(o -> o.get("operation").asText().equals("CASCADING")).singleElement()
        .satisfies(o -> assertThat(o.get("rawPaymentData").asText()).contains("routed via terminal Payout funds USD")
            .contains("passed over: Check Withdrawal Balance: 2 EUR available, 3.51 EUR to pay out for terminal "
                + "Payout funds EUR"));
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("1.19"), BigDecimal.ZERO);

    JsonNode declined = withdraw(shop, "3.00", "GBP", "4000000000000408");
    assertThat(declined.get("state").asText()).isEqualTo("DECLINED");
    assertThat(declined.get("errorCode").asText()).isEqualTo("1.10");
    assertThat(lastOperation(shop, declined).get("rawPaymentData").asText())
        .contains("Check Withdrawal Balance: 2 EUR available, 3.51 EUR to pay out for terminal Payout funds EUR")
        .contains("Check Withdrawal Balance: 1.19 USD available, 3.81 USD to pay out for terminal Payout funds USD");
    assertThat(ledger(shop, "GBP")).as("the pounds it held at creation given back")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("4.00"), BigDecimal.ZERO);
    assertThat(ledger(shop, "EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("2.00"), BigDecimal.ZERO);
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("1.19"), BigDecimal.ZERO);
  }

  /**
   * A withdrawal of a checking shop that paid out only converted when it was created (its
   * currency unchecked then, and holding nothing) meets a connector in that currency by the time
   * it is routed: that connector is checked for all of it and passed over (1.10), the shop having
   * nothing in that currency, and the payout is paid where the balance can pay it, converted.
   * Before, it was paid out of the balance below zero, the check never made.
   */
  @Test
  void a_withdrawal_unchecked_at_creation_is_checked_in_full_where_a_connector_in_its_currency_would_pay_it()
      throws Exception {
    io.tollgate.domain.shop.ShopId id = gw.createShop(gw.merchant, "Payout late pounds", true, true, null);
    KeyedShop shop = new KeyedShop(id, gw.issueKey(id, gw.app.services().environment()));
    card(shop, "Payout late pounds USD", "USD", 2, null);
    pay(shop, "10.00", "GBP");
    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"WITHDRAWAL","amount":5.00,"currency":"GBP",
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""", shop.key(), null);
    assertThat(created.json().at("/result/state").asText()).as(created.body()).isEqualTo("AWAITING_APPROVAL");
    String payout = created.json().at("/result/id").asText();
    assertThat(ledger(shop, "GBP")).as("unchecked, and holding nothing").usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);

    card(shop, "Payout late pounds GBP", "GBP", 1, null);
    assertThat(gw.post("/api/v1/payments/" + payout + "/approve", "", shop.key(), null).status()).isEqualTo(200);
    JsonNode paid = gw.awaitStateOtherThan(payout, "PENDING", Duration.ofSeconds(15), shop.key());
    assertThat(paid.get("state").asText()).as(paid.toString()).isEqualTo("COMPLETED");
    assertThat(paid.get("terminalName").asText()).isEqualTo("Payout late pounds USD");
    assertThat(paid.get("amount").decimalValue()).isEqualByComparingTo("6.35");
    assertThat(operations(shop, payout)).filteredOn(o -> o.get("operation").asText().equals("CASCADING"))
        .singleElement().satisfies(o -> assertThat(o.get("rawPaymentData").asText())
            .contains("Check Withdrawal Balance: 0 GBP available, ")
            .contains(" GBP to pay out for terminal Payout late pounds GBP"));
    assertThat(ledger(shop, "GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("6.35"), BigDecimal.ZERO);
  }

  /**
   * A checking shop whose only payout terminal pays in USD has its GBP deposits credited in USD
   * and nothing in GBP: a GBP withdrawal is checked where it is paid, in USD, and neither
   * declined for the GBP it is asked in nor holding any of it until it is routed.
   */
  @Test
  void a_checking_shop_that_pays_out_only_converted_has_withdrawals_checked_where_they_are_paid()
      throws Exception {
    KeyedShop shop = gw.keyedShop("Payout converted only", true);
    card(shop, "Payout converted only USD", "USD", 1, null);
    pay(shop, "10.00", "GBP");

    JsonNode paid = withdraw(shop, "5.00", "GBP", "4000000000000408");
    assertThat(paid.get("state").asText()).as(paid.toString()).isEqualTo("COMPLETED");
    assertThat(paid.get("amount").decimalValue()).isEqualByComparingTo("6.35");

    JsonNode declined = withdraw(shop, "6.00", "GBP", "4000000000000408");
    assertThat(declined.get("state").asText()).isEqualTo("DECLINED");
    assertThat(declined.get("errorCode").asText()).isEqualTo("1.10");
    assertThat(lastOperation(shop, declined).get("rawPaymentData").asText())
        .contains("Check Withdrawal Balance: 6.35 USD available, 7.62 USD to pay out");
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("6.35"), BigDecimal.ZERO);
    assertThat(ledger(shop, "GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /**
   * A connector in the currency asked whose limits leave the withdrawal out cannot pay it: the
   * withdrawal was checked in that currency as if it could, and a shop whose deposits were all
   * credited in USD had it declined 1.10 at creation, though routing would pass that connector
   * over (1.08) and pay it converted out of the USD it has. One within the limits still has it
   * checked in the currency asked.
   */
  @Test
  void a_connector_in_the_currency_asked_whose_limits_leave_the_withdrawal_out_does_not_have_it_checked_there()
      throws Exception {
    KeyedShop shop = gw.keyedShop("Small GBP payouts", true);
    connector(shop, "Small GBP payouts GBP", "BASIC_CARD", "GBP", 1, "3.00", List.of("WITHDRAWAL"));
    card(shop, "Small GBP payouts USD", "USD", 2, null);
    pay(shop, "10.00", "GBP");

    JsonNode converted = withdraw(shop, "5.00", "GBP", "4000000000000408");
    assertThat(converted.get("state").asText()).as(converted.toString()).isEqualTo("COMPLETED");
    assertThat(converted.get("currency").asText()).isEqualTo("USD");
    assertThat(converted.get("amount").decimalValue()).isEqualByComparingTo("6.35");

    JsonNode small = withdraw(shop, "2.00", "GBP", "4000000000000408");
    assertThat(small.get("state").asText()).as("the GBP connector would pay it, out of no GBP")
        .isEqualTo("DECLINED");
    assertThat(small.get("errorCode").asText()).isEqualTo("1.10");
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("6.35"), BigDecimal.ZERO);

    // the same with a minimum the withdrawal is below
    KeyedShop large = gw.keyedShop("Large GBP payouts", true);
    long terminal = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Large GBP payouts GBP",
        "ACTIVE", "Sandbox", "SANDBOX", "Sandbox", List.of("WITHDRAWAL"), Instant.now()));
    reference.createConnector(new ReferenceData.Connector(0, large.id().value(), terminal, null, "ACTIVE", "BASIC_CARD",
        "GBP", 1, 100, new BigDecimal("10.00"), null, null, null, null), Instant.now());
    card(large, "Large GBP payouts USD", "USD", 2, null);
    pay(large, "10.00", "GBP");
    JsonNode below = withdraw(large, "5.00", "GBP", "4000000000000408");
    assertThat(below.get("state").asText()).as(below.toString()).isEqualTo("COMPLETED");
    assertThat(below.get("currency").asText()).isEqualTo("USD");
  }

  /**
   * A checking shop's card withdrawal that only a USD terminal can pay, asked in EUR, is not
   * checked in EUR, and holds no euros while it awaits approval: holding them took the EUR
   * balance far below zero, and every withdrawal checked in EUR meanwhile (a bank withdrawal
   * approved before it, a new one) was declined 1.10, for as long as it waited. It is checked
   * and held in USD when it is routed; declined there, or rejected, it gives back nothing in EUR.
   */
  @Test
  void a_withdrawal_paid_converted_holds_nothing_while_it_awaits_approval() throws Exception {
    io.tollgate.domain.shop.ShopId id = gw.createShop(gw.merchant, "Payout held where paid", true, true, null);
    KeyedShop shop = new KeyedShop(id, gw.issueKey(id, gw.app.services().environment()));
    connector(shop, "Payout held where paid EUR in", "BASIC_CARD", "EUR", 1, null, List.of("DEPOSIT"));
    card(shop, "Payout held where paid USD", "USD", 1, null);
    connector(shop, "Payout held where paid bank EUR", "BANKTRANSFER", "EUR", 1, null);
    pay(shop, "100.00", "EUR");
    pay(shop, "1000.00", "USD");

    String bank = awaitingApproval(shop, bankWithdrawal("50.00"));
    String card = awaitingApproval(shop, cardWithdrawal("500.00"));
    assertThat(ledger(shop, "EUR")).as("the card withdrawal, to be paid in USD, holds no euros")
        .usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("50.00"), new BigDecimal("50.00"));
    assertThat(withdrawable(shop, "EUR")).isEqualByComparingTo("50.00");
    String another = awaitingApproval(shop, bankWithdrawal("30.00"));

    JsonNode paid = approved(shop, bank);
    assertThat(paid.get("state").asText()).as(paid.toString()).isEqualTo("COMPLETED");
    JsonNode converted = approved(shop, card);
    assertThat(converted.get("state").asText()).as(converted.toString()).isEqualTo("COMPLETED");
    assertThat(converted.get("amount").decimalValue()).isEqualByComparingTo("542.50");
    assertThat(converted.get("currency").asText()).isEqualTo("USD");
    // 2,170.00 USD converted, more than the 457.50 USD left: declined where it would be paid
    JsonNode tooMuch = approved(shop, awaitingApproval(shop, cardWithdrawal("2000.00")));
    assertThat(tooMuch.get("state").asText()).as(tooMuch.toString()).isEqualTo("DECLINED");
    assertThat(tooMuch.get("errorCode").asText()).isEqualTo("1.10");
    String rejected = awaitingApproval(shop, cardWithdrawal("20.00"));
    TestGateway.Answer rejection = gw.post("/api/v1/payments/" + rejected + "/reject", "{\"rejectReason\":\"KYC\"}",
        shop.key(), null);
    assertThat(rejection.json().at("/result/state").asText()).as(rejection.body()).isEqualTo("CANCELLED");
    TestGateway.Answer rejectionOfAnother = gw.post("/api/v1/payments/" + another + "/reject",
        "{\"rejectReason\":\"KYC\"}", shop.key(), null);
    assertThat(rejectionOfAnother.json().at("/result/state").asText()).as(rejectionOfAnother.body())
        .isEqualTo("CANCELLED");

    assertThat(ledger(shop, "EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("50.00"), BigDecimal.ZERO);
    assertThat(ledger(shop, "USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("457.50"), BigDecimal.ZERO);
  }

  /** What GET /available-withdrawal-balances says the shop may withdraw in the currency (zero when it is left out). */
  static BigDecimal withdrawable(KeyedShop shop, String currency) {
    BigDecimal found = BigDecimal.ZERO;
    for (JsonNode b : gw.get("/api/v1/available-withdrawal-balances", shop.key()).json().get("result")) {
      if (b.get("currency").asText().equals(currency)) {
        found = b.get("amount").decimalValue();
      }
    }
    return found;
  }

  static String bankWithdrawal(String amount) {
    return """
        {"paymentType":"WITHDRAWAL","paymentMethod":"BANKTRANSFER","amount":%s,"currency":"EUR",
         "customer":{"accountNumber":"DE02120300000000202051"}}""".formatted(amount);
  }

  static String cardWithdrawal(String amount) {
    return """
        {"paymentType":"WITHDRAWAL","amount":%s,"currency":"EUR",
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""".formatted(amount);
  }

  /** A withdrawal of a shop that requires approval, created as it awaits it; returns its id. */
  static String awaitingApproval(KeyedShop shop, String body) {
    TestGateway.Answer created = gw.post("/api/v1/payments", body, shop.key(), null);
    assertThat(created.json().at("/result/state").asText()).as(created.body()).isEqualTo("AWAITING_APPROVAL");
    return created.json().at("/result/id").asText();
  }

  /** The withdrawal approved, once the worker has paid it out or declined it. */
  static JsonNode approved(KeyedShop shop, String id) throws Exception {
    TestGateway.Answer approval = gw.post("/api/v1/payments/" + id + "/approve", "", shop.key(), null);
    assertThat(approval.status()).as(approval.body()).isEqualTo(200);
    return gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(15), shop.key());
  }
}
