package io.tollgate.domain.group;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A full card number (primary account number): 12 to 19 digits, Luhn-valid. Spaces and dashes
 * are ignored. Its {@link #toString()} is masked so that it cannot leak into a log by accident.
 */
public final class Pan {

  private static final Pattern DIGIT_RUN = Pattern.compile("[0-9][0-9 -]{10,}[0-9]");

  private final String digits;

  public Pan(String raw) {
    if (raw == null) {
      throw new IllegalArgumentException("a card number is required");
    }
    String cleaned = raw.replaceAll("[ -]", "");
    if (!cleaned.matches("^[0-9]{12,19}$")) {
      throw new IllegalArgumentException("a card number has 12 to 19 digits");
    }
    if (!luhnValid(cleaned)) {
      throw new IllegalArgumentException("not a valid card number (Luhn check failed)");
    }
    this.digits = cleaned;
  }

  public String digits() {
    return digits;
  }

  /** First 6 and last 4 digits, the rest as '*'. */
  public String masked() {
    return digits.substring(0, 6) + "*".repeat(digits.length() - 10) + digits.substring(digits.length() - 4);
  }

  public static boolean luhnValid(String digits) {
    if (digits == null || digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
      return false;
    }
    int sum = 0;
    boolean twice = false;
    for (int i = digits.length() - 1; i >= 0; i--) {
      int d = digits.charAt(i) - '0';
      if (twice) {
        d *= 2;
        if (d > 9) {
          d -= 9;
        }
      }
      sum += d;
      twice = !twice;
    }
    return sum % 10 == 0;
  }

  /**
   * Masks every run of digits long enough to be a card number (keeping its first 6 and last 4
   * digits), so that a refused entry can be echoed back without exposing it.
   */
  public static String maskForDisplay(String raw) {
    if (raw == null) {
      return null;
    }
    Matcher m = DIGIT_RUN.matcher(raw);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String run = m.group().replaceAll("[ -]", "");
      String masked = run.length() < 12 ? m.group()
          : run.substring(0, 6) + "*".repeat(run.length() - 10) + run.substring(run.length() - 4);
      m.appendReplacement(out, Matcher.quoteReplacement(masked));
    }
    m.appendTail(out);
    return out.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Pan other && other.digits.equals(digits);
  }

  @Override
  public int hashCode() {
    return digits.hashCode();
  }

  @Override
  public String toString() {
    return masked();
  }
}
