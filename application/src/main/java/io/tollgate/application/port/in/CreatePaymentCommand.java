package io.tollgate.application.port.in;

import io.tollgate.domain.Violation;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A request to create a payment, with the JSON types already checked by the adapter but no
 * rule checked yet: {@link CreatePaymentUseCase} checks every rule and reports all broken ones.
 *
 * @param idempotencyKey the optional {@code Idempotency-Key} header
 * @param fingerprint a digest of the request body, to tell a retry from a different request
 * @param unreadable the fields the adapter could not read (of the wrong JSON type, or not
 *     offered), left null here: reported with the broken rules of the others, in one answer
 */
public record CreatePaymentCommand(
    ShopId shopId,
    String paymentType,
    String paymentMethod,
    BigDecimal amount,
    String currency,
    String referenceId,
    String description,
    String parentPaymentId,
    CardInput card,
    Customer customer,
    BillingAddress billingAddress,
    String returnUrl,
    String webhookUrl,
    Boolean preAuth,
    Map<String, String> additionalParameters,
    String idempotencyKey,
    String fingerprint,
    List<Violation> unreadable) {

  public CreatePaymentCommand {
    Objects.requireNonNull(shopId, "shopId");
    additionalParameters = additionalParameters == null ? Map.of() : Map.copyOf(additionalParameters);
    unreadable = unreadable == null ? List.of() : List.copyOf(unreadable);
  }

  /** A request whose every field could be read. */
  public CreatePaymentCommand(ShopId shopId, String paymentType, String paymentMethod, BigDecimal amount,
      String currency, String referenceId, String description, String parentPaymentId, CardInput card,
      Customer customer, BillingAddress billingAddress, String returnUrl, String webhookUrl, Boolean preAuth,
      Map<String, String> additionalParameters, String idempotencyKey, String fingerprint) {
    this(shopId, paymentType, paymentMethod, amount, currency, referenceId, description, parentPaymentId, card,
        customer, billingAddress, returnUrl, webhookUrl, preAuth, additionalParameters, idempotencyKey,
        fingerprint, List.of());
  }
}
