package io.tollgate.rest.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tollgate.application.port.out.WebhookPayloads;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.shop.ShopId;
import java.util.function.Function;

/**
 * Webhook bodies: the payment's {@code PaymentResult} JSON, unwrapped, as the gateway API shows
 * it. Kept with the document it renders; bootstrap hands it to the webhook adapter, which sees
 * only the application's {@link WebhookPayloads} port.
 */
public final class PaymentResultPayloads implements WebhookPayloads {

  private final String publicBaseUrl;
  private final Function<ShopId, String> shopNames;

  /** @param shopNames the name of a shop, as the gateway API shows it with the shop's payments */
  public PaymentResultPayloads(String publicBaseUrl, Function<ShopId, String> shopNames) {
    this.publicBaseUrl = publicBaseUrl;
    this.shopNames = shopNames;
  }

  @Override
  public byte[] render(Payment payment) {
    try {
      String shopName = shopNames.apply(payment.shopId());
      return Json.MAPPER.writeValueAsBytes(PaymentResultJson.of(payment, publicBaseUrl, shopName));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a payment document always serializes", e);
    }
  }
}
