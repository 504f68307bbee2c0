package io.tollgate.domain.payment;

import io.tollgate.domain.error.ErrorCode;
import java.time.Instant;
import java.util.Objects;

/**
 * One step in a payment's history. {@code id} is null until the operation is stored;
 * {@code paymentState} is the state after the step; the terminal it ran on and the processor's
 * answer to it are this step's (null where it had none). {@code terminalId} is null where
 * {@link Payment#terminalId()} is.
 */
public record PaymentOperation(
    Long id,
    OperationType operation,
    Instant started,
    Instant completed,
    PaymentState paymentState,
    ErrorCode errorCode,
    String details,
    String terminalName,
    Long terminalId,
    String externalId,
    String externalResultCode) {

  /** A step with no terminal and no processor answer. */
  public PaymentOperation(Long id, OperationType operation, Instant started, Instant completed,
      PaymentState paymentState, ErrorCode errorCode, String details) {
    this(id, operation, started, completed, paymentState, errorCode, details, null, null, null, null);
  }


  public PaymentOperation {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(completed, "completed");
    Objects.requireNonNull(paymentState, "paymentState");
  }

  public PaymentOperation withId(long newId) {
    return new PaymentOperation(newId, operation, started, completed, paymentState, errorCode, details, terminalName,
        terminalId, externalId, externalResultCode);
  }

  /** The step with {@code code} as its error, the payment's own left as it is. */
  public PaymentOperation withErrorCode(ErrorCode code) {
    return new PaymentOperation(id, operation, started, completed, paymentState, code, details, terminalName,
        terminalId, externalId, externalResultCode);
  }
}
