package io.tollgate.domain.payment;

import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Money;
import java.util.Map;

/**
 * What an operation learned, to be written onto the payment: an error, the processor's own
 * id and result code, payment instructions, a final amount that differs from the requested
 * one, the card the customer entered. Null fields leave the payment's value as it was.
 */
public record Outcome(
    ErrorCode errorCode,
    String errorMessage,
    String externalId,
    String externalResultCode,
    Map<String, String> externalRefs,
    Money amount,
    CardDetails card,
    String details) {

  public static final Outcome NONE = new Outcome(null, null, null, null, null, null, null, null);

  public static Outcome error(ErrorCode code) {
    return new Outcome(code, code.message(), null, null, null, null, null, null);
  }

  public Outcome withDetails(String text) {
    return new Outcome(errorCode, errorMessage, externalId, externalResultCode, externalRefs, amount, card, text);
  }

  public Outcome withExternal(String id, String resultCode) {
    return new Outcome(errorCode, errorMessage, id, resultCode, externalRefs, amount, card, details);
  }

  public Outcome withExternalRefs(Map<String, String> refs) {
    return new Outcome(errorCode, errorMessage, externalId, externalResultCode, refs, amount, card, details);
  }

  public Outcome withAmount(Money finalAmount) {
    return new Outcome(errorCode, errorMessage, externalId, externalResultCode, externalRefs, finalAmount, card, details);
  }

  public Outcome withCard(CardDetails given) {
    return new Outcome(errorCode, errorMessage, externalId, externalResultCode, externalRefs, amount, given, details);
  }
}
