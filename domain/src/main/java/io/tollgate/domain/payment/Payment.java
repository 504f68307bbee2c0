package io.tollgate.domain.payment;

import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A payment: what the merchant asked for, where it stands, and what the processor said.
 * Immutable; every change goes through {@link #apply} so that the state table of
 * {@link PaymentTransitions} is the only way to move it, and every move yields the operation
 * that records it.
 *
 * @param amount what is (or was) sent to the processor; after a partial capture or a bank
 *     transfer that settled for another sum, the final amount
 * @param customerAmount what the merchant requested, when it differs in currency from
 *     {@code amount}; otherwise null
 * @param terminalName the terminal the payment was last sent to, as it was named then
 * @param terminalId that terminal's id; null for the processor's default terminal (a shop
 *     without connectors), before the payment is routed, and on payments stored before
 *     terminals were recorded by id (migration V28), which name it only
 * @param holdsOnceRouted whether a withdrawal holds nothing of the shop's balance until routing
 *     sends it to a terminal, and its amount there from then on: one of a shop checking its
 *     withdrawals' balance that every connector able to pay it would pay in another currency,
 *     checked only where it is paid (otherwise a payout or refund holds its amount from creation)
 * @param version optimistic-locking version of the stored row this instance was read from
 */
public record Payment(
    PaymentId id,
    ShopId shopId,
    PaymentType type,
    PaymentState state,
    PaymentMethod method,
    Money amount,
    Money customerAmount,
    String referenceId,
    String description,
    PaymentId parentPaymentId,
    boolean preAuth,
    CardDetails card,
    Customer customer,
    BillingAddress billingAddress,
    String returnUrl,
    String webhookUrl,
    Map<String, String> additionalParameters,
    ErrorCode errorCode,
    String errorMessage,
    String externalId,
    String externalResultCode,
    Map<String, String> externalRefs,
    String terminalName,
    Long terminalId,
    boolean holdsOnceRouted,
    Instant created,
    Instant updated,
    long version) {

  public Payment {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(shopId, "shopId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(amount, "amount");
    Objects.requireNonNull(created, "created");
    Objects.requireNonNull(updated, "updated");
    additionalParameters = additionalParameters == null ? Map.of() : Map.copyOf(additionalParameters);
    externalRefs = externalRefs == null ? Map.of() : Map.copyOf(externalRefs);
    if (type == PaymentType.REFUND && parentPaymentId == null) {
      throw new IllegalArgumentException("a refund needs its parent payment");
    }
  }

  /** The request of a new payment, as validated by the application. */
  public record Draft(
      PaymentId id,
      ShopId shopId,
      PaymentType type,
      PaymentMethod method,
      Money amount,
      String referenceId,
      String description,
      PaymentId parentPaymentId,
      boolean preAuth,
      CardDetails card,
      Customer customer,
      BillingAddress billingAddress,
      String returnUrl,
      String webhookUrl,
      Map<String, String> additionalParameters) {}

  /** A step taken: the payment before and after it, and the operation that records it. */
  public record Transition(Payment before, Payment after, PaymentOperation operation) {

    /**
     * A terminal's decline that does not end the payment (it cascades to the next terminal): the
     * step says why with {@code code}, while the payment, not declined, keeps no error.
     */
    public Transition declinedStep(ErrorCode code) {
      return new Transition(before, after, operation.withErrorCode(code));
    }
  }

  /** Creates the payment in its initial state, recording CREATE_PAYMENT. */
  public static Transition create(Draft draft, PaymentState initialState, Instant now) {
    if (!PaymentTransitions.initialStates(draft.type()).contains(initialState)) {
      throw new IllegalArgumentException(draft.type() + " cannot start in " + initialState);
    }
    Payment payment = new Payment(
        draft.id(), draft.shopId(), draft.type(), initialState, draft.method(), draft.amount(), null,
        draft.referenceId(), draft.description(), draft.parentPaymentId(), draft.preAuth(),
        draft.card(), draft.customer(), draft.billingAddress(), draft.returnUrl(),
        draft.webhookUrl(), draft.additionalParameters(), null, null, null, null, null, null, null, false,
        now, now, 0);
    PaymentOperation op = new PaymentOperation(
        null, OperationType.CREATE_PAYMENT, now, now, initialState, null, null);
    return new Transition(null, payment, op);
  }

  /**
   * Runs {@code operation}, leaving the payment in {@code to}; refused with 1.00 when the
   * state table does not allow it.
   */
  public Transition apply(OperationType operation, PaymentState to, Outcome outcome, Instant started, Instant now) {
    PaymentTransitions.check(type, state, operation, to);
    Money finalAmount = outcome.amount() != null ? outcome.amount() : amount;
    Payment after = new Payment(
        id, shopId, type, to, method,
        finalAmount,
        askedFor(finalAmount), referenceId, description, parentPaymentId, preAuth,
        outcome.card() != null ? outcome.card() : card, customer,
        billingAddress, returnUrl, webhookUrl, additionalParameters,
        outcome.errorCode() != null ? outcome.errorCode() : errorCode,
        outcome.errorCode() != null ? outcome.errorMessage() : errorMessage,
        outcome.externalId() != null ? outcome.externalId() : externalId,
        outcome.externalResultCode() != null ? outcome.externalResultCode() : externalResultCode,
        outcome.externalRefs() != null ? outcome.externalRefs() : externalRefs,
        terminalName, terminalId, holdsOnceRouted, created, now, version);
    PaymentOperation op = new PaymentOperation(
        null, operation, started, now, to, outcome.errorCode(), outcome.details(), terminalName, terminalId,
        outcome.externalId(), outcome.externalResultCode());
    return new Transition(this, after, op);
  }

  public Transition apply(OperationType operation, PaymentState to, Outcome outcome, Instant now) {
    return apply(operation, to, outcome, now, now);
  }

  public Payment withVersion(long newVersion) {
    return new Payment(
        id, shopId, type, state, method, amount, customerAmount, referenceId, description,
        parentPaymentId, preAuth, card, customer, billingAddress, returnUrl, webhookUrl,
        additionalParameters, errorCode, errorMessage, externalId, externalResultCode,
        externalRefs, terminalName, terminalId, holdsOnceRouted, created, updated, newVersion);
  }

  /** The same payment whose card is known by {@code token} (the token the vault holds for it). */
  public Payment withCardToken(String token) {
    if (card == null) {
      throw new IllegalStateException("payment " + id + " has no card");
    }
    CardDetails tokenized = new CardDetails(card.maskedNumber(), token, card.cardholderName(), card.expiryMonth(),
        card.expiryYear(), card.brand(), card.issuingCountry(), card.cardType(), card.issuingOrganization());
    return new Payment(
        id, shopId, type, state, method, amount, customerAmount, referenceId, description,
        parentPaymentId, preAuth, tokenized, customer, billingAddress, returnUrl, webhookUrl,
        additionalParameters, errorCode, errorMessage, externalId, externalResultCode,
        externalRefs, terminalName, terminalId, holdsOnceRouted, created, updated, version);
  }

  /**
   * The same payment whose customer is at {@code ip}: the address a host-to-host execution
   * gives replaces any given at creation, and is stored with the step that follows.
   */
  public Payment withCustomerIp(String ip) {
    return withCustomerIp(ip, null);
  }

  /** {@link #withCustomerIp(String)}, with the country of the address when the merchant knows it. */
  public Payment withCustomerIp(String ip, String country) {
    Customer located = (customer == null ? Customer.ofIp(ip) : customer).withIp(ip, country);
    return new Payment(
        id, shopId, type, state, method, amount, customerAmount, referenceId, description,
        parentPaymentId, preAuth, card, located, billingAddress, returnUrl, webhookUrl,
        additionalParameters, errorCode, errorMessage, externalId, externalResultCode,
        externalRefs, terminalName, terminalId, holdsOnceRouted, created, updated, version);
  }

  /**
   * The {@code customerAmount} once the amount becomes {@code finalAmount} (a partial capture, a
   * bank transfer settled for another sum): scaled with it, half-even to its currency's
   * decimals, so that both still say what the customer pays, in either currency. A deposit's
   * only: a payout's or refund's is what it reserved, and what it releases.
   */
  private Money askedFor(Money finalAmount) {
    if (type != PaymentType.DEPOSIT || customerAmount == null || finalAmount.amount().compareTo(amount.amount()) == 0
        || amount.amount().signum() == 0 || !finalAmount.currency().equals(amount.currency())) {
      return customerAmount;
    }
    return new Money(customerAmount.amount().multiply(finalAmount.amount())
        .divide(amount.amount(), customerAmount.currency().scale(), java.math.RoundingMode.HALF_EVEN),
        customerAmount.currency());
  }

  /**
   * The same payment as sent to a terminal: {@code processedAmount} in the terminal's currency,
   * {@code requestedAmount} when that differs, and the terminal ({@code terminal} null for the
   * processor's default terminal).
   */
  public Payment withRouting(Money processedAmount, Money requestedAmount, Long terminal, String name) {
    return new Payment(
        id, shopId, type, state, method, processedAmount, requestedAmount, referenceId,
        description, parentPaymentId, preAuth, card, customer, billingAddress, returnUrl,
        webhookUrl, additionalParameters, errorCode, errorMessage, externalId,
        externalResultCode, externalRefs, name, terminal, holdsOnceRouted, created, updated, version);
  }

  /**
   * Whether the payment holds nothing of the shop's balance yet: a withdrawal that holds once
   * routed ({@code holdsOnceRouted}), not routed to a terminal yet.
   */
  public boolean holdsNothingYet() {
    return holdsOnceRouted && terminalName == null;
  }

  /**
   * The same new withdrawal, holding nothing of the shop's balance until routing sends it to a
   * terminal ({@code holdsOnceRouted}).
   */
  public Payment holdingOnceRouted() {
    if (type != PaymentType.WITHDRAWAL || terminalName != null) {
      throw new IllegalStateException("only a withdrawal not routed yet can hold once routed");
    }
    return new Payment(
        id, shopId, type, state, method, amount, customerAmount, referenceId, description,
        parentPaymentId, preAuth, card, customer, billingAddress, returnUrl, webhookUrl,
        additionalParameters, errorCode, errorMessage, externalId, externalResultCode,
        externalRefs, terminalName, terminalId, true, created, updated, version);
  }
}
