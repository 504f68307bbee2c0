package io.tollgate.domain.payment;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/** 32 lower-case hex characters (128 random bits). */
public record PaymentId(String value) {

  private static final int LENGTH = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  public PaymentId {
    Objects.requireNonNull(value, "value");
    if (!isWellFormed(value)) {
      throw new IllegalArgumentException("payment id must be 32 lower-case hex characters");
    }
  }

  public static boolean isWellFormed(String value) {
    // Checked for every id read back from the database too, so without a regex.
    if (value == null || value.length() != LENGTH) {
      return false;
    }
    for (int i = 0; i < LENGTH; i++) {
      char c = value.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /**
   * The id a client sent, in either case (the reference's ids are {@code [a-zA-Z0-9]{32}}, and
   * some clients upper-case what they store), or null when it cannot be a payment's.
   */
  public static PaymentId parse(String value) {
    if (value == null || value.length() != LENGTH) {
      return null;
    }
    String lower = value.toLowerCase(java.util.Locale.ROOT);
    return isWellFormed(lower) ? new PaymentId(lower) : null;
  }

  public static PaymentId random() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return new PaymentId(HexFormat.of().formatHex(bytes));
  }

  @Override
  public String toString() {
    return value;
  }
}
