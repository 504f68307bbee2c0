package io.tollgate.rest.common;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import java.math.BigDecimal;
import java.util.Map;

/**
 * The public {@code PaymentResult} document of a payment: what the gateway API answers and
 * what a webhook carries, so the two can never drift apart.
 */
public record PaymentResultJson(
    String id,
    String referenceId,
    String created,
    String paymentType,
    String state,
    String description,
    String parentPaymentId,
    String paymentMethod,
    CardJson paymentMethodDetails,
    BigDecimal amount,
    String currency,
    BigDecimal customerAmount,
    String customerCurrency,
    String redirectUrl,
    String errorCode,
    String errorMessage,
    String externalId,
    String externalResultCode,
    // as in the reference's answer: the account paid out to is for the merchant's records (the
    // merchant API), not for every answer and webhook to repeat in full; the country of the
    // customer's address is the merchant API's customerIpCountryCode
    @JsonIgnoreProperties({"accountNumber", "ipCountryCode"}) Customer customer,
    BillingAddress billingAddress,
    Boolean preAuth,
    String shopName,
    String terminalName,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> additionalParameters,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> externalRefs) {

  public record CardJson(
      String customerAccountNumber,
      String cardToken,
      String cardholderName,
      String cardExpiryMonth,
      String cardExpiryYear,
      String cardBrand,
      String cardIssuingCountryCode,
      String cardIssuingOrganization) {

    public static CardJson of(CardDetails c) {
      return c == null ? null : new CardJson(c.maskedNumber(), c.cardToken(), c.cardholderName(),
          c.expiryMonth(), c.expiryYear(), c.brand(), c.issuingCountry(), c.issuingOrganization());
    }
  }

  /** @param shopName the name of the payment's shop, or null to leave it out */
  public static PaymentResultJson of(Payment p, String publicBaseUrl, String shopName) {
    boolean customerStepLeft = p.type() == PaymentType.DEPOSIT && (p.state() == PaymentState.CHECKOUT
        || (p.state() == PaymentState.PENDING && p.method() == PaymentMethod.BASIC_CARD));
    String redirectUrl = customerStepLeft ? publicBaseUrl + "/checkout/" + p.id().value() : null;
    return new PaymentResultJson(
        p.id().value(), p.referenceId(), Timestamps.record(p.created()), p.type().name(),
        p.state().name(), p.description(), p.parentPaymentId() == null ? null : p.parentPaymentId().value(),
        p.method().name(), CardJson.of(p.card()), p.amount().amount(), p.amount().currency().code(),
        p.customerAmount() == null ? null : p.customerAmount().amount(),
        p.customerAmount() == null ? null : p.customerAmount().currency().code(),
        redirectUrl,
        p.errorCode() == null ? null : p.errorCode().code(), p.errorMessage(),
        p.externalId(), p.externalResultCode(), p.customer(), p.billingAddress(),
        p.preAuth() ? Boolean.TRUE : null, shopName, p.terminalName(), p.additionalParameters(), p.externalRefs());
  }

  /**
   * The payment as an entry of the payments list: the reference's {@code Payment}, which has
   * neither {@code externalId}, {@code externalRefs} nor {@code additionalParameters} (its
   * {@code PaymentResult} has them). A client generated from the reference refuses a list
   * whose entries carry a field its {@code Payment} does not define.
   */
  public PaymentResultJson asListEntry() {
    return new PaymentResultJson(id, referenceId, created, paymentType, state, description, parentPaymentId,
        paymentMethod, paymentMethodDetails, amount, currency, customerAmount, customerCurrency, redirectUrl,
        errorCode, errorMessage, null, externalResultCode, customer, billingAddress, preAuth, shopName,
        terminalName, null, null);
  }

  /**
   * One entry of a payment's operations list: the reference's fields and the step's
   * {@code errorCode} (CONTRACT section 3), nothing else, for a client generated from the
   * reference refuses a field it does not define. What the step did and why is in the merchant
   * API's operations ({@code rawPaymentData}).
   */
  public record OperationJson(
      long id,
      String operation,
      String started,
      String completed,
      String paymentState,
      String errorCode) {

    public static OperationJson of(PaymentOperation o) {
      return new OperationJson(o.id(), o.operation().name(), Timestamps.record(o.started()),
          Timestamps.record(o.completed()), o.paymentState().name(),
          o.errorCode() == null ? null : o.errorCode().code());
    }
  }
}
