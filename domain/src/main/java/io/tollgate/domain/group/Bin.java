package io.tollgate.domain.group;

import java.util.regex.Pattern;

/** A bank identification number: the first 6 to 8 digits of a card number. */
public record Bin(String value) {

  private static final Pattern FORMAT = Pattern.compile("^[0-9]{6,8}$");

  public Bin {
    if (value == null || !FORMAT.matcher(value).matches()) {
      throw new IllegalArgumentException("a BIN is 6 to 8 digits");
    }
  }

  /** Whether this BIN is the start of {@code cardDigits}. */
  public boolean matches(String cardDigits) {
    return cardDigits != null && cardDigits.startsWith(value);
  }
}
