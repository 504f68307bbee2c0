package io.tollgate.application.port.out;

import io.tollgate.domain.payment.Payment;

/** Renders the body a webhook carries: the payment's public {@code PaymentResult} document. */
public interface WebhookPayloads {
  byte[] render(Payment payment);
}
