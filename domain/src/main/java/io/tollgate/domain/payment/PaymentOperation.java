package io.tollgate.domain.payment;

import io.tollgate.domain.error.ErrorCode;
import java.time.Instant;
import java.util.Objects;

/**
 * One step in a payment's history. {@code id} is null until the operation is stored;
 * {@code paymentState} is the state after the step.
 */
public record PaymentOperation(
    Long id,
    OperationType operation,
    Instant started,
    Instant completed,
    PaymentState paymentState,
    ErrorCode errorCode,
    String details) {

  public PaymentOperation {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(completed, "completed");
    Objects.requireNonNull(paymentState, "paymentState");
  }

  public PaymentOperation withId(long newId) {
    return new PaymentOperation(newId, operation, started, completed, paymentState, errorCode, details);
  }
}
