package io.tollgate.domain.payment;

/**
 * What we keep of a card: never the full number, never the security code.
 *
 * @param maskedNumber first 6 and last 4 digits, the rest as '*'
 */
public record CardDetails(
    String maskedNumber,
    String cardToken,
    String cardholderName,
    String expiryMonth,
    String expiryYear,
    String brand,
    String issuingCountry) {

  public CardDetails {
    if (maskedNumber != null && maskedNumber.matches(".*[0-9]{11,}.*")) {
      throw new IllegalArgumentException("card number must be masked");
    }
  }

  public String bin() {
    return maskedNumber == null || maskedNumber.length() < 6 ? null : maskedNumber.substring(0, 6);
  }
}
