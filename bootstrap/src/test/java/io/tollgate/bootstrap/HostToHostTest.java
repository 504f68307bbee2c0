package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every row of the sandbox card table through the host-to-host PATCH. */
class HostToHostTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static String depositWithCard(String number, String amount, boolean preAuth, String expiryYear) {
    Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":%s,"currency":"EUR","preAuth":%s,
         "card":{"cardNumber":"%s","cardholderName":"ANN LEE","cardSecurityCode":"123","expiryMonth":"12","expiryYear":"%s"}}
        """.formatted(amount, preAuth, number, expiryYear));
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  static List<String> operations(String id) {
    List<String> ops = new ArrayList<>();
    gw.get("/api/v1/payments/" + id + "/operations").json().get("result")
        .forEach(o -> ops.add(o.get("operation").asText() + ":" + o.get("paymentState").asText()));
    return ops;
  }

  @ParameterizedTest(name = "{0} -> {1} {2}")
  @CsvSource(nullValues = "-", value = {
      "4000000000000408, COMPLETED, -",
      "5555000000000107, COMPLETED, -",
      "4000000000000416, DECLINED, 4.00",
      "5555000000000115, DECLINED, 4.00",
      "4000000000009995, DECLINED, 4.01",
      "4000000000000069, DECLINED, 4.04",
      "4000000000000127, DECLINED, 4.07",
      "4111111111111111, COMPLETED, -",
      "4000000000000001, DECLINED, 4.13"})
  void a_card_not_enrolled_in_3ds_is_decided_in_the_patch_answer(String card, String state, String errorCode) {
    String id = depositWithCard(card, "10.00", false, "2045");
    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode p = a.json().get("result");
    assertThat(p.get("state").asText()).isEqualTo(state);
    if (errorCode == null) {
      assertThat(p.has("errorCode")).isFalse();
    } else {
      assertThat(p.get("errorCode").asText()).isEqualTo(errorCode);
      assertThat(p.get("errorMessage").asText()).isNotBlank();
    }
    assertThat(p.get("externalId").asText()).startsWith("sbx_");
    assertThat(p.get("externalResultCode").asText()).isNotBlank();
    assertThat(operations(id)).containsExactly("DEPOSIT:" + state, "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  @ParameterizedTest
  @ValueSource(strings = {"4000000000000002", "5555000000000008", "4242424242424242", "5555000000000438"})
  void a_3ds_enrolled_card_goes_to_the_challenge_step(String card) {
    String id = depositWithCard(card, "10.00", false, "2045");
    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"2001:db8::7\"}");
    assertThat(a.json().at("/result/state").asText()).isEqualTo("PENDING");
    assertThat(a.json().at("/result/redirectUrl").asText()).endsWith("/checkout/" + id);
  }

  /** Of any century: 1999 was a 400 at creation, "not a plausible card expiry year". */
  @ParameterizedTest
  @ValueSource(strings = {"2020", "1999"})
  void an_expiry_in_the_past_is_declined_404_whatever_the_card(String year) {
    String id = depositWithCard("4000000000000408", "10.00", false, year);
    JsonNode p = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}").json().get("result");
    assertThat(p.get("state").asText()).isEqualTo("DECLINED");
    assertThat(p.get("errorCode").asText()).isEqualTo("4.04");
  }

  @Test
  void a_deposit_of_ten_million_or_more_is_declined_328() {
    String id = depositWithCard("4000000000000408", "10000000", false, "2045");
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}").json().at("/result/errorCode").asText())
        .isEqualTo("3.28");
  }

  @Test
  void the_customer_ip_is_required_and_must_be_an_address() {
    String id = depositWithCard("4000000000000408", "1", false, "2045");
    for (String body : List.of("{}", "{\"customerIp\":\"300.1.1.1\"}", "{\"customerIp\":\"example.com\"}",
        "{\"customerIp\":\"1.2.3\"}", "{\"customerIp\":7}", "{\"customerIp\":\"1.2.3.4\",\"browserScreenWidth\":\"wide\"}")) {
      Answer a = gw.patch("/api/v1/payments/" + id, body);
      assertThat(a.status()).as(body).isEqualTo(400);
    }
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"::ffff:192.0.2.1\"}").status()).isEqualTo(200);
  }

  /** The PATCH's customerIp is the payment's customer.ip from then on, in both APIs. */
  @Test
  void the_customer_ip_of_the_patch_is_kept_as_the_customers_address() {
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":12.00,"currency":"EUR",
         "customer":{"referenceId":"cust-ip","email":"ip@example.com","ip":"198.51.100.1"},
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""");
    String described = created.json().at("/result/id").asText();
    Answer executed = gw.patch("/api/v1/payments/" + described, "{\"customerIp\":\"203.0.113.9\"}");
    assertThat(executed.json().at("/result/customer/ip").asText()).isEqualTo("203.0.113.9");
    JsonNode read = gw.get("/api/v1/payments/" + described).json().get("result");
    assertThat(read.at("/customer/ip").asText()).as("replaces the address given at creation").isEqualTo("203.0.113.9");
    assertThat(read.at("/customer/referenceId").asText()).isEqualTo("cust-ip");
    assertThat(read.at("/customer/email").asText()).isEqualTo("ip@example.com");

    String bare = depositWithCard("4000000000000408", "3.00", false, "2045");
    gw.patch("/api/v1/payments/" + bare, "{\"customerIp\":\"2001:db8::7\",\"ipCountryCode\":\"au\"}");
    JsonNode bareCustomer = gw.get("/api/v1/payments/" + bare).json().at("/result/customer");
    assertThat(bareCustomer.get("ip").asText()).isEqualTo("2001:db8::7");
    assertThat(bareCustomer.has("ipCountryCode")).as("not a field of the gateway's customer").isFalse();

    String[] reader = gw.merchantUser(gw.merchant, "ip-reader@h2h.example");
    JsonNode records = gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=1000"), reader).json()
        .get("result");
    Map<String, String> ips = new HashMap<>();
    records.forEach(p -> ips.put(p.get("id").asText(), p.path("customerIp").asText(null)));
    assertThat(ips).containsEntry(described, "203.0.113.9").containsEntry(bare, "2001:db8::7");
    Map<String, String> countries = new HashMap<>();
    records.forEach(p -> countries.put(p.get("id").asText(), p.path("customerIpCountryCode").asText(null)));
    assertThat(countries).as("the PATCH's ipCountryCode, in the merchant's records")
        .containsEntry(bare, "AU").containsEntry(described, null);
  }

  /**
   * A country code straight from an IP-geolocation service, such as Cloudflare's {@code T1} for a
   * Tor exit node, is two characters as the reference asks: the deposit is charged and the code
   * kept, upper-cased. It used to be refused as not two letters, and the deposit never charged.
   */
  @Test
  void a_geolocation_services_own_country_code_is_kept_and_the_deposit_charged() {
    String id = depositWithCard("4000000000000408", "4.00", false, "2045");
    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\",\"ipCountryCode\":\"t1\"}");

    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    String[] reader = gw.merchantUser(gw.merchant, "tor-reader@h2h.example");
    JsonNode records = gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=1000"), reader).json()
        .get("result");
    Map<String, String> countries = new HashMap<>();
    records.forEach(p -> countries.put(p.get("id").asText(), p.path("customerIpCountryCode").asText(null)));
    assertThat(countries).containsEntry(id, "T1");

    String open = depositWithCard("4000000000000408", "4.00", false, "2045");
    for (String code : List.of("ABC", "T", "T-")) {
      Answer refused = gw.patch("/api/v1/payments/" + open,
          "{\"customerIp\":\"203.0.113.7\",\"ipCountryCode\":\"" + code + "\"}");
      assertThat(refused.status()).as(code).isEqualTo(400);
      assertThat(refused.json().get("errors").findValuesAsText("field")).as(code).containsExactly("ipCountryCode");
    }
    assertThat(gw.get("/api/v1/payments/" + open).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
  }

  @Test
  void a_card_deposit_without_a_card_is_a_400_and_a_second_patch_a_409() {
    String noCard = gw.deposit("5", "EUR");
    Answer a = gw.patch("/api/v1/payments/" + noCard, "{\"customerIp\":\"203.0.113.7\"}");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().at("/errors/0/field").asText()).isEqualTo("card");

    String id = depositWithCard("4000000000000408", "1", false, "2045");
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}").status()).isEqualTo(200);
    Answer again = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.json().get("message").asText()).isEqualTo("1.00 Illegal Workflow State");
  }

  @Test
  void a_bank_transfer_answers_with_instructions_and_settles_later_for_the_amount_received() throws Exception {
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","paymentMethod":"BANKTRANSFER","amount":100.00,"currency":"EUR",
         "additionalParameters":{"sandboxReceivedAmount":"95.50"}}
        """);
    String id = created.json().at("/result/id").asText();
    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}");
    assertThat(a.json().at("/result/state").asText()).isEqualTo("PENDING");
    JsonNode refs = a.json().at("/result/externalRefs");
    assertThat(refs.get("iban").asText()).isNotBlank();
    assertThat(refs.get("paymentReference").asText()).startsWith("TG");
    assertThat(a.json().at("/result/redirectUrl").isMissingNode()).isTrue();

    JsonNode settled = gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(15));
    assertThat(settled.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(settled.get("amount").decimalValue()).isEqualByComparingTo("95.50");
    assertThat(settled.at("/customer/ip").asText()).as("the PATCH's address, kept by the bank's step")
        .isEqualTo("203.0.113.7");
    assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "DEPOSIT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  @Test
  void only_deposits_in_checkout_can_be_executed() {
    Answer w = gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":1,\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}");
    assertThat(gw.patch("/api/v1/payments/" + w.json().at("/result/id").asText(), "{\"customerIp\":\"203.0.113.7\"}").status())
        .isEqualTo(409);
    assertThat(gw.patch("/api/v1/payments/" + "f".repeat(32), "{\"customerIp\":\"203.0.113.7\"}").status()).isEqualTo(404);
  }
}
