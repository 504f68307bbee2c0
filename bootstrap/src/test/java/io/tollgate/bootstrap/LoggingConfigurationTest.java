package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
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
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    context.putProperty("TOLLGATE_LOG_FORMAT", format);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(getClass().getResource("/logback.xml"));
      context.getLogger("io.tollgate.example").info("paid with 4111111111111111");
      context.getLogger("org.eclipse.jetty.example").info("below the level set for Jetty");
      context.stop();
    } finally {
      System.setErr(original);
    }

    java.util.List<Status> status = context.getStatusManager().getCopyOfStatusList();
    assertThat(status)
        .as("logback's start-up status:%n%s", status.stream().map(Status::toString)
            .collect(java.util.stream.Collectors.joining("\n")))
        .allMatch(s -> s.getEffectiveLevel() < Status.WARN);
    String[] lines = err.toString(StandardCharsets.UTF_8).strip().split("\n");
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
}
