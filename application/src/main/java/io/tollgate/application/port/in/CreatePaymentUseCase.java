package io.tollgate.application.port.in;

import io.tollgate.domain.payment.Payment;

public interface CreatePaymentUseCase {

  /**
   * Validates and stores a new payment in its initial state.
   *
   * @throws io.tollgate.domain.DomainException.Invalid listing every broken rule
   * @throws io.tollgate.domain.DomainException.Conflict when the idempotency key was used for
   *     a different request
   */
  CreatedPayment create(CreatePaymentCommand command);

  /** @param replayed true when an earlier request with the same idempotency key created it */
  record CreatedPayment(Payment payment, boolean replayed) {}
}
