package io.tollgate.domain.payment;

public enum PaymentType {
  DEPOSIT,
  WITHDRAWAL,
  REFUND
}
