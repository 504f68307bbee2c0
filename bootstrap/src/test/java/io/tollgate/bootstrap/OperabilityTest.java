package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/** Health, metrics and request ids: what an operator relies on. */
class OperabilityTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static TestGateway.Answer plainGet(String path) {
    return gw.send(HttpRequest.newBuilder(gw.uri(path)).GET());
  }

  @Test
  void liveness_and_readiness_report_their_checks() {
    TestGateway.Answer live = plainGet("/health/live");
    assertThat(live.status()).isEqualTo(200);
    assertThat(live.json().get("status").asText()).isEqualTo("UP");
    TestGateway.Answer ready = plainGet("/health/ready");
    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
    JsonNode checks = ready.json().get("checks");
    assertThat(checks.get("database").asText()).isEqualTo("UP");
    assertThat(checks.get("migrations").asText()).isEqualTo("UP");
    assertThat(checks.get("webhookDispatcher").asText()).isEqualTo("UP");
    String scrape = plainGet("/metrics").body();
    assertThat(scrape).contains("tollgate_jobs_progress_age_seconds");
    assertThat(metric(scrape, "tollgate_jobs_progress_age_seconds")).as("the jobs keep up").isLessThan(30);
    assertThat(scrape).contains("tollgate_jobs_failures_total{job=\"checkout timeouts\"}");
    assertThat(metric(scrape, "tollgate_jobs_failures_total")).as("no job failed").isZero();
  }

  static double metric(String scrape, String name, String... labels) {
    double sum = 0;
    for (String line : scrape.split("\n")) {
      if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
        continue;
      }
      boolean all = true;
      for (String label : labels) {
        all &= line.contains(label);
      }
      if (all) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  @Test
  void metrics_move_as_payments_and_webhooks_go_through() throws Exception {
    String before = plainGet("/metrics").body();
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      for (int i = 0; i < 5; i++) {
        String id = gw.post("/api/v1/payments", """
            {"paymentType":"DEPOSIT","amount":4,"currency":"EUR","webhookUrl":"%s",
             "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}"""
            .formatted(receiver.url("/m"))).json().at("/result/id").asText();
        gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.1\"}");
      }
      assertThat(WebhookReceiver.await(() -> receiver.received().size() == 5, Duration.ofSeconds(10))).isTrue();
      // The dispatcher counts an attempt once the receiver's answer is back: wait for it with the
      // receiver still open, or closing it would cut the last answers off mid-flight.
      WebhookReceiver.await(() -> metric(plainGet("/metrics").body(), "tollgate_webhooks_attempts_total",
          "outcome=\"delivered\"") - metric(before, "tollgate_webhooks_attempts_total", "outcome=\"delivered\"") >= 5,
          Duration.ofSeconds(10));
    }
    TestGateway.Answer after = plainGet("/metrics");
    assertThat(after.status()).isEqualTo(200);
    assertThat(after.header("Content-Type")).startsWith("text/plain");
    String now = after.body();
    assertThat(metric(now, "http_server_requests_seconds_count", "api=\"gateway\"", "route=\"/payments\"",
        "method=\"POST\"", "status=\"200\"")
        - metric(before, "http_server_requests_seconds_count", "api=\"gateway\"", "route=\"/payments\"",
        "method=\"POST\"", "status=\"200\"")).isEqualTo(5);
    assertThat(metric(now, "http_server_requests_seconds_count", "route=\"/payments/{id}\"", "method=\"PATCH\""))
        .isGreaterThanOrEqualTo(5);
    assertThat(metric(now, "tollgate_payments_new_total", "type=\"DEPOSIT\"")
        - metric(before, "tollgate_payments_new_total", "type=\"DEPOSIT\"")).isEqualTo(5);
    assertThat(metric(now, "tollgate_payments_moved_total", "state=\"COMPLETED\"")
        - metric(before, "tollgate_payments_moved_total", "state=\"COMPLETED\"")).isEqualTo(5);
    assertThat(metric(now, "tollgate_webhooks_attempts_total", "outcome=\"delivered\"")
        - metric(before, "tollgate_webhooks_attempts_total", "outcome=\"delivered\"")).isEqualTo(5);
    assertThat(metric(now, "tollgate_webhooks_lag_seconds_count")).isGreaterThanOrEqualTo(5);
    assertThat(now).as("card deposits whose terminal's answer is overdue, for an alert")
        .containsPattern("(?m)^tollgate_payments_unanswered [0-9.]+$");
    assertThat(now).contains("tollgate_webhooks_outbox_pending").contains("hikaricp_connections")
        .contains("jvm_memory_used_bytes");
  }

  @Test
  void every_answer_carries_a_request_id_which_the_error_envelope_and_the_log_repeat() throws Exception {
    try (AccessLog log = AccessLog.capture()) {
      TestGateway.Answer generated = gw.get("/api/v1/payments");
      assertThat(generated.header("X-Request-Id")).matches("[0-9a-f-]{36}");

      TestGateway.Answer failed = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\"}"))
          .header("Content-Type", "application/json").header("Authorization", "Bearer " + gw.apiKey)
          .header("X-Request-Id", "order-1001.attempt-2"));
      assertThat(failed.status()).isEqualTo(400);
      assertThat(failed.header("X-Request-Id")).isEqualTo("order-1001.attempt-2");
      assertThat(failed.json().has("requestId")).as("the envelope has the contract's fields only").isFalse();

      TestGateway.Answer hostile = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
          .GET().header("Authorization", "Bearer " + gw.apiKey).header("X-Request-Id", "bad id <script>"));
      assertThat(hostile.header("X-Request-Id")).as("an unsafe id is replaced").matches("[0-9a-f-]{36}");

      assertThat(log.lines(3)).anySatisfy(e -> {
        assertThat(e.getMDCPropertyMap().get("requestId")).isEqualTo("order-1001.attempt-2");
        assertThat(e.getFormattedMessage()).contains("POST /api/v1/payments -> 400");
      });
    }
  }

  /**
   * An access line keeps its status and duration when the path holds a card number, in either
   * log format: masked only as part of the whole line, the card number, status and duration read
   * as one number split by spaces, and were masked whole.
   */
  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void an_access_line_whose_path_holds_a_card_number_keeps_its_status(String format) throws Exception {
    List<ILoggingEvent> lines;
    try (AccessLog log = AccessLog.capture()) {
      assertThat(gw.get("/api/v1/payments/4000000000000002").status()).isEqualTo(404);
      // a path ending in digits that are no card number, which the status once joined
      assertThat(gw.get("/api/v1/payments/123456789").status()).isEqualTo(404);
      lines = log.lines(2);
    }

    // written as the service writes it, through its logging configuration in that format
    LoggerContext service = new LoggerContext();
    String[] written = LoggingConfigurationTest.log(format, service,
        () -> lines.forEach(line -> service.getLogger("io.tollgate.access").callAppenders(line)));
    assertThat(written).hasSize(2);
    List<String> messages = new java.util.ArrayList<>();
    for (String w : written) {
      messages.add(format.equals("json") ? TestGateway.JSON.readTree(w).get("message").asText()
          : w.substring(w.indexOf(" - ") + 3));
    }
    assertThat(messages.get(0)).matches("GET /api/v1/payments/400000\\*{6}0002 -> 404 in [0-9]+ms");
    assertThat(messages.get(1)).matches("GET /api/v1/payments/123456789 -> 404 in [0-9]+ms");
  }

  /**
   * A long path is logged by its first 512 characters and a count of the rest, whether our API or
   * Jetty answers it: written whole, paths of 7.5 KB sent by a few connections wrote half a
   * gigabyte of log in seconds. A card number across the cut is masked before the path is cut.
   */
  @Test
  void an_access_line_quotes_a_long_path_only_in_part() throws Exception {
    String prefix = "/api/v1/payments/";
    String cardAcrossTheCut = prefix + "a".repeat(512 - prefix.length() - 9) + "/4000000000000002/" + "b".repeat(7_000);
    String refusedByJetty = prefix + "c".repeat(7_500) + "/%zz";
    List<ILoggingEvent> lines;
    try (AccessLog log = AccessLog.capture()) {
      assertThat(gw.get(cardAcrossTheCut).status()).isEqualTo(404);
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", gw.app.port())) {
        s.setSoTimeout(10_000);
        s.getOutputStream().write(("GET " + refusedByJetty + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertThat(new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
            .startsWith("HTTP/1.1 400");
      }
      lines = log.lines(2);
    }
    List<String> messages = lines.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(messages).hasSize(2).allSatisfy(m -> assertThat(m.length()).isLessThan(600))
        .noneMatch(m -> m.contains("40000000"))
        .anyMatch(m -> m.matches("GET /api/v1/payments/a{486}/400000\\*\\*…\\(7009 more\\) -> 404 in [0-9]+ms"))
        .anyMatch(m -> m.matches("GET /api/v1/payments/c{495}…\\(7009 more\\) -> 400 in [0-9]+ms"));
  }

  /**
   * The access log's lines, kept while it is open. Kept by the root logger, after its console
   * appender: kept by the access logger, a line reached the test before the console had written
   * it, and a test that then took over the console's stream (as
   * {@link LoggingConfigurationTest#log} does) found the service's own line in it as well.
   */
  static final class AccessLog implements AutoCloseable {
    private final Logger logger = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> captured = capturing();

    private AccessLog() {
      captured.addFilter(new ch.qos.logback.core.filter.Filter<>() {
        @Override
        public ch.qos.logback.core.spi.FilterReply decide(ILoggingEvent e) {
          return e.getLoggerName().equals("io.tollgate.access") ? ch.qos.logback.core.spi.FilterReply.NEUTRAL
              : ch.qos.logback.core.spi.FilterReply.DENY;
        }
      });
      captured.start();
      logger.addAppender(captured);
    }

    static AccessLog capture() {
      return new AccessLog();
    }

    /** As {@link OperabilityTest#accessLines}: once there are {@code count} of them, or 5 s have passed. */
    List<ILoggingEvent> lines(int count) throws InterruptedException {
      return accessLines(captured, count);
    }

    @Override
    public void close() {
      logger.detachAppender(captured);
    }
  }

  /**
   * Keeps log events with the request's MDC as it was when they were logged. Logback reads an
   * event's MDC when something first asks for it: the access line is appended as the response
   * reaches the client, and read here on the test's thread, whose MDC is empty, unless the
   * request's thread captured it first (CI once saw it read here, and the request id missing).
   */
  static ListAppender<ILoggingEvent> capturing() {
    return new ListAppender<>() {
      @Override
      protected void append(ILoggingEvent e) {
        e.prepareForDeferredProcessing();
        super.append(e);
      }
    };
  }

  /**
   * The access lines captured so far, once there are {@code count} of them or 5 s have passed: a
   * request's line is written after its answer is sent, so it may come after the client has it.
   * The appender adds lines under its own lock, which the copy takes too.
   */
  static List<ILoggingEvent> accessLines(ListAppender<ILoggingEvent> captured, int count) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (true) {
      List<ILoggingEvent> lines;
      synchronized (captured) {
        lines = List.copyOf(captured.list);
      }
      if (lines.size() >= count || System.nanoTime() > end) {
        return lines;
      }
      Thread.sleep(10);
    }
  }

  /**
   * A request id the caller chose that holds a card number (found as the masking finds them, and
   * Luhn-valid) is not used, as an insane one is not: it would go unmasked into the response
   * header, the error envelope and every log line of the request. A new id replaces it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"4000000000000002", "order-4000-0000-0000-0002", "pan:4000000000000002.retry-1",
      "txn.4000-000000-000002", "202611240005"})
  void a_request_id_that_can_hold_a_card_number_is_replaced(String given) throws Exception {
    try (AccessLog log = AccessLog.capture()) {
      TestGateway.Answer failed = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\"}"))
          .header("Content-Type", "application/json").header("Authorization", "Bearer " + gw.apiKey)
          .header("X-Request-Id", given));
      assertThat(failed.status()).isEqualTo(400);
      String id = failed.header("X-Request-Id");
      assertThat(id).as("a new id").matches("[0-9a-f-]{36}");
      assertThat(failed.body()).doesNotContain(given);

      TestGateway.Answer refused = gw.send(HttpRequest.newBuilder(gw.uri("/merchant-api/v1/payments")).GET()
          .header("X-Request-Id", given));
      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.header("X-Request-Id")).matches("[0-9a-f-]{36}");

      assertThat(log.lines(2)).hasSize(2).allSatisfy(e ->
          assertThat(e.getMDCPropertyMap().get("requestId")).isNotEqualTo(given).matches("[0-9a-f-]{36}"));
    }
  }

  /**
   * A request Jetty refuses before our filters run (here a malformed percent-escape; the same
   * path answers the 503s of a stopping server) gets its access-log line too, with the id its
   * answer carries, so that a client's report can be found in the log.
   */
  @Test
  void a_request_refused_before_it_reaches_the_api_has_its_access_line() throws Exception {
    try (AccessLog log = AccessLog.capture()) {
      String response;
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", gw.app.port())) {
        s.setSoTimeout(10_000);
        s.getOutputStream().write("GET /api/v1/payments/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        response = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      }
      assertThat(response).startsWith("HTTP/1.1 400");
      java.util.regex.Matcher id = java.util.regex.Pattern.compile("(?im)^X-Request-Id: (\\S+)$").matcher(response);
      assertThat(id.find()).as(response).isTrue();

      List<ILoggingEvent> lines = log.lines(1);
      assertThat(lines).anySatisfy(e -> {
        assertThat(e.getFormattedMessage()).startsWith("GET /api/v1/payments/%zz -> 400 in ");
        assertThat(e.getMDCPropertyMap().get("requestId")).isEqualTo(id.group(1));
      });
    }
  }

  /**
   * A client may send any token as its method. Each made-up method used to add a series (with
   * its histogram) to every scrape for good, and a long one kilobytes to each: a few thousand
   * requests made /metrics tens of megabytes, and then ran the heap out. They are all counted as
   * {@code OTHER} now, and the access line shows the start of one.
   */
  @Test
  void made_up_methods_add_no_series_to_the_metrics_and_little_to_the_log() throws Exception {
    String longMethod = "X".repeat(3_000);
    try (AccessLog log = AccessLog.capture()) {
      for (String method : List.of("BREW", "FROBNICATE", "QUERYX", longMethod)) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", gw.app.port())) {
          s.setSoTimeout(10_000);
          s.getOutputStream().write((method + " /api/v1/payments HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
              .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
          assertThat(new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1))
              .startsWith("HTTP/1.1 4");
        }
      }
      List<ILoggingEvent> lines = log.lines(4);
      assertThat(lines).hasSize(4).allSatisfy(e -> assertThat(e.getFormattedMessage()).hasSizeLessThan(100));
      assertThat(lines).anySatisfy(e -> assertThat(e.getFormattedMessage()).startsWith("BREW /api/v1/payments -> "));
      assertThat(lines).anySatisfy(e -> assertThat(e.getFormattedMessage())
          .startsWith("XXXXXXXXXXXXXXXX... /api/v1/payments -> "));
    }
    String metrics = plainGet("/metrics").body();
    assertThat(metrics).doesNotContain("BREW").doesNotContain("FROBNICATE").doesNotContain("XXXXXXXX");
    assertThat(metric(metrics, "http_server_requests_seconds_count", "api=\"gateway\"", "method=\"OTHER\""))
        .isGreaterThanOrEqualTo(4);
  }

  /**
   * Ids with digits that are no card number are the caller's to keep: numbered by date or
   * sequence (12 digits or more, but not Luhn-valid), UUIDs and long hex ids too.
   */
  @ParameterizedTest
  @ValueSource(strings = {"order-12345678901", "1234-5678-901", "123456789012345678901", "order-202611240001",
      "123456789012", "4000000000000003",
      "123e4567-e89b-12d3-a456-426614174000", "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "2026.11.24:1234"})
  void a_request_id_that_cannot_hold_a_card_number_is_kept(String given) {
    TestGateway.Answer failed = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + gw.apiKey)
        .header("X-Request-Id", given));
    assertThat(failed.header("X-Request-Id")).isEqualTo(given);
  }

  @Test
  void card_numbers_are_masked_in_log_messages() {
    assertThat(MaskedMessageConverter.mask("card 4000000000000002 and 5555 0000 x"))
        .isEqualTo("card 400000******0002 and 5555 0000 x");
    String paymentId = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    assertThat(MaskedMessageConverter.mask("payment " + paymentId)).isEqualTo("payment " + paymentId);
    Matcher m = Pattern.compile("\\d+").matcher(MaskedMessageConverter.mask("/api/v1/payments/4242424242424242"));
    while (m.find()) {
      assertThat(m.group().length()).isLessThan(12);
    }
  }
}
