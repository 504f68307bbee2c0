package io.tollgate.rest.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimestampsTest {

  private static final DateTimeFormatter SPEC = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

  private static String bySpec(Instant instant) {
    return SPEC.format(LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.SECONDS), ZoneOffset.UTC));
  }

  @Test
  void recordTimesAreUtcToTheSecond() {
    assertThat(Timestamps.record(Instant.parse("2026-11-22T09:13:07.999Z"))).isEqualTo("2026-11-22T09:13:07");
    assertThat(Timestamps.record(Instant.parse("2026-01-02T03:04:05Z"))).isEqualTo("2026-01-02T03:04:05");
    assertThat(Timestamps.record(Instant.parse("0999-12-31T23:59:59Z"))).isEqualTo("0999-12-31T23:59:59");
    assertThat(Timestamps.record(Instant.parse("1970-01-01T00:00:00Z"))).isEqualTo("1970-01-01T00:00:00");
    assertThat(Timestamps.record(null)).isNull();
  }

  @Test
  void recordTimesMatchTheFormatterAcrossTheRange() {
    SplittableRandom random = new SplittableRandom(7);
    long from = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    long to = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    for (int i = 0; i < 10_000; i++) {
      Instant instant = Instant.ofEpochSecond(random.nextLong(from, to + 1), random.nextInt(1_000_000_000));
      assertThat(Timestamps.record(instant)).isEqualTo(bySpec(instant));
    }
  }

  @Test
  void yearsOutsideFourDigitsFallBackToTheFormatter() {
    Instant far = Instant.parse("+10000-01-01T00:00:00Z");
    assertThat(Timestamps.record(far)).isEqualTo(bySpec(far)).startsWith("+10000-");
    Instant before = Instant.parse("-0001-06-01T12:00:00Z");
    assertThat(Timestamps.record(before)).isEqualTo(bySpec(before));
  }

  @Test
  void recordTimesParseBackAsFilters() {
    Instant t = Instant.parse("2026-11-22T09:13:07Z");
    assertThat(Timestamps.parseFilter("created.gte", Timestamps.record(t))).isEqualTo(t);
  }

  /** What a client generated from our OpenAPI documents sends for a {@code date-time}. */
  @Test
  void filtersTakeRfc3339DateTimesWithAnOffsetAsTheInstantTheyName() {
    Instant t = Instant.parse("2026-11-25T00:00:00Z");
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-25T00:00:00Z")).isEqualTo(t);
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-25T00:00:00.000Z")).isEqualTo(t);
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-25T01:00:00+01:00")).isEqualTo(t);
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-24T19:00:00.250-05:00")).isEqualTo(t.plusMillis(250));
    for (String bad : new String[] {"2026-11-25 00:00:00Z", "+2026-11-25T00:00:00Z", "20260-11-25T00:00:00Z",
        "2026-11-25T00:00:00+25:00", "2026-11-25", "2026-11-25T00:00:00.Z"}) {
      assertThatThrownBy(() -> Timestamps.parseFilter("created.gte", bad)).as(bad)
          .isInstanceOf(io.tollgate.domain.DomainException.Invalid.class);
    }
  }

  /**
   * What Python's {@code datetime.isoformat()} and Java's {@code LocalDateTime.toString()} write for a
   * time in UTC: fractions of a second when there are some, no seconds when they are 0. Read as UTC, as
   * our own form is, and as the same times with an offset are.
   */
  @Test
  void filtersWithoutAnOffsetTakeFractionsOfASecondOrNoSecondsAsUtc() {
    Instant t = Instant.parse("2026-11-28T00:00:00Z");
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-28T00:00:00.500")).isEqualTo(t.plusMillis(500));
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-28T00:00:00.5")).isEqualTo(t.plusMillis(500));
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-28T00:00:00.000001")).isEqualTo(t.plusNanos(1000));
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-28T00:00:00.123456789"))
        .isEqualTo(t.plusNanos(123_456_789));
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-28T00:00")).isEqualTo(t);
    assertThat(Timestamps.parseFilter("created.gte", "2026-11-28T00:00Z")).isEqualTo(t);
    LocalDateTime local = LocalDateTime.of(2026, 11, 28, 9, 13, 0, 250_000_000);
    assertThat(Timestamps.parseFilter("created.gte", local.toString())).isEqualTo(local.toInstant(ZoneOffset.UTC));
    assertThat(Timestamps.parseFilter("created.gte", local.withNano(0).toString()))
        .isEqualTo(local.withNano(0).toInstant(ZoneOffset.UTC));
  }

  @Test
  void filtersWithoutAnOffsetStillRefuseWhatIsMalformed() {
    for (String bad : new String[] {"2026-11-28T00:00:00.", "2026-11-28T00:00:", "2026-11-28T00", "2026-11-28T",
        "2026-11-28T00:00:00.1234567891", "2026-11-28T00:00:00,5", "2026-11-28T00:00:60", "2026-11-28T24:00",
        "2026-11-28T0:00", "2026-11-28T00:00:5", "2026-02-30T00:00", "2026-11-28T00:00:00.5 ", "-2026-11-28T00:00"}) {
      assertThatThrownBy(() -> Timestamps.parseFilter("created.gte", bad)).as(bad)
          .isInstanceOf(io.tollgate.domain.DomainException.Invalid.class);
    }
  }

  @Test
  void filtersTakeFourDigitYearsOnly() {
    assertThat(Timestamps.parseFilter("created.gte", "0000-01-01T00:00:00")).isEqualTo(Instant.parse("0000-01-01T00:00:00Z"));
    assertThat(Timestamps.parseFilter("created.gte", "9999-12-31T23:59:59")).isEqualTo(Instant.parse("9999-12-31T23:59:59Z"));
    for (String bad : new String[] {"-5000-01-01T00:00:00", "+99999-01-01T00:00:00", "+2026-01-01T00:00:00",
        "20260-01-01T00:00:00", "-999999999-01-01T00:00:00", "2026-02-30T00:00:00", "2026-1-01T00:00:00"}) {
      assertThatThrownBy(() -> Timestamps.parseFilter("created.gte", bad)).as(bad)
          .isInstanceOf(io.tollgate.domain.DomainException.Invalid.class);
    }
  }
}
