package io.tollgate.domain.group;

import java.util.Locale;
import java.util.Set;

/**
 * An assigned ISO 3166-1 alpha-2 country code, given in either case, kept upper-case; and XK,
 * Kosovo's user-assigned code, which card schemes, banks and the EU use though ISO has not
 * assigned it; and UK, reserved by ISO for the United Kingdom at its request and sent for it as
 * often as GB, kept as GB, the code card data, IP data and country groups know it by.
 */
public record CountryCode(String value) {

  private static final Set<String> ASSIGNED = assigned();

  private static Set<String> assigned() {
    Set<String> codes = new java.util.HashSet<>(Set.of(Locale.getISOCountries()));
    codes.add("XK");
    return Set.copyOf(codes);
  }

  public CountryCode {
    String upper = value == null ? null : value.strip().toUpperCase(Locale.ROOT);
    if ("UK".equals(upper)) {
      upper = "GB";
    }
    if (upper == null || upper.length() != 2 || !ASSIGNED.contains(upper)) {
      throw new IllegalArgumentException("not an ISO 3166-1 alpha-2 country code");
    }
    value = upper;
  }
}
