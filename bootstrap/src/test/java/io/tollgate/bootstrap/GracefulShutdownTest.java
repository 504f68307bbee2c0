package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
        WebhookReliabilityTest.Started started = WebhookReliabilityTest.awaitStarted(child);
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
}
