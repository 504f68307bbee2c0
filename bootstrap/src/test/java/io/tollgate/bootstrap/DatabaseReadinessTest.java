package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The readiness check of the database, on a clock the test moves. */
class DatabaseReadinessTest {

  private static final Database.Health UP = new Database.Health(true, true, null);

  /**
   * A check stuck for good (its connection cut by a network partition without a word) kept every
   * later probe waiting on it: readiness stayed down for hours after the database was back.
   */
  @Test
  void a_check_stuck_past_the_limit_is_abandoned_for_a_fresh_one() throws Exception {
    AtomicLong now = new AtomicLong();
    CountDownLatch partitionEnds = new CountDownLatch(1);
    AtomicInteger checks = new AtomicInteger();
    Supplier<Database.Health> health = () -> {
      if (checks.incrementAndGet() == 1) {
        try {
          partitionEnds.await(60, TimeUnit.SECONDS); // as a read on a dead socket: no answer
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return UP;
    };
    DatabaseReadiness readiness = new DatabaseReadiness(health, Duration.ofSeconds(2), Duration.ofSeconds(10),
        now::get);
    try {
      assertThat(readiness.health().problem()).isEqualTo("the database did not answer within 2000 ms");
      now.addAndGet(Duration.ofSeconds(9).toNanos());
      assertThat(readiness.health().problem()).as("within the limit the check under way is waited for")
          .isEqualTo("the database did not answer within 2000 ms");
      assertThat(checks).hasValue(1);

      now.addAndGet(Duration.ofSeconds(2).toNanos());
      assertThat(readiness.health()).as("past it, a fresh check answers").isEqualTo(UP);
      assertThat(checks).hasValue(2);
    } finally {
      partitionEnds.countDown();
    }
  }
}
