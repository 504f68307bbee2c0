package io.tollgate.domain.money;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The currencies a deployment accepts: every ISO 4217 code the JDK knows with its minor unit,
 * plus configured crypto symbols with their decimals (by default BTC, ETH and USDT with 8).
 */
public final class Currencies {

  public static final Map<String, Integer> DEFAULT_CRYPTO = Map.of("BTC", 8, "ETH", 8, "USDT", 8);

  private final Map<String, Currency> byCode;

  public Currencies(Map<String, Integer> cryptoSymbols) {
    Map<String, Currency> map = new HashMap<>();
    for (java.util.Currency c : java.util.Currency.getAvailableCurrencies()) {
      int digits = c.getDefaultFractionDigits();
      // -1: funds, precious metals and the like (XAU, XDR); not payable currencies.
      if (digits >= 0) {
        map.put(c.getCurrencyCode(), new Currency(c.getCurrencyCode(), digits, false));
      }
    }
    cryptoSymbols.forEach((symbol, scale) -> map.put(symbol, new Currency(symbol, scale, true)));
    this.byCode = Map.copyOf(map);
  }

  public static Currencies defaults() {
    return new Currencies(DEFAULT_CRYPTO);
  }

  /** Exact, case-sensitive lookup: currency codes are upper-case in our API. */
  public Optional<Currency> find(String code) {
    return code == null ? Optional.empty() : Optional.ofNullable(byCode.get(code));
  }

  public Currency require(String code) {
    return find(code).orElseThrow(() -> new IllegalArgumentException("unknown currency: " + code));
  }
}
