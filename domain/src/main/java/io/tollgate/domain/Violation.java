package io.tollgate.domain;

/**
 * One broken rule of a request: the field (JSON path such as {@code card.expiryMonth}), a
 * message a merchant can act on, and the value that was refused (never a card number or CVV
 * in clear).
 */
public record Violation(String field, String message, Object rejectedValue) {

  public static Violation of(String field, String message, Object rejectedValue) {
    return new Violation(field, message, rejectedValue);
  }
}
