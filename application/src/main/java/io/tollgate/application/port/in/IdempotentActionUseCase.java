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
   * Runs {@code action} once per key. The key is claimed in a transaction of its own first, and
   * its answer recorded once the action is done; a retry while the first request runs waits for
   * its answer. When the first request fails, or is cut short, after it changed the payment (a
   * host-to-host execution commits the deposit's terminal before it asks that terminal), a
   * retry is answered with the payment as it stood then, as a replay, and the action does not
   * run again; when it failed before changing anything, the retry runs the action.
   *
   * @param request what identifies the request (method, path and body); only a keyed digest of it is kept
   * @param paymentId the payment the action acts on, as the request names it
   */
  CreatedPayment once(ShopId shop, String idempotencyKey, String request, String paymentId, Supplier<Payment> action);

  /**
   * Forgets up to {@code batch} keys past the time a key is remembered for (a background job's
   * work: the digest of a first request is kept no longer than it can answer a retry).
   *
   * @return how many were forgotten
   */
  int forgetExpiredIdempotencyKeys(int batch);
}
