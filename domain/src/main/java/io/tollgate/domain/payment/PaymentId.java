package io.tollgate.domain.payment;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/** 32 lower-case hex characters (128 random bits). */
public record PaymentId(String value) {

  private static final Pattern FORMAT = Pattern.compile("^[0-9a-f]{32}$");
  private static final SecureRandom RANDOM = new SecureRandom();

  public PaymentId {
    Objects.requireNonNull(value, "value");
    if (!isWellFormed(value)) {
      throw new IllegalArgumentException("payment id must be 32 lower-case hex characters");
    }
  }

  public static boolean isWellFormed(String value) {
    return value != null && FORMAT.matcher(value).matches();
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
