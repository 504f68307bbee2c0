package io.tollgate.domain.shop;

import java.util.Locale;

/** A deployment runs in one environment; keys only work in the environment they were issued for. */
public enum Environment {
  SANDBOX,
  PRODUCTION;

  public static Environment parse(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }

  public String lowerName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
