package io.tollgate.domain.money;

import java.util.Objects;

/** A currency we accept: an ISO 4217 code known to the JDK or a configured crypto symbol. */
public record Currency(String code, int scale, boolean crypto) {

  public Currency {
    Objects.requireNonNull(code, "code");
    if (scale < 0 || scale > 18) {
      throw new IllegalArgumentException("scale must be 0..18: " + scale);
    }
  }

  @Override
  public String toString() {
    return code;
  }
}
