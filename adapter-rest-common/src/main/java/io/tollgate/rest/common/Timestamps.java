package io.tollgate.rest.common;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;

/** The two time formats of our APIs, always UTC. */
public final class Timestamps {

  /** Envelope timestamps: {@code 2026-11-22T09:13:07.412+00:00}. */
  private static final DateTimeFormatter ENVELOPE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSxxx").withZone(ZoneOffset.UTC);

  /** Record times and filters: {@code 2026-11-22T09:13:07}. */
  private static final DateTimeFormatter RECORD =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withResolverStyle(ResolverStyle.STRICT);

  /**
   * Filters: {@link #RECORD}'s form, or RFC 3339's, with a year of exactly four digits ({@code uuuu} would
   * also take a sign and more digits, years PostgreSQL cannot compare with). Seconds and their fraction may
   * be left out, with an offset or without one, as {@code datetime.isoformat()} and
   * {@code LocalDateTime.toString()} leave them out: {@code 2026-11-22T09:13}, {@code 2026-11-22T09:13:07.5}.
   */
  private static final DateTimeFormatter FILTER = new DateTimeFormatterBuilder()
      .parseCaseInsensitive()
      .appendValue(ChronoField.YEAR, 4).appendLiteral('-')
      .appendValue(ChronoField.MONTH_OF_YEAR, 2).appendLiteral('-')
      .appendValue(ChronoField.DAY_OF_MONTH, 2).appendLiteral('T')
      .appendValue(ChronoField.HOUR_OF_DAY, 2).appendLiteral(':')
      .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
      .optionalStart().appendLiteral(':').appendValue(ChronoField.SECOND_OF_MINUTE, 2)
      .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd()
      .optionalEnd()
      // as DateTimeFormatter.ISO_OFFSET_DATE_TIME reads offsets: Z, +01:00, also +0100 and +01
      .optionalStart().parseLenient().appendOffsetId().parseStrict()
      .toFormatter().withResolverStyle(ResolverStyle.STRICT);

  private Timestamps() {}

  public static String envelope(Instant instant) {
    return ENVELOPE.format(instant);
  }

  public static String record(Instant instant) {
    if (instant == null) {
      return null;
    }
    LocalDateTime t = LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.SECONDS), ZoneOffset.UTC);
    if (t.getYear() < 0 || t.getYear() > 9999) {
      return RECORD.format(t);
    }
    // By hand: a merchant page formats a hundred of these, and the formatter costs several
    // times more than the digits.
    char[] out = new char[19];
    digits(out, 0, t.getYear(), 4);
    out[4] = '-';
    digits(out, 5, t.getMonthValue(), 2);
    out[7] = '-';
    digits(out, 8, t.getDayOfMonth(), 2);
    out[10] = 'T';
    digits(out, 11, t.getHour(), 2);
    out[13] = ':';
    digits(out, 14, t.getMinute(), 2);
    out[16] = ':';
    digits(out, 17, t.getSecond(), 2);
    return new String(out);
  }

  private static void digits(char[] out, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      out[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  /**
   * Parses a filter value; a malformed one is a 400, never ignored. Our own form, read as UTC,
   * or an RFC 3339 date-time with its offset ({@code Z}, {@code +01:00}), as the {@code date-time}
   * of our OpenAPI documents makes generated clients send; either with or without fractions of a
   * second, or without the seconds.
   */
  public static Instant parseFilter(String field, String value) {
    if (value == null) {
      return null;
    }
    try {
      TemporalAccessor parsed = FILTER.parseBest(value, OffsetDateTime::from, LocalDateTime::from);
      return parsed instanceof OffsetDateTime withOffset ? withOffset.toInstant()
          : ((LocalDateTime) parsed).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw new DomainException.Invalid(Violation.of(field,
          "must be a date-time in the form YYYY-MM-DDTHH:MM:SS (UTC), or with an offset (Z, +01:00)", value));
    }
  }
}
