package io.tollgate.application.port.out;

import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentState;

/** Counts what happens to payments, for the operators' dashboards. */
public interface PaymentMetrics {

  void created(Payment payment);

  /** A payment moved from {@code from} to the state it now has. */
  void moved(PaymentState from, Payment payment);

  PaymentMetrics NONE = new PaymentMetrics() {
    @Override
    public void created(Payment payment) {}

    @Override
    public void moved(PaymentState from, Payment payment) {}
  };
}
