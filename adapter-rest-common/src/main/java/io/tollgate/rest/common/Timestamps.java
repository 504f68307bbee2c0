package io.tollgate.rest.common;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoUnit;

/** The two time formats of our APIs, always UTC. */
public final class Timestamps {

  /** Envelope timestamps: {@code 2026-11-22T09:13:07.412+00:00}. */
  private static final DateTimeFormatter ENVELOPE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSxxx").withZone(ZoneOffset.UTC);

  /** Record times and filters: {@code 2026-11-22T09:13:07}. */
  private static final DateTimeFormatter RECORD =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withResolverStyle(ResolverStyle.STRICT);

  /**
   * Filters: {@link #RECORD}'s form with a year of exactly four digits. {@code uuuu} would also
   * take a sign and more digits, years PostgreSQL cannot compare with.
   */
  private static final DateTimeFormatter FILTER = new java.time.format.DateTimeFormatterBuilder()
      .appendValue(java.time.temporal.ChronoField.YEAR, 4).appendLiteral('-')
      .appendValue(java.time.temporal.ChronoField.MONTH_OF_YEAR, 2).appendLiteral('-')
      .appendValue(java.time.temporal.ChronoField.DAY_OF_MONTH, 2).appendLiteral('T')
      .appendValue(java.time.temporal.ChronoField.HOUR_OF_DAY, 2).appendLiteral(':')
      .appendValue(java.time.temporal.ChronoField.MINUTE_OF_HOUR, 2).appendLiteral(':')
      .appendValue(java.time.temporal.ChronoField.SECOND_OF_MINUTE, 2)
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
   * Parses a filter value; a malformed one is a 400, never ignored. Our own form, UTC without
   * an offset, or an RFC 3339 date-time with one ({@code Z}, {@code +01:00}) and fractions of
   * a second, as the {@code date-time} of our OpenAPI documents makes generated clients send.
   */
  public static Instant parseFilter(String field, String value) {
    if (value == null) {
      return null;
    }
    try {
      return LocalDateTime.parse(value, FILTER).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      // a four-digit year, as in our own form: PostgreSQL compares no other
      if (value.length() > 4 && Character.isDigit(value.charAt(0)) && value.charAt(4) == '-') {
        try {
          return java.time.OffsetDateTime.parse(value, java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME)
              .toInstant();
        } catch (DateTimeParseException notWithAnOffset) {
          // refused below
        }
      }
      throw new DomainException.Invalid(Violation.of(field,
          "must be a date-time in the form YYYY-MM-DDTHH:MM:SS (UTC), or with an offset (Z, +01:00)", value));
    }
  }
}
