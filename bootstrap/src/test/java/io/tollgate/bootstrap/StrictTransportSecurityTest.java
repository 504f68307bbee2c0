package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.bootstrap.TestGateway.Answer;
import java.net.http.HttpRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A deployment whose public URL is https tells browsers to keep to https: every answer says
 * {@code Strict-Transport-Security}. None did, so a customer who typed the address, or followed an old http
 * link, reached the checkout over http first, where anyone on the network could answer in its place and keep
 * the customer there.
 */
class StrictTransportSecurityTest {

  private static final String HEADER = "Strict-Transport-Security";

  @Test
  void every_answer_of_a_deployment_with_an_https_public_url_says_strict_transport_security() throws Exception {
    try (TestGateway prod = TestGateway.start(Map.of("TOLLGATE_ENVIRONMENT", "production"))) {
      assertThat(prod.app.publicUrl()).startsWith("https://");
      String id = prod.deposit("5.00", "EUR");
      Answer page = prod.send(HttpRequest.newBuilder(prod.uri("/checkout/" + id)).GET());
      assertThat(page.status()).isEqualTo(200);
      assertThat(page.header(HEADER)).isEqualTo("max-age=31536000");

      for (Answer answer : new Answer[] {prod.get("/api/v1/payments/" + id), prod.get("/api/v1/payments", "wrong"),
          prod.get("/api/v1/payments/" + "0".repeat(32)), prod.get("/not/an/api"),
          prod.send(HttpRequest.newBuilder(prod.uri("/docs/")).GET())}) {
        assertThat(answer.header(HEADER)).as(answer.response().uri() + " " + answer.status())
            .isEqualTo("max-age=31536000");
      }
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", prod.app.port())) {
        s.getOutputStream().write("GET /api/v1/payments/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        String refused = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(refused).as("refused by Jetty before any of our code ran").startsWith("HTTP/1.1 400")
            .contains("\r\n" + HEADER + ": max-age=31536000\r\n");
      }
    }
  }

  @Test
  void a_sandbox_on_plain_http_says_nothing_of_it() throws Exception {
    try (TestGateway sandbox = TestGateway.start()) {
      assertThat(sandbox.app.publicUrl()).startsWith("http://");
      String id = sandbox.deposit("5.00", "EUR");
      assertThat(sandbox.send(HttpRequest.newBuilder(sandbox.uri("/checkout/" + id)).GET()).header(HEADER)).isNull();
      assertThat(sandbox.get("/api/v1/payments/" + id).header(HEADER)).isNull();
    }
  }
}
