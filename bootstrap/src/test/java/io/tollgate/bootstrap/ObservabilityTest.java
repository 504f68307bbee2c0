package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ObservabilityTest {

  /**
   * A gauge read from the database whose read hangs (the database's host gone without a reset:
   * the pool's connections have no socket timeout) shows NaN once the read has taken too long,
   * not the value from before the outage for as long as TCP takes to give up, up to hours.
   */
  @Test
  void a_database_gauge_whose_read_hangs_shows_nan_not_its_last_value() throws Exception {
    CountDownLatch outage = new CountDownLatch(1);
    AtomicInteger reads = new AtomicInteger();
    try (Observability observability = new Observability()) {
      observability.cachedGauge("test.pending", "a database count", () -> {
        if (reads.incrementAndGet() > 1) {
          try {
            outage.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return 7;
      }, Duration.ofMillis(50), Duration.ofMillis(500));
      assertThat(scraped(observability)).isEqualTo("7.0");

      assertThat(eventually(() -> "NaN".equals(scraped(observability)) && reads.get() > 1))
          .as("NaN while the read hangs").isTrue();
      outage.countDown();
      assertThat(eventually(() -> scraped(observability).equals("7.0"))).as("and the value once it answers").isTrue();
    }
  }

  private static String scraped(Observability observability) {
    for (String line : observability.scrape().split("\n")) {
      if (line.startsWith("test_pending ")) {
        return line.substring("test_pending ".length());
      }
    }
    return null;
  }

  private static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < until) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(20);
    }
    return false;
  }
}
