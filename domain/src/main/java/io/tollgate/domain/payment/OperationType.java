package io.tollgate.domain.payment;

import java.util.Optional;

/** Every operation name of the public API, including those Tollgate does not perform yet. */
public enum OperationType {
  CREATE_PAYMENT,
  CHECKOUT,
  CANCEL,
  CONFIRMATION,
  CASCADING,
  REDIRECT,
  CONTINUE,
  CONTINUE_PRE_PROCESSING,
  DETECT_FRAUD,
  PRE_PROCESSING,
  DEPOSIT,
  WITHDRAWAL,
  REFUND,
  CHARGEBACK,
  CHECK_STATE,
  TRIGGER_WEBHOOK,
  HANDLE_WEBHOOK,
  CAPTURE,
  VOID,
  APPROVE,
  REJECT,
  UPLOAD_FILE,
  MANUAL_UPDATE,
  MANUAL_CHECK_STATE;

  public static Optional<OperationType> find(String name) {
    for (OperationType t : values()) {
      if (t.name().equals(name)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
