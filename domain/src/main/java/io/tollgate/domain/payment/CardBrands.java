package io.tollgate.domain.payment;

/** Card brand from the leading digits (the IIN ranges the schemes publish). */
public final class CardBrands {

  private CardBrands() {}

  /** The brands a payment can show, as the reference API names them. */
  public static final java.util.List<String> NAMES = java.util.List.of("AMEX", "DINERS", "DISCOVER", "JCB",
      "MAESTRO", "MASTERCARD", "MIR", "RUPAY", "UNIONPAY", "VISA", "HUMO", "VERVE", "TROY", "UZCARD", "UNKNOWN");

  /**
   * {@code brand} as one of {@link #NAMES}, in any case and with spaces, dashes or underscores
   * ("Visa", "master card", "Union-Pay"); refused when it names none of them.
   */
  public static String canonical(String brand) {
    return find(brand).orElseThrow(
        () -> new IllegalArgumentException("cardBrand must be one of " + String.join(", ", NAMES)));
  }

  /** {@code brand} as one of {@link #NAMES}, as {@link #canonical} takes it; empty when it names none. */
  public static java.util.Optional<String> find(String brand) {
    if (brand == null) {
      return java.util.Optional.empty();
    }
    if (NAMES.contains(brand)) {
      return java.util.Optional.of(brand);
    }
    String name = brand.strip().toUpperCase(java.util.Locale.ROOT).replaceAll("[ _-]", "");
    return NAMES.contains(name) ? java.util.Optional.of(name) : java.util.Optional.empty();
  }

  public static String detect(String digits) {
    if (digits == null || digits.length() < 6) {
      return "UNKNOWN";
    }
    int two = Integer.parseInt(digits.substring(0, 2));
    int four = Integer.parseInt(digits.substring(0, 4));
    int six = Integer.parseInt(digits.substring(0, 6));
    if (digits.startsWith("4")) {
      return "VISA";
    }
    if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) {
      return "MASTERCARD";
    }
    if (two == 34 || two == 37) {
      return "AMEX";
    }
    if (four >= 2200 && four <= 2204) {
      return "MIR";
    }
    if (digits.startsWith("6011") || digits.startsWith("65") || (six >= 622126 && six <= 622925)
        || (four >= 6440 && four <= 6499)) {
      return "DISCOVER";
    }
    if (two == 62) {
      return "UNIONPAY";
    }
    if (four >= 3528 && four <= 3589) {
      return "JCB";
    }
    if (two == 36 || two == 38 || two == 39 || (four >= 3000 && four <= 3059)) {
      return "DINERS";
    }
    if (two == 50 || (two >= 56 && two <= 69)) {
      return "MAESTRO";
    }
    return "UNKNOWN";
  }
}
