package io.tollgate.rest.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tollgate.application.port.out.WebhookPayloads;
import io.tollgate.domain.payment.Payment;

/**
 * Webhook bodies: the payment's {@code PaymentResult} JSON, unwrapped, as the gateway API shows
 * it. Kept with the document it renders; bootstrap hands it to the webhook adapter, which sees
 * only the application's {@link WebhookPayloads} port.
 */
public final class PaymentResultPayloads implements WebhookPayloads {

  private final String publicBaseUrl;

  public PaymentResultPayloads(String publicBaseUrl) {
    this.publicBaseUrl = publicBaseUrl;
  }

  @Override
  public byte[] render(Payment payment) {
    try {
      return Json.MAPPER.writeValueAsBytes(PaymentResultJson.of(payment, publicBaseUrl));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a payment document always serializes", e);
    }
  }
}
