package io.tollgate.application.port.in;

import io.tollgate.application.port.out.Page;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.shop.ShopId;
import java.util.List;

/** Reads a shop's payments. Another shop's payment is reported as not found. */
public interface PaymentQueries {

  /** @throws io.tollgate.domain.DomainException.NotFound for an unknown or foreign id */
  Payment get(ShopId shop, String paymentId);

  Page<Payment> list(ListPaymentsQuery query);

  /** Most recent first. */
  List<PaymentOperation> operations(ShopId shop, String paymentId);
}
