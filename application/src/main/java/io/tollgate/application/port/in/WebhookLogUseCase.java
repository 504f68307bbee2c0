package io.tollgate.application.port.in;

import io.tollgate.application.port.out.WebhookOutbox.Attempt;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.MerchantId;
import java.util.List;

/** The delivery log of a payment's webhooks, and resending on a merchant's request. */
public interface WebhookLogUseCase {

  /** Every attempt, newest first; 404 when the payment is not the merchant's. */
  List<Attempt> attempts(MerchantId merchant, PaymentId payment);

  /** Queues the payment's latest event again; 404 when the payment is not the merchant's or has none. */
  void resend(MerchantId merchant, PaymentId payment);
}
