package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.user.Permission;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Content-Type or Accept that is no media type is a 400 in the error envelope, with the
 * request id and no-store like any other answer, and changes nothing. Left to Jersey, it was a
 * 400 with an empty body and neither header.
 */
class MalformedHeaderTest {

  static TestGateway gw;
  static String[] editor;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    editor = gw.merchantUser(gw.merchant, "editor@headers.example", Permission.values());
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static void assertEnvelope(TestGateway.Answer a, String header, String rejected) {
    assertThat(a.status()).as(a.body()).isEqualTo(400);
    assertThat(a.json().get("message").asText()).isEqualTo("Malformed " + header + " header");
    assertThat(a.json().get("errors").get(0).get("field").asText()).isEqualTo(header);
    assertThat(a.json().get("errors").get(0).get("rejectedValue").asText()).isEqualTo(rejected);
    assertThat(a.response().headers().firstValue("X-Request-Id")).isPresent();
    assertThat(a.json().has("requestId")).isFalse();
    assertThat(a.response().headers().firstValue("Cache-Control")).hasValue("no-store");
  }

  @Test
  void a_content_type_that_is_no_media_type_is_a_400_envelope_and_stores_nothing() {
    int before = gw.countPayments();
    for (String contentType : new String[] {"garbage", "/", "application/json; charset=\""}) {
      assertEnvelope(gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\",\"amount\":1.00,\"currency\":\"EUR\"}"))
          .header("Authorization", "Bearer " + gw.apiKey).header("Content-Type", contentType)), "Content-Type", contentType);
    }
    assertThat(gw.countPayments()).isEqualTo(before);
    assertEnvelope(gw.send(HttpRequest.newBuilder(gw.uri("/merchant-api/v1/bin-groups"))
        .POST(HttpRequest.BodyPublishers.ofString("{}"))
        .header("Authorization", TestGateway.basic(editor)).header("Content-Type", "garbage")), "Content-Type", "garbage");
  }

  /** Two Content-Type headers leave the body's type unknown: Jersey answered a bare 400. */
  @Test
  void a_content_type_given_twice_is_a_400_envelope_and_stores_nothing() {
    int before = gw.countPayments();
    TestGateway.Answer twice = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\",\"amount\":1.00,\"currency\":\"EUR\"}"))
        .header("Authorization", "Bearer " + gw.apiKey).header("Content-Type", "application/json")
        .header("Content-Type", "application/json"));
    assertEnvelope(twice, "Content-Type", "application/json");
    assertThat(twice.json().at("/errors/0/message").asText()).isEqualTo("must be given once");
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  @Test
  void an_accept_that_is_no_list_of_media_types_is_a_400_envelope() {
    assertEnvelope(gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments")).GET()
        .header("Authorization", "Bearer " + gw.apiKey).header("Accept", "application/json;q=x")),
        "Accept", "application/json;q=x");
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments")).GET()
        .header("Authorization", "Bearer " + gw.apiKey).header("Accept", "application/json, text/plain;q=0.5"))
        .status()).isEqualTo(200);
  }

  @Test
  void a_card_number_in_a_malformed_header_is_echoed_masked() {
    assertEnvelope(gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments")).GET()
        .header("Authorization", "Bearer " + gw.apiKey).header("Accept", "x".repeat(245) + "4111111111111111;q=x")),
        "Accept", "x".repeat(245) + "411111*****…");
  }
}
