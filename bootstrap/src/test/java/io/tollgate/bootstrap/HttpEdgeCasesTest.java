package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tollgate.bootstrap.TestGateway.Answer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

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

  /** Raw HTTP sent in parts, with a pause after each, so that the server reads them apart. */
  private static String rawInParts(String... parts) throws Exception {
    try (Socket s = new Socket("127.0.0.1", gw.app.port())) {
      s.setSoTimeout(10_000);
      s.setTcpNoDelay(true);
      OutputStream out = s.getOutputStream();
      for (String part : parts) {
        out.write(part.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        Thread.sleep(200);
      }
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The {@code path} of the envelope of the last response on the connection. */
  private static String path(String response) throws Exception {
    return TestGateway.JSON.readTree(response.substring(response.lastIndexOf("\r\n\r\n") + 4)).get("path").asText();
  }

  private static void assertJsonError(String response, int status) {
    assertThat(response).startsWith("HTTP/1.1 " + status);
    assertThat(response.toLowerCase()).contains("content-type: application/json");
    assertThat(response).contains("\"status\":" + status).contains("\"errors\":[]").doesNotContain("<html");
  }

  /**
   * Behind a proxy that ends TLS, Jetty is reached over http: a checkout form's redirect names
   * no origin, so that the browser stays on the one the customer is on (https) and the page's
   * CSP form-action lets it through.
   */
  @Test
  void a_checkout_form_redirects_to_a_relative_location_whatever_host_jetty_was_reached_at() throws Exception {
    String id = gw.deposit("5.00", "EUR");
    String page = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).as(page).isTrue();
    String form = "csrf=" + java.net.URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);

    String answer = raw("POST /checkout/" + id + "/cancel HTTP/1.1\r\nHost: pay.example.com\r\n"
        + "X-Forwarded-Proto: https\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
        + form.length() + "\r\nConnection: close\r\n\r\n" + form);

    assertThat(answer).startsWith("HTTP/1.1 303");
    assertThat(answer.lines().filter(l -> l.regionMatches(true, 0, "Location:", 0, 9)).toList())
        .containsExactly("Location: /checkout/" + id);
  }

  /**
   * The card form sent again after the payment moved on (the back button, a second tab), with
   * a mistyped number: the customer is shown where the payment stands, not a card error over
   * its result page.
   */
  @Test
  void a_card_form_sent_again_with_bad_details_after_the_payment_moved_on_shows_where_it_stands() {
    String id = gw.deposit("5.00", "EUR");
    String page = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).as(page).isTrue();
    String token = "csrf=" + java.net.URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
    Answer paid = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(token + "&cardNumber=4000000000000408&cardholderName=Ann+Lee"
            + "&expiryMonth=12&expiryYear=2045&cardSecurityCode=123")));
    assertThat(paid.status()).isEqualTo(303);

    Answer again = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(token + "&cardNumber=4000+12&cardholderName=Ann+Lee"
            + "&expiryMonth=12&expiryYear=2045&cardSecurityCode=123")));

    assertThat(again.status()).as(again.body()).isEqualTo(303);
    assertThat(again.header("Location")).endsWith("/checkout/" + id);
    String shown = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    assertThat(shown).contains("Thank you: your payment is complete.").doesNotContain("role=\"alert\"");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  /**
   * A deposit whose card came with the request is charged by the form its page's script sends,
   * never by a look at the page. A HEAD of the page (a link checker, a chat app's preview) once
   * charged it: Jersey answers a HEAD with the GET's method, which then charged the card.
   */
  @Test
  void a_head_of_the_checkout_page_charges_nothing() {
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":7.00,"currency":"EUR",
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String id = created.json().at("/result/id").asText();

    Answer head = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    Answer unknown = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + "0".repeat(32)))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()));

    assertThat(head.status()).isEqualTo(200);
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
    assertThat(gw.openWithCardOnFile(id).status()).isEqualTo(200);
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText())
        .as("opened by the customer").isEqualTo("COMPLETED");
  }

  @Test
  void an_unknown_method_is_a_405_in_the_envelope() {
    Answer a = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
        .method("DELETE", HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer " + gw.apiKey));
    assertThat(a.status()).isEqualTo(405);
    assertThat(a.json().get("error").asText()).isEqualTo("Method Not Allowed");
    assertThat(a.json().get("path").asText()).isEqualTo("/api/v1/payments");
  }

  /**
   * {@code TRACE} is refused on every path, in the envelope, and never echoes the request. The docs, the OpenAPI
   * documents, the health checks, the metrics and unknown paths answered it with a 200 of type
   * {@code message/http} holding the request's headers, its API key and cookies among them. A path that serves
   * {@code GET} only answers it, and any other method it does not serve, 405 with {@code Allow} naming what it
   * serves, as the APIs do (an unknown method was a bare 501 there); an unknown path is a 404 whatever the method,
   * as an unknown path of the APIs is.
   */
  @Test
  void trace_is_refused_in_the_envelope_and_never_echoes_the_request() throws Exception {
    java.util.List<String> getOnly = java.util.List.of("/docs/", "/docs/swagger-ui-bundle.js", "/api/v1/openapi.json",
        "/merchant-api/v1/openapi.json", "/metrics", "/health/live", "/health/ready");
    java.util.List<String> apis = java.util.List.of("/api/v1/payments", "/merchant-api/v1/shops",
        "/checkout/" + "0".repeat(32));
    java.util.List<String> unknown = java.util.List.of("/", "/not/an/api", "/api/v1/nothing-here", "/docs/nope",
        "/health/nope");
    java.util.List<String> all = new java.util.ArrayList<>(getOnly);
    all.addAll(apis);
    all.addAll(unknown);
    for (String target : all) {
      String answer = raw("TRACE " + target + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
          + "\r\nCookie: session=s3cret\r\nConnection: close\r\n\r\n");
      assertThat(answer).as(target).doesNotContain(gw.apiKey).doesNotContain("s3cret")
          .doesNotContainIgnoringCase("message/http");
      assertJsonError(answer, unknown.contains(target) ? 404 : 405);
      assertThat(path(answer)).isEqualTo(target);
      if (!unknown.contains(target)) {
        assertThat(allow(answer)).as(target).isNotBlank().doesNotContain("TRACE");
      }
    }
    for (String target : getOnly) {
      for (String method : new String[] {"FOO", "DELETE"}) {
        String answer = raw(method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertJsonError(answer, 405);
        assertThat(allow(answer)).as("%s %s", method, target).isEqualTo("GET, HEAD, OPTIONS");
      }
      String options = raw("OPTIONS " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      assertThat(options).startsWith("HTTP/1.1 200");
      assertThat(allow(options)).isEqualTo("GET, HEAD, OPTIONS");
    }
    assertJsonError(raw("FOO /not/an/api HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 404);
    // a path of the docs or the health checks that is not there: a 404 whatever the method, naming no methods
    for (String target : java.util.List.of("/docs/nope", "/health/nope", "/metrics/nope")) {
      for (String method : new String[] {"OPTIONS", "DELETE", "GET"}) {
        String answer = raw(method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertJsonError(answer, 404);
        assertThat(allow(answer)).as("%s %s", method, target).isNull();
      }
    }
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/health/live")).GET()).status()).isEqualTo(200);
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/docs/"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody())).status()).isEqualTo(200);
  }

  /** The {@code Allow} header of a raw answer, or null. */
  private static String allow(String response) {
    return response.lines().takeWhile(l -> !l.isEmpty()).filter(l -> l.regionMatches(true, 0, "Allow:", 0, 6))
        .map(l -> l.substring(6).trim()).findFirst().orElse(null);
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

  /**
   * A client that stops sending in the middle of its body gets a 408 in the envelope once the
   * idle timeout passes: it is the client's doing, so it is no 500 and no ERROR with a stack
   * trace for the operator.
   */
  @Test
  void a_body_that_stops_coming_is_a_408_in_the_envelope_and_no_error_in_the_log() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> captured = OperabilityTest.capturing();
    captured.start();
    root.addAppender(captured);
    gw.app.idleTimeout(Duration.ofMillis(500));
    try {
      String body = "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\"}";
      String response = raw("POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
          + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n"
          + body.substring(0, body.length() / 2));
      assertJsonError(response, 408);
      assertThat(path(response)).isEqualTo("/api/v1/payments");
    } finally {
      gw.app.idleTimeout(Duration.ofSeconds(30));
      root.detachAppender(captured);
    }
    synchronized (captured) {
      assertThat(captured.list).noneMatch(e -> e.getLevel() == Level.ERROR);
    }
  }

  /**
   * Clients that trickle their bodies hold no threads: with more of them than the server has
   * threads (200), each having sent its headers and a byte of its body, a health check and a
   * payment are still answered at once. Before, each held a thread for as long as its bytes kept
   * coming, and with no credentials 200 of them took the service down.
   */
  @Test
  void bodies_that_trickle_in_hold_no_threads() throws Exception {
    java.util.List<Socket> trickling = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 230; i++) {
        Socket s = new Socket("127.0.0.1", gw.app.port());
        s.setTcpNoDelay(true);
        String target = i % 3 == 0 ? "/checkout/some-payment" : i % 3 == 1 ? "/api/v1/payments" : "/merchant-api/v1/bin-groups";
        s.getOutputStream().write(("POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: 60000\r\n\r\n{").getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        trickling.add(s);
      }
      for (Socket s : trickling) {
        s.getOutputStream().write(' ');
        s.getOutputStream().flush();
      }
      Answer live = gw.send(HttpRequest.newBuilder(gw.uri("/health/live")).timeout(Duration.ofSeconds(5)).GET());
      assertThat(live.status()).isEqualTo(200);
      Answer paid = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments")).timeout(Duration.ofSeconds(5))
          .header("Authorization", "Bearer " + gw.apiKey).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\"}")));
      assertThat(paid.status()).isEqualTo(200);
    } finally {
      for (Socket s : trickling) {
        s.close();
      }
    }
  }

  /**
   * A client that reads a large answer far below the floor (here 1 KiB a second, the floor being 8) is cut off
   * within seconds, and its thread goes back to serving others. Before, Jetty's idle timeout fired only when a
   * write made no progress at all for 30 s, so a client that kept reading a little held its thread for as long as
   * the answer took: about 190 reading the docs' 1.4 MB script, with no credentials, held the whole pool.
   */
  @Test
  void a_client_reading_far_below_the_floor_is_cut_off_and_gives_its_thread_back() throws Exception {
    // On the loopback interface the kernel buffers megabytes of an answer for a client that does not read it; a
    // link over the internet buffers tens of kilobytes.
    gw.app.slowLink(16 * 1024, Duration.ofSeconds(1));
    TestGateway.SlowRead slow;
    try {
      slow = gw.readSlowly("GET /docs/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(30));
    } finally {
      gw.app.slowLink(-1, ResponseRateHandler.GRACE);
    }

    assertThat(slow.inFlight()).as("in flight while %d bytes were read", slow.read())
        .isLessThan(Duration.ofSeconds(10));
    assertThat(gw.app.requestsInFlight()).isZero();
    Answer docs = gw.send(HttpRequest.newBuilder(gw.uri("/docs/swagger-ui-bundle.js")).GET());
    assertThat(docs.status()).isEqualTo(200);
    assertThat(docs.body().length()).isGreaterThan(1_000_000);
  }

  /**
   * A chunked body over the limit whose chunks come apart is a 413: the request is handed on once
   * past the limit and its thread reads on. Handed on in Jetty's callback for arrived bytes, it
   * waited for ever on its own next chunk, queued behind it, holding its thread for good.
   */
  @Test
  void a_chunked_body_past_the_limit_in_pieces_is_a_413() throws Exception {
    String chunk = "x".repeat(30_000);
    String piece = Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n";
    String response = rawInParts("POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
        + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        piece, piece, piece, "0\r\n\r\n");
    assertJsonError(response, 413);
  }

  /** A body sent in pieces, each before the idle timeout, is read whole and the request served. */
  @Test
  void a_body_sent_in_pieces_is_read_whole() throws Exception {
    String body = "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\"}";
    String response = rawInParts("POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n",
        body.substring(0, 10), body.substring(10, 30), body.substring(30));
    assertThat(response).startsWith("HTTP/1.1 200 ").contains("\"state\":\"CHECKOUT\"");
    String chunked = rawInParts("POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
        + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        Integer.toHexString(20) + "\r\n" + body.substring(0, 20) + "\r\n",
        Integer.toHexString(body.length() - 20) + "\r\n" + body.substring(20) + "\r\n", "0\r\n\r\n");
    assertThat(chunked).startsWith("HTTP/1.1 200 ").contains("\"state\":\"CHECKOUT\"");
  }

  /**
   * The checkout page's form, which Jersey reads before our code runs, is answered the same, and
   * logged as answered: the access line names the 408, and no ERROR is logged.
   */
  @Test
  void a_checkout_form_that_stops_coming_is_a_408_too() throws Exception {
    String id = gw.deposit("3.00", "EUR");
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> captured = OperabilityTest.capturing();
    captured.start();
    root.addAppender(captured);
    gw.app.idleTimeout(Duration.ofMillis(500));
    try {
      String form = "cardNumber=4000";
      String response = raw("POST /checkout/" + id + " HTTP/1.1\r\nHost: x\r\n"
          + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\nConnection: close\r\n\r\n" + form);
      assertJsonError(response, 408);
    } finally {
      gw.app.idleTimeout(Duration.ofSeconds(30));
      root.detachAppender(captured);
    }
    synchronized (captured) {
      assertThat(captured.list).noneMatch(e -> e.getLevel() == Level.ERROR);
      assertThat(captured.list).filteredOn(e -> e.getLoggerName().equals("io.tollgate.access"))
          .extracting(ILoggingEvent::getFormattedMessage)
          .anySatisfy(line -> assertThat(line).startsWith("POST /checkout/" + id + " -> 408 in "));
    }
  }

  /**
   * A card number in the path, where a client put one in place of an id, is masked in the
   * envelope's {@code path} as every value an error echoes is, whether our API, the servlet
   * context or Jetty itself refuses the request.
   */
  @Test
  void a_card_number_in_the_path_is_masked_in_the_envelope() throws Exception {
    Answer unknownPayment = gw.get("/api/v1/payments/5555000000000008");
    assertThat(unknownPayment.status()).isEqualTo(404);
    assertThat(unknownPayment.json().get("path").asText()).isEqualTo("/api/v1/payments/555500******0008");
    Answer outside = gw.get("/not/an/api/5555000000000008");
    assertThat(outside.status()).isEqualTo(404);
    assertThat(outside.json().get("path").asText()).isEqualTo("/not/an/api/555500******0008");
    String badEscape = raw("GET /api/v1/payments/5555000000000008/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(badEscape, 400);
    assertThat(path(badEscape)).isEqualTo("/api/v1/payments/555500******0008/%zz");
    // split by escaped separators: a dash, a non-breaking space pasted from a web page
    for (String escaped : new String[] {"4000%2D0000%2D0000%2D0002", "4000%C2%A00000%C2%A00000%C2%A00002"}) {
      Answer split = gw.get("/api/v1/payments/" + escaped);
      assertThat(split.status()).isEqualTo(404);
      assertThat(split.json().get("path").asText()).as(escaped).isEqualTo("/api/v1/payments/400000******0002");
    }
    // one malformed escape elsewhere in the path does not leave the split number unmasked
    String splitAndBad = raw("GET /api/v1/payments/4000%2D0000%2D0000%2D0002/%zz HTTP/1.1\r\nHost: x\r\n"
        + "Connection: close\r\n\r\n");
    assertJsonError(splitAndBad, 400);
    assertThat(path(splitAndBad)).isEqualTo("/api/v1/payments/400000******0002/%zz");
  }

  /** A card number across the 2,048th character of a path Jetty refuses is masked, not cut to ten digits in clear. */
  @Test
  void a_card_number_across_the_cut_of_a_long_path_is_masked() throws Exception {
    String before = "/" + "a".repeat(2036) + "/";
    String response = raw("GET " + before + "4111111111111111/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(response, 400);
    assertThat(path(response)).startsWith(before + "411111").doesNotContain("4111111").endsWith("…");
  }

  @Test
  void a_bad_uri_escape_is_a_400_in_the_envelope() throws Exception {
    String response = raw("GET /api/v1/payments/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(response, 400);
    // refused by Jetty before our filters ran, and still named like every other answer
    java.util.regex.Matcher header = java.util.regex.Pattern.compile("(?im)^X-Request-Id: (\\S+)$").matcher(response);
    assertThat(header.find()).as(response).isTrue();
    // the envelope has the contract's fields only: the id is in the header
    assertThat(TestGateway.JSON.readTree(response.substring(response.lastIndexOf("\r\n\r\n") + 4)).has("requestId"))
        .isFalse();
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

  @Test
  void a_bad_uri_escape_names_the_path_as_received_without_the_query() throws Exception {
    String response = raw("GET /api/v1/payments/%zz?referenceId=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(response, 400);
    assertThat(path(response)).isEqualTo("/api/v1/payments/%zz");
    String checkout = raw("GET /checkout/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(path(checkout)).isEqualTo("/checkout/%zz");
    String absolute = raw("GET http://x/api/v1/payments/%zz?a=b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(path(absolute)).isEqualTo("/api/v1/payments/%zz");
  }

  @Test
  void other_uris_jetty_refuses_name_the_path_as_received() throws Exception {
    String aboveRoot = raw("GET /api/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(aboveRoot, 400);
    assertThat(path(aboveRoot)).isEqualTo("/api/../../etc/passwd");
    String connect = raw("CONNECT /api/v1/payments HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(connect, 400);
    assertThat(path(connect)).isEqualTo("/api/v1/payments");
    String version = raw("GET /api/v1/payments?limit=1 HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(version, 505);
    assertThat(path(version)).isEqualTo("/api/v1/payments");
  }

  @Test
  void an_overlong_uri_names_as_much_of_the_path_as_was_read() throws Exception {
    String query = raw("GET /api/v1/payments?x=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(path(query)).isEqualTo("/api/v1/payments");
    String longPath = raw("GET /api/v1/payments/" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(longPath, 414);
    assertThat(path(longPath)).startsWith("/api/v1/payments/aaaa").endsWith("a…").hasSize(2049);
  }

  @Test
  void an_overlong_uri_that_arrives_in_parts_names_its_path() throws Exception {
    String response = rawInParts("GET /api/v1/pay", "ments?x=" + "a".repeat(3_000), "a".repeat(20_000)
        + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertJsonError(response, 414);
    assertThat(path(response)).isEqualTo("/api/v1/payments");
  }

  /**
   * A client that sends a body over the limit whole, as most clients do before they read, gets
   * the 413 and keeps its connection for its next request: the server reads the rest of the
   * body instead of closing the connection under a client still writing, which resets it and
   * can lose the answer.
   */
  @Test
  void an_oversized_body_is_read_to_its_end_and_answered_413_on_a_connection_that_stays_usable() throws Exception {
    String body = "{\"description\":\"" + "x".repeat(200_000) + "\"}";
    String oversized = "POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    String next = "GET /api/v1/nothing-here HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    String answers = raw(oversized + next);
    assertThat(answers).startsWith("HTTP/1.1 413").contains("HTTP/1.1 404");
    assertThat(answers.substring(0, answers.indexOf("HTTP/1.1 404"))).doesNotContain("Connection: close");
    assertThat(path(answers)).isEqualTo("/api/v1/nothing-here");
  }

  /**
   * A client that waits for {@code 100 Continue} before sending a body over the limit is told
   * 413 at once, and not asked to send what would only be read for nothing; so is one that
   * announces more than is read for nothing, whose body is not waited for. A form's body was
   * read by Jersey, to find its parameters, before any filter could refuse it: 200 such
   * requests to the checkout, which needs no credentials, held every thread.
   */
  @Test
  void an_oversized_body_not_sent_yet_is_refused_at_once() throws Exception {
    String[][] cases = {
        {"/api/v1/payments", "application/json", "Expect: 100-continue\r\nContent-Length: 200000"},
        {"/checkout/abc", "application/x-www-form-urlencoded", "Expect: 100-continue\r\nContent-Length: 200000"},
        {"/api/v1/payments", "application/x-www-form-urlencoded", "Content-Length: 5000000"}};
    for (String[] c : cases) {
      try (Socket s = new Socket("127.0.0.1", gw.app.port())) {
        s.setSoTimeout(10_000);
        s.getOutputStream().write(("POST " + c[0] + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + c[1] + "\r\n" + c[2]
            + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(answer).as("%s %s", c[0], c[2]).doesNotContain("100 Continue");
        assertJsonError(answer, 413);
        assertThat(answer).contains("Connection: close");
      }
    }
  }

  /**
   * A body over the limit sent in chunks, without a declared length, is found over it while
   * read, and is a 413 in the envelope as well, not a 500, on the gateway and the merchant API.
   */
  @Test
  void an_oversized_chunked_body_is_a_413_too() throws Exception {
    String chunk = "{\"description\":\"" + "x".repeat(70_000) + "\"}";
    String[] user = gw.merchantUser(gw.merchant, "chunks@shop.example", io.tollgate.domain.user.Permission.values());
    long bins = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.BIN, "chunked", false).id();
    Map<String, String> auth = Map.of("/api/v1/payments", "Bearer " + gw.apiKey,
        "/merchant-api/v1/bin-groups/" + bins + "/bins", "Basic " + java.util.Base64.getEncoder()
            .encodeToString((user[0] + ":" + user[1]).getBytes(StandardCharsets.UTF_8)));
    for (String path : auth.keySet()) {
      String request = "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + auth.get(path)
          + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
          + Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n0\r\n\r\n";
      String answer = raw(request);
      assertThat(answer).as(path).startsWith("HTTP/1.1 413").contains("\"status\":413");
      assertThat(path(answer)).isEqualTo(path);
    }
  }

  /**
   * A body sent to no resource is held to the limit too: it was read whole, however large, to
   * answer the 404 on a connection kept alive.
   */
  @Test
  void an_oversized_body_to_an_unknown_path_is_not_read_whole() throws Exception {
    String body = "x".repeat(200_000);
    String answer = raw("POST /api/v1/nonexistent HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n"
        + body);
    assertThat(answer).startsWith("HTTP/1.1 413");
  }

  @Test
  void a_refused_request_after_a_served_one_names_its_own_path() throws Exception {
    String served = "GET /api/v1/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n";
    String overlong = raw(served + "GET /api/v1/balances?x=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(overlong).startsWith("HTTP/1.1 404").contains("HTTP/1.1 414");
    assertThat(path(overlong)).isEqualTo("/api/v1/balances");
    String unreadable = raw(served + "NONSENSE\r\n\r\n");
    assertThat(unreadable).startsWith("HTTP/1.1 404").contains("HTTP/1.1 400");
    assertThat(path(unreadable)).isEmpty();
  }

  @Test
  void a_request_line_without_a_target_has_an_empty_path() throws Exception {
    String response = raw("\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003 x\r\n\r\n");
    assertThat(response).startsWith("HTTP/1.1 400");
    assertThat(path(response)).isEmpty();
  }
}
