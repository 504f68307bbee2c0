package io.tollgate.rest.merchant;

import io.tollgate.application.port.out.PaymentRepository.OperationWithPayment;
import io.tollgate.application.port.out.PaymentRepository.PaymentWithRefunds;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.rest.common.Timestamps;
import java.math.BigDecimal;
import java.util.Map;

/** The merchant API's flat {@code Payment} and {@code PaymentOperation} records. */
final class MerchantPaymentJson {

  private MerchantPaymentJson() {}

  /** {@code refundedAmount}: what a deposit's COMPLETED refunds paid back (0 when none); absent for others. */
  record PaymentJson(String id, String created, String updated, String state, String errorCode, String type,
      String method, String description, String referenceId, String parentPaymentId, Boolean preAuth,
      long merchantId, String merchantName, long shopId, String shopName, Long terminalId, String terminalName,
      String externalId,
      String externalResultCode, BigDecimal amount, BigDecimal refundedAmount, String currency, BigDecimal baseAmount,
      BigDecimal shopBaseAmount, String shopBaseCurrency,
      BigDecimal customerAmount, String customerCurrency, String customerReferenceId, String customerAccountNumber, String customerBank,
      String customerBankCode, String customerBankBranch, String customerBankBranchCode,
      String customerCitizenshipCountryCode, String customerFirstName, String customerLastName,
      String customerDateOfBirth, String customerEmail, String customerPhone, String customerRoutingGroup,
      String customerIp, String customerIpCountryCode,
      String billingCountryCode, String billingPostalCode, String billingCity, String billingState,
      String billingAddressLine1, String billingAddressLine2, String cardholderName, String cardBrand,
      String cardType, String cardCountryCode, String cardIssuingOrganization) {}

  /**
   * @param base the payment's amount in the platform's base currency at today's rate, or null
   * @param shopBase the payment's amount in its shop's base currency at today's rate, or null
   */
  /**
   * A card payment's masked card, a bank transfer's account: as the reference has it. The
   * customer's account number of a card payment is the merchant's own record, kept as sent, and
   * showing it in the card's place showed a card number in clear when one was sent there.
   */
  private static String customerAccountNumber(Payment p, Customer c, CardDetails card) {
    if (p.method() == io.tollgate.domain.payment.PaymentMethod.BANKTRANSFER) {
      return c == null ? null : c.accountNumber();
    }
    return card == null ? null : card.maskedNumber();
  }

  static PaymentJson payment(PaymentWithRefunds listed, long merchantId, String merchantName,
      Map<Long, String> shopNames, Money base, Money shopBase) {
    Payment p = listed.payment();
    Customer c = p.customer();
    BillingAddress b = p.billingAddress();
    CardDetails card = p.card();
    return new PaymentJson(p.id().value(), Timestamps.record(p.created()), Timestamps.record(p.updated()),
        p.state().name(), errorCode(p.errorCode()), p.type().name(), p.method().name(),
        p.description(), p.referenceId(), p.parentPaymentId() == null ? null : p.parentPaymentId().value(),
        p.preAuth(), merchantId, merchantName, p.shopId().value(), shopNames.get(p.shopId().value()),
        p.terminalId(), p.terminalName(), p.externalId(), p.externalResultCode(), p.amount().amount(),
        listed.refunded() == null ? null : listed.refunded().amount(), p.amount().currency().code(),
        base == null ? null : base.amount(),
        shopBase == null ? null : shopBase.amount(), shopBase == null ? null : shopBase.currency().code(),
        p.customerAmount() == null ? null : p.customerAmount().amount(),
        p.customerAmount() == null ? null : p.customerAmount().currency().code(),
        c == null ? null : c.referenceId(),
        customerAccountNumber(p, c, card),
        c == null ? null : c.bank(), c == null ? null : c.bankCode(), c == null ? null : c.bankBranch(),
        c == null ? null : c.bankBranchCode(),
        c == null ? null : c.citizenshipCountryCode(), c == null ? null : c.firstName(),
        c == null ? null : c.lastName(), c == null ? null : c.dateOfBirth(), c == null ? null : c.email(),
        c == null ? null : c.phone(), c == null ? null : c.routingGroup(), c == null ? null : c.ip(),
        c == null ? null : c.ipCountryCode(),
        b == null ? null : b.countryCode(), b == null ? null : b.postalCode(), b == null ? null : b.city(),
        b == null ? null : b.state(), b == null ? null : b.addressLine1(), b == null ? null : b.addressLine2(),
        card == null ? null : card.cardholderName(), card == null ? null : card.brand(),
        card == null ? null : card.cardType(), card == null ? null : card.issuingCountry(),
        card == null ? null : card.issuingOrganization());
  }

  /**
   * The reference's {@code PaymentOperation}, and no field it does not define (a client generated
   * from the reference refuses one): the step's error as {@code errorCode}, code and message
   * ("4.01 Insufficient Funds"), and what the step did and why, as our operations note it (each
   * connector a cascade passed over, the terminal's answer, the screen's finding), as
   * {@code rawPaymentData}.
   */
  record OperationJson(long id, String paymentId, String operation, String paymentState, String started,
      String completed, String rawPaymentData, Long terminalId, String terminalName, String paymentCreated,
      String paymentType, String paymentMethod,
      String paymentDescription, String paymentReferenceId, BigDecimal paymentAmount, String paymentCurrency,
      BigDecimal paymentBaseAmount, String parentPaymentId, long merchantId, String merchantName, long shopId,
      String shopName, String errorCode, String externalResultCode, String externalId) {}

  /** @param paymentBase the payment's amount in the platform's base currency at today's rate, or null */
  static OperationJson operation(OperationWithPayment ow, long merchantId, String merchantName,
      Map<Long, String> shopNames, Money paymentBase) {
    PaymentOperation o = ow.operation();
    Payment p = ow.payment();
    // each step's own terminal and processor answer, not the payment's latest
    return new OperationJson(o.id(), p.id().value(), o.operation().name(), o.paymentState().name(),
        Timestamps.record(o.started()), Timestamps.record(o.completed()), o.details(), o.terminalId(),
        o.terminalName(),
        Timestamps.record(p.created()), p.type().name(), p.method().name(), p.description(), p.referenceId(),
        p.amount().amount(), p.amount().currency().code(), paymentBase == null ? null : paymentBase.amount(),
        p.parentPaymentId() == null ? null : p.parentPaymentId().value(), merchantId, merchantName,
        p.shopId().value(), shopNames.get(p.shopId().value()),
        errorCode(o.errorCode()), o.externalResultCode(), o.externalId());
  }

  /** An error as the reference's merchant API writes it: its code, a space, its message ("4.01 Insufficient Funds"). */
  static String errorCode(ErrorCode code) {
    return code == null ? null : code.describe();
  }
}
