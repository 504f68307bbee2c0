package io.tollgate.application.port.in;

import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;

/**
 * What a merchant does to an existing payment. Each refuses with 404 a payment of another shop
 * and with the 1.00 conflict an action its state does not allow; each is safe under concurrent
 * calls: the payment is processed once, and the others see the state it left.
 */
public interface PaymentActionsUseCase {

  /** Host-to-host: executes a deposit without the checkout page. */
  Payment executeHostToHost(ShopId shop, String paymentId, HostToHostCommand command);

  /** Captures an AUTHORIZED pre-auth, wholly ({@code amount} null) or partly, in the currency it was authorized in. */
  default Payment capture(ShopId shop, String paymentId, BigDecimal amount) {
    return capture(shop, paymentId, amount, null);
  }

  /**
   * Captures an AUTHORIZED pre-auth, wholly ({@code amount} null) or partly: {@code amount} in
   * {@code currency}, the currency it was authorized in (its {@code amount}'s, as when null) or,
   * for one converted for its terminal, the currency it was asked in ({@code customerCurrency}),
   * converted at the payment's own rate.
   */
  Payment capture(ShopId shop, String paymentId, BigDecimal amount, String currency);

  Payment voidAuthorization(ShopId shop, String paymentId);

  Payment approve(ShopId shop, String paymentId);

  Payment reject(ShopId shop, String paymentId, String reason);

  /** The customer's browser and address, as the reference's DepositPatchRequest has them. */
  record HostToHostCommand(
      String customerIp,
      String ipCountryCode,
      String customerUserAgent,
      Integer browserWindowWidth,
      Integer browserWindowHeight,
      Integer browserScreenWidth,
      Integer browserScreenHeight,
      Integer browserScreenColorDepth,
      String browserLanguage,
      Boolean browserJavaEnabled,
      Integer browserTimezoneOffset) {}
}
