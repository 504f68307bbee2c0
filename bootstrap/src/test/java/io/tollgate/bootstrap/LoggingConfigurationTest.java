package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import io.tollgate.domain.group.Pan;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The service's own logging configuration, loaded as the jar loads it: in either format it
 * loads without a warning (logback prints its whole start-up status to the console when there
 * is one), writes one line per event to standard error and masks card numbers.
 */
class LoggingConfigurationTest {

  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void each_format_loads_cleanly_and_writes_masked_lines(String format) throws Exception {
    LoggerContext context = new LoggerContext();
    String[] lines = log(format, context, () -> {
      context.getLogger("io.tollgate.example").info("paid with 4111111111111111");
      context.getLogger("org.eclipse.jetty.example").info("below the level set for Jetty");
    });

    java.util.List<Status> status = context.getStatusManager().getCopyOfStatusList();
    assertThat(status)
        .as("logback's start-up status:%n%s", status.stream().map(Status::toString)
            .collect(java.util.stream.Collectors.joining("\n")))
        .allMatch(s -> s.getEffectiveLevel() < Status.WARN);
    assertThat(lines).hasSize(1);
    assertThat(lines[0]).doesNotContain("4111111111111111").contains("411111******1111");
    if (format.equals("json")) {
      JsonNode line = new ObjectMapper().readTree(lines[0]);
      assertThat(line.get("message").asText()).isEqualTo("paid with 411111******1111");
      assertThat(line.get("level").asText()).isEqualTo("INFO");
    } else {
      assertThat(lines[0]).contains(" INFO ", "io.tollgate.example - paid with");
    }
  }

  /**
   * A log format that does not exist is refused in one error, as any other setting is, without
   * logback's start-up status (some thirty lines) printed above it.
   */
  @org.junit.jupiter.api.Test
  void an_unknown_format_is_refused_without_logbacks_status_lines() throws Exception {
    Process child = WebhookReliabilityTest.startChild(java.util.Map.of("TOLLGATE_LOG_FORMAT", "xml",
        "TOLLGATE_PORT", "0"));
    try {
      assertThat(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      String printed = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.exitValue()).isNotZero();
      assertThat(printed.strip().lines().toList())
          .containsExactly("error: Invalid configuration:", "  TOLLGATE_LOG_FORMAT must be text or json");
    } finally {
      child.destroyForcibly();
    }
  }

  /**
   * The logs mask by the rule of the error envelopes ({@link Pan#maskForDisplay}), in messages
   * and in stack traces, in either format: a card number alone or in groups is masked, a number
   * of 20 digits or a payment id is not.
   */
  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void each_format_masks_by_the_rule_of_the_error_envelopes(String format) throws Exception {
    String[] messages = {"shopGroupId.eq=12345678901234567890 refused", "card 4111 1111 1111 1111 refused",
        "GET /api/v1/payments/0a1b2c3d4e5f607182934567a4b5c6d7 404 3ms", "card 4111-1111-1111-1111-12 refused"};
    LoggerContext context = new LoggerContext();
    String[] lines = log(format, context, () -> {
      for (String message : messages) {
        context.getLogger("io.tollgate.example").info(message);
      }
      context.getLogger("io.tollgate.example").warn("failed",
          new IllegalStateException("no such card 5555 0000 0000 0008"));
    });
    String all = String.join("\n", lines);
    for (String message : messages) {
      assertThat(all).contains(Pan.maskForDisplay(message));
    }
    assertThat(all).contains("12345678901234567890", "0a1b2c3d4e5f607182934567a4b5c6d7", "555500******0008")
        .doesNotContain("1111 1111", "1111-1111", "5555 0000 0000 0008");
  }

  /**
   * A library that logs a database URL (the PostgreSQL driver one it cannot parse) logs it whole:
   * in either format its password is masked, in the message and in a stack trace.
   */
  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void each_format_masks_the_passwords_of_urls(String format) throws Exception {
    LoggerContext context = new LoggerContext();
    String[] lines = log(format, context, () -> {
      context.getLogger("org.postgresql.Driver").warn("JDBC URL must contain a / at the end of the host or port: "
          + "jdbc:postgresql://db.internal:5432?user=tg&password=s3cret");
      context.getLogger("io.tollgate.example").warn("failed",
          new IllegalStateException("no driver for postgres://tg:hunter2@db.internal/tollgate"));
    });
    String all = String.join("\n", lines);
    assertThat(all).doesNotContain("s3cret", "hunter2")
        .contains("?user=tg&password=***", "postgres://tg:***@db.internal/tollgate");
  }

  /** The lines that {@code events} write to standard error through the service's configuration in {@code format}. */
  static String[] log(String format, LoggerContext context, Runnable events) throws Exception {
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    context.putProperty("TOLLGATE_LOG_FORMAT", format);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(LoggingConfigurationTest.class.getResource("/logback.xml"));
      events.run();
      context.stop();
    } finally {
      System.setErr(original);
    }
    return err.toString(StandardCharsets.UTF_8).strip().split("\n");
  }
}
