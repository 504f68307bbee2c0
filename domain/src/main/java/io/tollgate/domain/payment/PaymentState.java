package io.tollgate.domain.payment;

public enum PaymentState {
  CHECKOUT,
  PENDING,
  AWAITING_APPROVAL,
  AUTHORIZED,
  COMPLETED,
  DECLINED,
  CANCELLED;

  /** No operation moves a payment out of a final state. */
  public boolean isFinal() {
    return this == COMPLETED || this == DECLINED || this == CANCELLED;
  }

  /** States whose entry is announced to the merchant by webhook (AUTHORIZED included). */
  public boolean notifiesMerchant() {
    return isFinal() || this == AUTHORIZED;
  }
}
