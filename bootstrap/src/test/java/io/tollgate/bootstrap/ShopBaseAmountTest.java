package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The merchant API shows each payment's amount in its shop's base currency too
 * ({@code shopBaseAmount}, {@code shopBaseCurrency}), and in the platform's base currency
 * ({@code baseAmount}, {@code paymentBaseAmount}; {@code TOLLGATE_BASE_CURRENCY}, EUR here), at
 * today's rate (the sandbox's imported rates here: USD to EUR 0.9217, USD to GBP 0.7889), as the
 * reference describes its base amounts.
 */
class ShopBaseAmountTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static String deposit(String key, String amount, String currency) {
    TestGateway.Answer a = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":" + amount + ",\"currency\":\"" + currency + "\"}", key, null);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  @Test
  void each_payment_shows_its_amount_in_its_shops_base_currency_when_a_rate_is_known() {
    // the test shop's base currency is EUR
    String inEuro = deposit(gw.apiKey, "12.34", "EUR");
    String inDollars = deposit(gw.apiKey, "100.01", "USD");
    String inYen = deposit(gw.apiKey, "5000", "JPY");
    ShopId bare = gw.app.services().shops().createShop(new CreateShopCommand(gw.merchant, "No base currency",
        null, null, null, false, false, null));
    String unconverted = deposit(gw.issueKey(bare, Environment.SANDBOX), "7.00", "USD");

    String[] reader = gw.merchantUser(gw.merchant, "base-amounts@shop.example");
    Map<String, JsonNode> listed = new HashMap<>();
    gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=100"), reader).json().get("result")
        .forEach(p -> listed.put(p.get("id").asText(), p));

    assertThat(listed.get(inEuro).get("shopBaseAmount").decimalValue()).isEqualByComparingTo("12.34");
    assertThat(listed.get(inEuro).get("shopBaseCurrency").asText()).isEqualTo("EUR");
    // 100.01 x 0.9217 = 92.179217, half-even to the cent
    assertThat(listed.get(inDollars).get("shopBaseAmount").decimalValue()).isEqualByComparingTo("92.18");
    assertThat(listed.get(inDollars).get("shopBaseCurrency").asText()).isEqualTo("EUR");
    assertThat(listed.get(inDollars).get("amount").decimalValue()).as("what was asked is unchanged")
        .isEqualByComparingTo("100.01");
    assertThat(listed.get(inYen).has("shopBaseAmount")).as("no JPY to EUR rate").isFalse();
    assertThat(listed.get(unconverted).has("shopBaseAmount")).as("a shop without a base currency").isFalse();
    assertThat(listed.get(unconverted).has("shopBaseCurrency")).isFalse();
  }

  @Test
  void each_payment_and_operation_shows_its_amount_in_the_platforms_base_currency_whatever_its_shops() {
    ShopId inPounds = gw.app.services().shops().createShop(new CreateShopCommand(gw.merchant, "Pound shop",
        null, null, null, false, false, "GBP"));
    String dollars = deposit(gw.issueKey(inPounds, Environment.SANDBOX), "100.01", "USD");
    ShopId bare = gw.app.services().shops().createShop(new CreateShopCommand(gw.merchant, "No base currency either",
        null, null, null, false, false, null));
    String unshopped = deposit(gw.issueKey(bare, Environment.SANDBOX), "7.00", "USD");
    String euros = deposit(gw.apiKey, "12.34", "EUR");
    String yen = deposit(gw.apiKey, "5000", "JPY");

    String[] reader = gw.merchantUser(gw.merchant, "system-base-amounts@shop.example");
    Map<String, JsonNode> payments = new HashMap<>();
    gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=100"), reader).json().get("result")
        .forEach(p -> payments.put(p.get("id").asText(), p));

    // 100.01 x 0.7889 = 78.897889 in the shop's GBP; 100.01 x 0.9217 = 92.179217 in the platform's EUR
    assertThat(amount(payments.get(dollars), "shopBaseAmount")).isEqualByComparingTo("78.90");
    assertThat(amount(payments.get(dollars), "baseAmount")).isEqualByComparingTo("92.18");
    // 7.00 x 0.9217 = 6.4519: a shop without a base currency still has the platform's
    assertThat(amount(payments.get(unshopped), "baseAmount")).isEqualByComparingTo("6.45");
    assertThat(amount(payments.get(euros), "baseAmount")).isEqualByComparingTo("12.34");
    assertThat(payments.get(yen).has("baseAmount")).as("no JPY to EUR rate").isFalse();

    Map<String, JsonNode> operations = new HashMap<>();
    gw.merchantGet(gw.sinceStarted("/merchant-api/v1/operations?limit=100"), reader).json().get("result")
        .forEach(o -> operations.put(o.get("paymentId").asText(), o));
    assertThat(amount(operations.get(dollars), "paymentBaseAmount")).isEqualByComparingTo("92.18");
    assertThat(amount(operations.get(dollars), "paymentAmount")).isEqualByComparingTo("100.01");
    assertThat(amount(operations.get(unshopped), "paymentBaseAmount")).isEqualByComparingTo("6.45");
    assertThat(amount(operations.get(euros), "paymentBaseAmount")).isEqualByComparingTo("12.34");
    assertThat(operations.get(yen).has("paymentBaseAmount")).as("no JPY to EUR rate").isFalse();
  }

  @Test
  void a_deployment_names_its_own_base_currency() throws Exception {
    try (TestGateway pounds = TestGateway.start(Map.of("TOLLGATE_BASE_CURRENCY", "GBP"))) {
      TestGateway.Answer a = pounds.post("/api/v1/payments",
          "{\"paymentType\":\"DEPOSIT\",\"amount\":100.01,\"currency\":\"USD\"}", pounds.apiKey, null);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      String[] reader = pounds.merchantUser(pounds.merchant, "pounds@shop.example");

      JsonNode payment = pounds.merchantGet(pounds.sinceStarted("/merchant-api/v1/payments"), reader).json()
          .at("/result/0");
      // 100.01 x 0.7889 = 78.897889 in the platform's GBP; the shop's own base currency is still EUR
      assertThat(amount(payment, "baseAmount")).isEqualByComparingTo("78.90");
      assertThat(amount(payment, "shopBaseAmount")).isEqualByComparingTo("92.18");
      JsonNode operation = pounds.merchantGet(pounds.sinceStarted("/merchant-api/v1/operations"), reader).json()
          .at("/result/0");
      assertThat(amount(operation, "paymentBaseAmount")).isEqualByComparingTo("78.90");
    }
  }

  private static java.math.BigDecimal amount(JsonNode record, String field) {
    assertThat(record.has(field)).as(field + " of " + record).isTrue();
    return record.get(field).decimalValue();
  }
}
