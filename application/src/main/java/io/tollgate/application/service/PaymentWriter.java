package io.tollgate.application.service;

import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.BalanceRepository.LedgerEntry;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.application.port.out.WebhookPayloads;
import java.math.BigDecimal;
import java.util.UUID;

/**
 * Stores every step of a payment together with its consequences, in the caller's
 * transaction: the payment row and its operation, and the ledger entries the step implies.
 * Nothing else writes payments, so no state change can happen without its ledger entry.
 *
 * <p>The ledger: a completed deposit adds to the available balance; a withdrawal or refund
 * moves its amount from available to reserved when it is created, and out of reserved when
 * it completes, or back to available when it is declined or cancelled.
 *
 * <p>Webhooks: entering a state the merchant is told about (COMPLETED, DECLINED, CANCELLED,
 * AUTHORIZED) writes an outbox event with the payment's document as it is at that moment.
 */
public final class PaymentWriter {

  private final PaymentRepository payments;
  private final BalanceRepository balances;
  private final WebhookOutbox outbox;
  private final WebhookPayloads payloads;
  private final PaymentMetrics metrics;

  public PaymentWriter(PaymentRepository payments, BalanceRepository balances, WebhookOutbox outbox,
      WebhookPayloads payloads, PaymentMetrics metrics) {
    this.metrics = metrics;
    this.payments = payments;
    this.balances = balances;
    this.outbox = outbox;
    this.payloads = payloads;
  }

  public Payment create(Payment.Transition creation) {
    Payment stored = payments.insert(creation);
    if (holdsFunds(stored.type())) {
      post(stored, stored.amount().amount().negate(), stored.amount().amount(), "reserved for " + describe(stored));
    }
    notifyMerchant(stored);
    metrics.created(stored);
    return stored;
  }

  public Payment update(Payment.Transition step) {
    Payment stored = payments.update(step);
    PaymentState from = step.before().state();
    PaymentState to = stored.state();
    if (from == to) {
      return stored;
    }
    // The outbox row first, the balance last: the balance row lock is then held the shortest time.
    notifyMerchant(stored);
    if (stored.type() == PaymentType.DEPOSIT && to == PaymentState.COMPLETED) {
      post(stored, stored.amount().amount(), BigDecimal.ZERO, "deposit completed");
    } else if (holdsFunds(stored.type()) && to == PaymentState.COMPLETED) {
      post(stored, BigDecimal.ZERO, stored.amount().amount().negate(), describe(stored) + " paid out");
    } else if (holdsFunds(stored.type()) && (to == PaymentState.DECLINED || to == PaymentState.CANCELLED)) {
      post(stored, stored.amount().amount(), stored.amount().amount().negate(), describe(stored) + " released");
    }
    metrics.moved(from, stored);
    return stored;
  }

  /** The outbox row of a state the merchant hears about, in the same transaction as the state. */
  private void notifyMerchant(Payment p) {
    if (p.state().notifiesMerchant()) {
      outbox.enqueue(new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), p.id(), p.shopId(), p.state(),
          p.webhookUrl(), payloads.render(p), p.updated()));
    }
  }

  private static boolean holdsFunds(PaymentType type) {
    return type == PaymentType.WITHDRAWAL || type == PaymentType.REFUND;
  }

  private static String describe(Payment p) {
    return p.type().name().toLowerCase(java.util.Locale.ROOT);
  }

  private void post(Payment p, BigDecimal available, BigDecimal reserved, String reason) {
    Money m = p.amount();
    balances.post(new LedgerEntry(p.shopId(), m.currency(), available, reserved, p.id(), reason, p.updated()));
  }
}
