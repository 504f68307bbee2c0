package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The PostgreSQL driver logs a JDBC URL it cannot parse, whole, at WARNING through
 * java.util.logging, which {@link Main} routes into the service's log: the database password
 * in the URL must not reach the log in clear.
 */
class DatabaseUrlLoggingTest {

  @ParameterizedTest
  @ValueSource(strings = {
      "jdbc:postgresql://db.internal:5432?user=tg&password=s3cret", // no '/' after the port
      "jdbc:postgresql://db.internal:5432/tollgate/extra?user=tg&password=s3cret", // too many '/'
      "jdbc:postgresql://tg:s3cret@db.internal:5432", // userinfo, as pasted from elsewhere
  })
  void the_drivers_warning_about_a_malformed_url_masks_the_password(String url) throws Exception {
    java.util.logging.Logger julRoot = java.util.logging.LogManager.getLogManager().getLogger("");
    java.util.logging.Handler[] julHandlers = julRoot.getHandlers();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;
    CommandLineRun run;
    // Main's bridge, and standard error, where the service's console appender writes (it looks
    // System.err up on every write), so the lines are checked as the configured encoder wrote them.
    org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
    org.slf4j.bridge.SLF4JBridgeHandler.install();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      run = CommandLineRun.of(Map.of("TOLLGATE_DB_URL", url), "merchant", "create", "--name", "Logged");
    } finally {
      System.setErr(original);
      org.slf4j.bridge.SLF4JBridgeHandler.uninstall();
      for (java.util.logging.Handler h : julHandlers) {
        julRoot.addHandler(h);
      }
    }
    String logged = err.toString(StandardCharsets.UTF_8);

    assertThat(run.exit()).isEqualTo(1);
    assertThat(logged).as("the driver's warning is logged, so that this test sees it")
        .contains("org.postgresql.Driver").contains("JDBC URL");
    assertThat(logged).doesNotContain("s3cret").contains("***");
    assertThat(run.err()).doesNotContain("s3cret");
  }
}
