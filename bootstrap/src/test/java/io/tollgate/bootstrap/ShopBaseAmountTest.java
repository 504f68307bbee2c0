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
 * ({@code shopBaseAmount}, {@code shopBaseCurrency}), at today's rate (the sandbox's imported
 * rates here: USD to EUR 0.9217), as the reference describes its base amounts.
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
    gw.merchantGet("/merchant-api/v1/payments?limit=100", reader).json().get("result")
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
}
