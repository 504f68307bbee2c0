package io.tollgate.application.service;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Pan;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Collects every broken rule of a request, so one 400 can list them all. */
final class Checks {

  private static final Pattern IPV4 =
      Pattern.compile("^((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)$");
  private static final Pattern IPV6_CHARS = Pattern.compile("^[0-9A-Fa-f:.]{2,39}$");

  private final List<Violation> violations = new ArrayList<>();
  /** Fields already reported as unreadable, whose rules (read as absent) would only repeat it. */
  private final java.util.Set<String> reported = new java.util.HashSet<>();

  Checks() {}

  /** Checks that add to what the adapter could not read (a field of the wrong JSON type). */
  Checks(List<Violation> unreadable) {
    violations.addAll(unreadable);
    unreadable.forEach(v -> reported.add(v.field()));
  }

  void add(String field, String message, Object rejected) {
    if (!reported.contains(field)) {
      violations.add(Violation.of(field, message, rejected));
    }
  }

  boolean required(String field, Object value) {
    if (value == null || (value instanceof String s && s.isBlank())) {
      add(field, "is required", value);
      return false;
    }
    return true;
  }

  /** At most {@code max} characters, counted as JSON Schema's maxLength counts them: by code point. */
  void maxLength(String field, String value, int max) {
    if (value != null && longerThan(value, max)) {
      add(field, "must be at most " + max + " characters", abbreviate(value));
    }
  }

  void matches(String field, String value, Pattern pattern, String message) {
    if (value != null && !pattern.matcher(value).matches()) {
      add(field, message, abbreviate(value));
    }
  }

  /**
   * Refuses a card number in a field kept and shown in clear (a name, an address): only the
   * card fields keep one, encrypted. Only a number that passes the Luhn check counts.
   */
  void noCardNumber(String field, String value) {
    if (value != null && Pan.holdsLuhnValidCardNumber(value)) {
      add(field, "must not hold a card number (send it in card.cardNumber)", abbreviate(value));
    }
  }

  /**
   * {@link #noCardNumber} for a field where shorter numbers belong (a phone number, an e-mail
   * address's local part), by the card's shape as well as the Luhn check, so that one phone
   * number in ten is not refused for passing it: 16 digits or more, which no phone number has
   * (E.164 allows 15) and most card numbers do, or an American Express number (15 digits, 34 or
   * 37) or a Diners Club one (14 digits, 30, 36 or 38), prefixes no country's phone numbers of
   * that length begin with.
   */
  void noLongCardNumber(String field, String value) {
    if (value != null && holdsCardShapedNumber(value)) {
      add(field, "must not hold a card number (send it in card.cardNumber)", abbreviate(value));
    }
  }

  /**
   * Runs of digit groups, split by spaces or dashes as a card number is written, or by the dots,
   * plus signs and underscores an e-mail address's local part takes in their place.
   */
  private static final Pattern DIGIT_GROUPS = Pattern.compile("[0-9]+(?:[ ._+-][0-9]+)*");

  /**
   * Whether {@code value} holds consecutive digit groups that make a card number by its shape
   * ({@link #noLongCardNumber}) and pass the Luhn check: each run of groups is judged on its own
   * (so that digits elsewhere, an e-mail domain's, do not hide one), from every group it has.
   */
  static boolean holdsCardShapedNumber(String value) {
    Matcher run = DIGIT_GROUPS.matcher(value);
    while (run.find()) {
      String[] groups = run.group().split("[ ._+-]");
      for (int first = 0; first < groups.length; first++) {
        StringBuilder digits = new StringBuilder();
        for (int last = first; last < groups.length && digits.length() + groups[last].length() <= 19; last++) {
          digits.append(groups[last]);
          if (cardShaped(digits) && Pan.luhnValid(digits.toString())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean cardShaped(CharSequence digits) {
    int length = digits.length();
    char first = digits.charAt(0);
    char second = length > 1 ? digits.charAt(1) : ' ';
    return length >= 16
        || length == 15 && first == '3' && (second == '4' || second == '7')
        || length == 14 && first == '3' && (second == '0' || second == '6' || second == '8');
  }

  /** Runs a value object's own validation and records its message when it refuses. */
  <T> T valid(String field, String value, Function<String, T> factory) {
    if (value == null) {
      return null;
    }
    try {
      return factory.apply(value);
    } catch (IllegalArgumentException e) {
      add(field, e.getMessage(), abbreviate(value));
      return null;
    }
  }

  /** Whether {@code value} has more than {@code max} characters (code points: an emoji is one). */
  static boolean longerThan(String value, int max) {
    return value.length() > max && value.codePointCount(0, value.length()) > max;
  }

  /**
   * A customer's IP address as merchants pass it on, checked: at most 39 characters (the
   * reference's limit), then the first address of a proxy chain as in {@code X-Forwarded-For}
   * ({@code "203.0.113.9, 10.0.0.1"}), without an IPv6 zone ({@code %eth0}) or brackets, trimmed.
   * Records a violation and answers null when no address is left.
   */
  String clientAddress(String field, String value) {
    if (value == null) {
      return null;
    }
    if (longerThan(value, 39)) {
      add(field, "must be at most 39 characters", abbreviate(value));
      return null;
    }
    String v = value.strip();
    int comma = v.indexOf(',');
    if (comma >= 0) {
      v = v.substring(0, comma).strip();
    }
    if (v.length() > 2 && v.startsWith("[") && v.endsWith("]")) {
      v = v.substring(1, v.length() - 1);
    }
    int zone = v.indexOf('%');
    if (zone > 0 && v.contains(":")) {
      v = v.substring(0, zone);
    }
    if (!isIpAddress(v)) {
      add(field, "must be an IPv4 or IPv6 address", abbreviate(value));
      return null;
    }
    return v;
  }

  /** Whether {@code value} is an IPv4 or IPv6 address literal (never looked up as a name). */
  static boolean isIpAddress(String value) {
    if (IPV4.matcher(value).matches()) {
      return true;
    }
    if (!value.contains(":") || !IPV6_CHARS.matcher(value).matches()) {
      return false;
    }
    try {
      // A literal containing ':' is parsed, never looked up.
      return java.net.InetAddress.getByName(value) != null;
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
  boolean isEmpty() {
    return violations.isEmpty();
  }

  void throwIfAny(String message) {
    if (!violations.isEmpty()) {
      throw new DomainException.Invalid(message, violations);
    }
  }

  /**
   * A refused value as it is echoed: anything that can be a card number masked first, then cut
   * to 256 characters. The error envelope masks again, but a cut made first could run through a
   * card number and leave its first digits too few to be recognised, and so in clear.
   */
  static String abbreviate(String value) {
    String masked = Pan.maskForDisplay(value);
    // cut between characters, never inside one (an emoji is two UTF-16 units)
    return !longerThan(masked, 256) ? masked : masked.substring(0, masked.offsetByCodePoints(0, 256)) + "…";
  }
}
