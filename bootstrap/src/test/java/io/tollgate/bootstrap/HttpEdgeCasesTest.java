package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.bootstrap.TestGateway.Answer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Errors raised before our code runs still answer in the JSON envelope. */
class HttpEdgeCasesTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** Raw HTTP, for requests a well-behaved client refuses to send. */
  private static String raw(String requestHead) throws Exception {
    try (Socket s = new Socket("127.0.0.1", gw.app.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(requestHead.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void assertJsonError(String response, int status) {
    assertThat(response).startsWith("HTTP/1.1 " + status);
    assertThat(response.toLowerCase()).contains("content-type: application/json");
    assertThat(response).contains("\"status\":" + status).contains("\"errors\":[]").doesNotContain("<html");
  }

  @Test
  void an_unknown_method_is_a_405_in_the_envelope() {
    Answer a = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
        .method("DELETE", HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer " + gw.apiKey));
    assertThat(a.status()).isEqualTo(405);
    assertThat(a.json().get("error").asText()).isEqualTo("Method Not Allowed");
    assertThat(a.json().get("path").asText()).isEqualTo("/api/v1/payments");
  }

  @Test
  void an_unknown_path_is_a_404_in_the_envelope() {
    Answer a = gw.get("/api/v1/nothing-here");
    assertThat(a.status()).isEqualTo(404);
    assertThat(a.json().get("path").asText()).isEqualTo("/api/v1/nothing-here");
    Answer outside = gw.get("/not/an/api");
    assertThat(outside.status()).isEqualTo(404);
    assertThat(outside.json().get("status").asInt()).isEqualTo(404);
  }

  @Test
  void a_bad_uri_escape_is_a_400_in_the_envelope() throws Exception {
    assertJsonError(raw("GET /api/v1/payments/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400);
  }

  @Test
  void an_overlong_uri_is_a_414_in_the_envelope() throws Exception {
    assertJsonError(raw("GET /api/v1/payments?x=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 414);
  }

  @Test
  void oversized_headers_are_a_431_in_the_envelope() throws Exception {
    assertJsonError(raw("GET /api/v1/payments HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(20_000)
        + "\r\nConnection: close\r\n\r\n"), 431);
  }
}
