package io.tollgate.application.port.in;

import io.tollgate.application.port.in.CreatePaymentUseCase.CreatedPayment;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.shop.ShopId;
import java.util.function.Supplier;

/**
 * {@code Idempotency-Key} on the requests that act on an existing payment (the POSTs capture,
 * void, approve, reject, and, our extension of the contract, the host-to-host PATCH): the same
 * key and request within 24 hours acts once and then answers as the first time (the payment
 * as it stood after the action), marked as a replay; the same key with another request is a
 * 409. The key space is the shop's, shared with payment creation.
 */
public interface IdempotentActionUseCase {

  /**
   * Runs {@code action} once per key, in one transaction with the claim of the key.
   *
   * @param request what identifies the request (method, path and body); only a keyed digest of it is kept
   */
  CreatedPayment once(ShopId shop, String idempotencyKey, String request, Supplier<Payment> action);
}
