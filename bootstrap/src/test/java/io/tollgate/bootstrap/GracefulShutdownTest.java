package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code serve} on its embedded database, stopped by SIGTERM as a service manager or Ctrl+C
 * stops it: what is in flight finishes and is recorded before the database stops.
 */
class GracefulShutdownTest {

  @Test
  void sigterm_finishes_a_webhook_delivery_in_flight_before_the_embedded_database_stops() throws Exception {
    Path data = ScratchDirectories.create("tollgate-sigterm");
    try (WebhookReceiver receiver = new WebhookReceiver().delayEachAnswer(Duration.ofSeconds(2))) {
      Process child = WebhookReliabilityTest.startChild(WebhookReliabilityTest.instanceEnv(Map.of(
          "TOLLGATE_DATA_DIR", data.toString())));
      try {
        Started started = awaitStart(child);
        WebhookReliabilityTest.paidDeposit(HttpClient.newHttpClient(), started.base(), started.apiKey(),
            receiver.url("/term"));
        assertThat(WebhookReceiver.await(() -> receiver.arrived() == 1, Duration.ofSeconds(20))).isTrue();
        assertThat(receiver.received()).as("the answer is still 2 s away").isEmpty();

        child.destroy(); // SIGTERM
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      } finally {
        child.destroyForcibly();
      }
      assertThat(receiver.received()).hasSize(1);
    }
    // The database the child stopped, opened again: the delivery was recorded, nothing is held.
    try (Database db = Database.start(new DatabaseSettings(null, null, null, data.resolve("postgres"), 2))) {
      assertThat(WebhookReliabilityTest.count(db, "SELECT count(*) FROM webhook_events WHERE status = 'DELIVERED'"))
          .isEqualTo(1);
      assertThat(WebhookReliabilityTest.count(db, "SELECT count(*) FROM webhook_events WHERE lease_token IS NOT NULL"))
          .isZero();
      assertThat(WebhookReliabilityTest.count(db, "SELECT count(*) FROM webhook_attempts WHERE status_code = 200"))
          .isEqualTo(1);
    }
  }

  private record Started(URI base, String apiKey) {}

  /** Reads the child's output until it listens: its port, and the demo merchant's API key printed before. */
  private static Started awaitStart(Process child) throws Exception {
    Pattern running = Pattern.compile("running at http://[^:]+:(\\d+)");
    Pattern key = Pattern.compile("API key:\\s+(\\S+)");
    CompletableFuture<Started> started = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      String apiKey = null;
      try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          Matcher k = key.matcher(line);
          if (k.find()) {
            apiKey = k.group(1);
          }
          Matcher m = running.matcher(line);
          if (m.find()) {
            started.complete(new Started(URI.create("http://127.0.0.1:" + m.group(1)), apiKey));
          }
        }
      } catch (Exception e) {
        started.completeExceptionally(e);
      }
      started.completeExceptionally(new IllegalStateException("the service exited before it listened"));
    }, "child-output");
    reader.setDaemon(true);
    reader.start();
    return started.get(90, TimeUnit.SECONDS);
  }
}
