package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests as real integrations write them, which the platform the API follows takes: values of
 * another JSON type than the document says, empty optional fields, a customer IP straight from
 * {@code X-Forwarded-For}, grouped card numbers, upper-cased ids. Each is taken as what it
 * means, and a value that is still wrong is refused by its field's own rule.
 */
class ClientQuirksTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static Answer create(String fields) {
    return gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"currency\":\"EUR\"," + fields + "}");
  }

  private static String card(String number) {
    return "\"card\":{\"cardNumber\":\"" + number + "\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";
  }

  @Test
  void empty_optional_customer_fields_count_as_not_sent() {
    Answer a = create("\"amount\":5.00,\"customer\":{\"referenceId\":\"c-empty\",\"email\":\"\",\"phone\":\"\","
        + "\"ip\":\"\",\"accountType\":\"\",\"documentType\":\"\",\"dateOfFirstDeposit\":\"\"}");

    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode customer = a.json().at("/result/customer");
    assertThat(customer.get("referenceId").asText()).isEqualTo("c-empty");
    assertThat(customer.has("email")).isFalse();
    assertThat(customer.has("ip")).isFalse();
    assertThat(customer.has("dateOfFirstDeposit")).isFalse();
  }

  @Test
  void a_field_with_a_least_length_is_still_refused_empty() {
    Answer a = create("\"amount\":5.00,\"customer\":{\"citizenshipCountryCode\":\"\",\"email\":\"\"}");

    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().get("errors").findValuesAsText("field")).containsExactly("customer.citizenshipCountryCode");
  }

  @Test
  void an_empty_card_token_beside_a_number_counts_as_not_sent() {
    Answer a = create("\"amount\":5.00,\"card\":{\"cardNumber\":\"4000000000000408\",\"cardToken\":\"\","
        + "\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}");

    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().at("/result/paymentMethodDetails/cardToken").asText()).isNotEmpty();
  }

  @Test
  void numbers_and_booleans_where_strings_are_due_are_their_text() {
    Answer a = create("\"amount\":\"12.50\",\"referenceId\":10045,\"preAuth\":\"false\","
        + "\"additionalParameters\":{\"tries\":3,\"vip\":true,\"rate\":2.5}");

    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode p = a.json().get("result");
    assertThat(p.get("amount").decimalValue()).isEqualByComparingTo("12.50");
    assertThat(p.get("referenceId").asText()).isEqualTo("10045");
    assertThat(p.at("/additionalParameters/tries").asText()).isEqualTo("3");
    assertThat(p.at("/additionalParameters/vip").asText()).isEqualTo("true");
    assertThat(p.at("/additionalParameters/rate").asText()).isEqualTo("2.5");
  }

  @Test
  void a_value_taken_as_text_must_still_pass_its_fields_rule() {
    Answer a = create("\"amount\":5.00,\"card\":{\"cardNumber\":4000000000000408,\"expiryMonth\":1,"
        + "\"expiryYear\":2045},\"customer\":{\"email\":{\"a\":1}}");

    assertThat(a.status()).isEqualTo(400);
    JsonNode errors = a.json().get("errors");
    assertThat(errors.findValuesAsText("field")).containsExactlyInAnyOrder("card.expiryMonth", "customer.email");
    assertThat(a.body()).contains("must be two digits").contains("must be a string")
        .doesNotContain("4000000000000408");
  }

  @Test
  void a_number_string_that_is_not_plain_is_refused_as_a_number() {
    for (String amount : new String[] {"\"1e3\"", "\"10,50\"", "\"ten\"", "\"\""}) {
      Answer a = create("\"amount\":" + amount);
      assertThat(a.status()).as(amount).isEqualTo(400);
      assertThat(a.json().get("errors").findValuesAsText("field")).as(amount).containsExactly("amount");
    }
  }

  @Test
  void a_card_number_grouped_by_dots_or_slashes_is_its_digits_and_one_with_a_letter_is_refused() {
    for (String grouped : new String[] {"4000.0000.0000.0408", "4000/0000/0000/0408"}) {
      Answer a = create("\"amount\":5.00," + card(grouped));
      assertThat(a.status()).as(grouped + ": " + a.body()).isEqualTo(200);
      assertThat(a.json().at("/result/paymentMethodDetails/customerAccountNumber").asText())
          .as(grouped).endsWith("0408");
    }
    Answer mistyped = create("\"amount\":5.00," + card("4000.OOOO.0000.0408"));
    assertThat(mistyped.status()).isEqualTo(400);
  }

  @Test
  void a_host_to_host_ip_from_a_proxy_chain_keeps_the_customers_address() {
    String id = create("\"amount\":5.00," + card("4000000000000408")).json().at("/result/id").asText();

    Answer done = gw.patch("/api/v1/payments/" + id,
        "{\"customerIp\":\" 203.0.113.9, 10.0.0.1\",\"browserWindowWidth\":1642.0,\"browserJavaEnabled\":\"false\"}");

    assertThat(done.status()).as(done.body()).isEqualTo(200);
    assertThat(done.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(done.json().at("/result/customer/ip").asText()).isEqualTo("203.0.113.9");
  }

  @Test
  void an_ipv6_address_with_a_zone_or_brackets_is_the_address() {
    Answer zoned = create("\"amount\":5.00,\"customer\":{\"ip\":\"fe80::1%eth0\"}");
    Answer bracketed = create("\"amount\":5.00,\"customer\":{\"ip\":\"[2001:db8::7]\"}");

    assertThat(zoned.json().at("/result/customer/ip").asText()).isEqualTo("fe80::1");
    assertThat(bracketed.json().at("/result/customer/ip").asText()).isEqualTo("2001:db8::7");
  }

  @Test
  void what_is_not_an_address_is_still_refused_and_changes_nothing() {
    String id = create("\"amount\":5.00," + card("4000000000000408")).json().at("/result/id").asText();

    for (String ip : new String[] {"unknown", "203.0.113.999", ", 203.0.113.9", "1.2.3.4.5",
        "2001:db8::1, 2001:db8::2, 2001:db8::3333"}) {
      Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"" + ip + "\"}");
      assertThat(a.status()).as(ip).isEqualTo(400);
      assertThat(a.json().get("errors").findValuesAsText("field")).as(ip).containsExactly("customerIp");
    }
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
  }

  /**
   * A browser measures a zoomed window in fractions of a pixel, and some clients send 1 and 0 for
   * true and false: the size is its whole pixels, the number its boolean, and the deposit is
   * charged. Either used to be a 400, and the host-to-host deposit was never executed.
   */
  @Test
  void a_fractional_window_size_and_a_boolean_sent_as_1_or_0_are_taken_and_the_deposit_charged() {
    String id = create("\"amount\":5.00," + card("4000000000000408")).json().at("/result/id").asText();

    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\",\"browserWindowWidth\":1642.67,"
        + "\"browserWindowHeight\":\"883.5\",\"browserTimezoneOffset\":-120.5,\"browserJavaEnabled\":0}");

    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().at("/result/state").asText()).isEqualTo("COMPLETED");

    Answer preAuth = create("\"amount\":5.00,\"preAuth\":1,\"customer\":{\"kycStatus\":1,"
        + "\"paymentInstrumentKycStatus\":\"FALSE\"}," + card("4000000000000408"));
    assertThat(preAuth.status()).as(preAuth.body()).isEqualTo(200);
    assertThat(preAuth.json().at("/result/customer/kycStatus").booleanValue()).isTrue();
    assertThat(preAuth.json().at("/result/customer/paymentInstrumentKycStatus").booleanValue()).isFalse();
    Answer authorized = gw.patch("/api/v1/payments/" + preAuth.json().at("/result/id").asText(),
        "{\"customerIp\":\"203.0.113.9\",\"browserJavaEnabled\":1}");
    assertThat(authorized.json().at("/result/state").asText()).as(authorized.body()).isEqualTo("AUTHORIZED");
  }

  @Test
  void what_is_no_integer_or_boolean_is_still_refused_and_changes_nothing() {
    String id = create("\"amount\":5.00," + card("4000000000000408")).json().at("/result/id").asText();

    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\",\"browserWindowWidth\":1e10,"
        + "\"browserWindowHeight\":\"wide\",\"browserJavaEnabled\":2,"
        + "\"browserTimezoneOffset\":[1]}");

    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("browserWindowWidth",
        "browserWindowHeight", "browserJavaEnabled", "browserTimezoneOffset");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
    assertThat(create("\"amount\":5.00,\"preAuth\":\"yes\"").status()).isEqualTo(400);
  }

  @Test
  void an_id_written_in_capitals_names_the_same_payment() {
    String id = gw.completedDeposit("20.00", "EUR", gw.apiKey);
    String upper = id.toUpperCase(Locale.ROOT);

    Answer read = gw.get("/api/v1/payments/" + upper);
    Answer refund = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":5.00,\"currency\":\"EUR\","
        + "\"parentPaymentId\":\"" + upper + "\"}");

    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().at("/result/id").asText()).isEqualTo(id);
    assertThat(refund.status()).as(refund.body()).isEqualTo(200);
    assertThat(refund.json().at("/result/parentPaymentId").asText()).isEqualTo(id);
    assertThat(gw.get("/api/v1/payments/" + upper + "/operations").status()).isEqualTo(200);
  }
}
