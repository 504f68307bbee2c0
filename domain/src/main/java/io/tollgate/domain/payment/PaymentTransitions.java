package io.tollgate.domain.payment;

import static io.tollgate.domain.payment.PaymentState.*;

import io.tollgate.domain.DomainException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The payment state machine as data: for each payment type, which operation may run in which
 * state and which states it may leave the payment in. Anything not in the table is refused.
 */
public final class PaymentTransitions {

  public static final String ILLEGAL_WORKFLOW_STATE = "1.00 Illegal Workflow State";

  private record Key(PaymentType type, PaymentState from, OperationType operation) {}

  private static final Map<Key, Set<PaymentState>> TABLE = new HashMap<>();
  private static final Map<PaymentType, Set<PaymentState>> INITIAL = Map.of(
      PaymentType.DEPOSIT, EnumSet.of(CHECKOUT),
      PaymentType.WITHDRAWAL, EnumSet.of(PENDING, AWAITING_APPROVAL),
      PaymentType.REFUND, EnumSet.of(PENDING));

  static {
    // Deposit: the customer (or the merchant host-to-host) supplies the card, then processing.
    deposit(CHECKOUT, OperationType.CHECKOUT, PENDING);
    deposit(CHECKOUT, OperationType.DETECT_FRAUD, CHECKOUT, DECLINED);
    deposit(CHECKOUT, OperationType.DEPOSIT, PENDING, AUTHORIZED, COMPLETED, DECLINED);
    deposit(CHECKOUT, OperationType.CANCEL, CANCELLED);
    deposit(PENDING, OperationType.DETECT_FRAUD, PENDING, DECLINED);
    deposit(PENDING, OperationType.REDIRECT, PENDING);
    deposit(PENDING, OperationType.CONFIRMATION, PENDING, DECLINED);
    deposit(PENDING, OperationType.CASCADING, PENDING);
    deposit(PENDING, OperationType.DEPOSIT, PENDING, AUTHORIZED, COMPLETED, DECLINED);
    deposit(PENDING, OperationType.CANCEL, CANCELLED);
    deposit(AUTHORIZED, OperationType.CAPTURE, COMPLETED);
    deposit(AUTHORIZED, OperationType.VOID, CANCELLED);
    // Withdrawal: optionally approved by the merchant, then paid out by the worker.
    withdrawal(AWAITING_APPROVAL, OperationType.APPROVE, PENDING);
    withdrawal(AWAITING_APPROVAL, OperationType.REJECT, CANCELLED);
    withdrawal(PENDING, OperationType.DETECT_FRAUD, PENDING, DECLINED);
    withdrawal(PENDING, OperationType.CASCADING, PENDING);
    // PENDING: declined by one terminal with a code that cascades to the next (CASCADING)
    withdrawal(PENDING, OperationType.WITHDRAWAL, PENDING, COMPLETED, DECLINED);
    // Refund: processed by the worker against its completed parent deposit.
    refund(PENDING, OperationType.REFUND, COMPLETED, DECLINED);
  }

  private PaymentTransitions() {}

  private static void deposit(PaymentState from, OperationType op, PaymentState... to) {
    row(PaymentType.DEPOSIT, from, op, to);
  }

  private static void withdrawal(PaymentState from, OperationType op, PaymentState... to) {
    row(PaymentType.WITHDRAWAL, from, op, to);
  }

  private static void refund(PaymentState from, OperationType op, PaymentState... to) {
    row(PaymentType.REFUND, from, op, to);
  }

  private static void row(PaymentType type, PaymentState from, OperationType op, PaymentState... to) {
    TABLE.put(new Key(type, from, op), Set.copyOf(EnumSet.of(to[0], to)));
  }

  /** The states a new payment of this type may start in (after CREATE_PAYMENT). */
  public static Set<PaymentState> initialStates(PaymentType type) {
    return INITIAL.get(type);
  }

  /** Whether {@code operation} may run on a payment of this type in state {@code from}. */
  public static boolean allows(PaymentType type, PaymentState from, OperationType operation) {
    return TABLE.containsKey(new Key(type, from, operation));
  }

  /** The states {@code operation} may leave the payment in; empty when it may not run at all. */
  public static Set<PaymentState> targets(PaymentType type, PaymentState from, OperationType operation) {
    return TABLE.getOrDefault(new Key(type, from, operation), Set.of());
  }

  /** Refuses, with the merchant-facing 1.00 conflict, any step the table does not list. */
  public static void check(PaymentType type, PaymentState from, OperationType operation, PaymentState to) {
    if (!targets(type, from, operation).contains(to)) {
      throw illegal();
    }
  }

  public static void checkAllowed(PaymentType type, PaymentState from, OperationType operation) {
    if (!allows(type, from, operation)) {
      throw illegal();
    }
  }

  public static DomainException.Conflict illegal() {
    return new DomainException.Conflict("illegal_workflow_state", ILLEGAL_WORKFLOW_STATE);
  }
}
