package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The services read times to the microsecond, as PostgreSQL stores them: with nanoseconds, a
 * payment created in the last half microsecond of a second was answered (and sent in its
 * webhook) with that second, and shown by every later read with the next one.
 */
class ServiceClockTest {

  @Test
  void the_services_read_the_time_to_the_microsecond_the_database_keeps() {
    for (int i = 0; i < 1_000; i++) {
      Instant now = Tollgate.Services.CLOCK.instant();
      assertThat(now.getNano() % 1_000).as(now.toString()).isZero();
    }
    assertThat(Tollgate.Services.CLOCK.getZone()).isEqualTo(java.time.ZoneOffset.UTC);
  }
}
