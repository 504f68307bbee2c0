package io.tollgate.application.port.in;

import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.WebhookOutbox.Attempt;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.user.MerchantUser;

/** The delivery log of a payment's webhooks, and resending on a merchant's request. */
public interface WebhookLogUseCase {

  /**
   * A page of the attempts, newest first; 404 when the payment is not the user's merchant's, or,
   * for a user scoped to a shop group, not of a shop in that group, and only then the page's 400
   * when it cannot be used. Paged because resends add to it without end until the log's retention.
   */
  Page<Attempt> attempts(MerchantUser user, PaymentId payment, PageRequest page);

  /**
   * Queues the payment's latest event again. A payment that is not the user's merchant's (or
   * not of its shop group's shops, for a scoped user) is a 404 whatever the user's permissions (CONTRACT section 1: never a 403); then the user needs
   * SHOP_EDIT (403); a payment without an event yet is a 404.
   */
  void resend(MerchantUser user, PaymentId payment);

  /**
   * Forgets a batch of the delivery log older than {@code kept}: attempts, and settled events a
   * newer event of their payment replaced (each payment's newest stays, to be sent again).
   *
   * @return how many rows it went through, up to {@code batch}; {@code batch} when more may be left
   */
  int forgetDeliveriesOlderThan(java.time.Duration kept, int batch);
}
