package io.tollgate.domain.payment;

import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Money;
import java.util.Map;

/**
 * What an operation learned, to be written onto the payment: an error, the processor's own
 * id and result code, payment instructions, a final amount that differs from the requested
 * one. Null fields leave the payment's value as it was.
 */
public record Outcome(
    ErrorCode errorCode,
    String errorMessage,
    String externalId,
    String externalResultCode,
    Map<String, String> externalRefs,
    Money amount,
    String details) {

  public static final Outcome NONE = new Outcome(null, null, null, null, null, null, null);

  public static Outcome error(ErrorCode code) {
    return new Outcome(code, code.message(), null, null, null, null, null);
  }

  public Outcome withDetails(String text) {
    return new Outcome(errorCode, errorMessage, externalId, externalResultCode, externalRefs, amount, text);
  }

  public Outcome withExternal(String id, String resultCode) {
    return new Outcome(errorCode, errorMessage, id, resultCode, externalRefs, amount, details);
  }
}
