package io.tollgate.domain.payment;

/**
 * What we keep of a card: never the full number, never the security code.
 *
 * @param maskedNumber as {@link io.tollgate.domain.group.Pan#mask} shows it
 * @param cardType as the BIN data has it (CREDIT, DEBIT...); null when unknown, and for cards
 *     kept before it was
 * @param issuingOrganization the issuing bank, as the BIN data has it; likewise
 */
public record CardDetails(
    String maskedNumber,
    String cardToken,
    String cardholderName,
    String expiryMonth,
    String expiryYear,
    String brand,
    String issuingCountry,
    String cardType,
    String issuingOrganization) {

  public CardDetails {
    if (maskedNumber != null && maskedNumber.matches(".*[0-9]{11,}.*")) {
      throw new IllegalArgumentException("card number must be masked");
    }
  }

  /** A card the BIN data says nothing more of. */
  public CardDetails(String maskedNumber, String cardToken, String cardholderName, String expiryMonth,
      String expiryYear, String brand, String issuingCountry) {
    this(maskedNumber, cardToken, cardholderName, expiryMonth, expiryYear, brand, issuingCountry, null, null);
  }

}
