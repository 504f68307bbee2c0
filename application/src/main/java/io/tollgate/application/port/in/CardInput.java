package io.tollgate.application.port.in;

/**
 * Card data as the merchant sent it. {@link #toString()} never shows the number or the
 * security code, so a stray log line cannot leak them.
 */
public record CardInput(
    String cardNumber,
    String cardToken,
    String cardholderName,
    String cardSecurityCode,
    String expiryMonth,
    String expiryYear) {

  @Override
  public String toString() {
    return "CardInput[cardNumber=" + (cardNumber == null ? null : "***")
        + ", cardToken=" + cardToken + ", cardholderName=" + cardholderName
        + ", cardSecurityCode=" + (cardSecurityCode == null ? null : "***")
        + ", expiryMonth=" + expiryMonth + ", expiryYear=" + expiryYear + "]";
  }
}
