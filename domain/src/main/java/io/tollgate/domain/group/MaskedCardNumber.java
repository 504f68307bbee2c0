package io.tollgate.domain.group;

import java.util.regex.Pattern;

/**
 * A masked card number: at least 6 leading digits, a mask of {@code *} or {@code X}, and the
 * 4 trailing digits, 12 to 19 characters in all (e.g. {@code 400000******0002}).
 */
public record MaskedCardNumber(String value) {

  private static final Pattern FORMAT = Pattern.compile("^[0-9]{6,}([*]+|[X]+)[0-9]{4}$");

  public MaskedCardNumber {
    if (value == null || value.length() < 12 || value.length() > 19 || !FORMAT.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "a masked card number has at least 6 leading digits, a mask of '*' or 'X' and 4 trailing digits");
    }
  }

  public String bin() {
    return value.substring(0, 6);
  }

  public String last4() {
    return value.substring(value.length() - 4);
  }

  /** The same number in our canonical form: first 6, '*' for the middle, last 4. */
  public String canonical() {
    return bin() + "*".repeat(value.length() - 10) + last4();
  }
}
