package io.tollgate.application.service;

import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.BalanceRepository.LedgerEntry;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.IdempotencyRepository;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.application.port.out.WebhookPayloads;
import io.tollgate.domain.payment.PaymentOperation;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Stores every step of a payment together with its consequences, in the caller's
 * transaction: the payment row and its operation, and the ledger entries the step implies.
 * Nothing else writes payments, so no state change can happen without its ledger entry.
 *
 * <p>The ledger: a completed deposit adds to the available balance, in the currency the
 * terminal charged; a withdrawal or refund moves its amount from available to reserved when it
 * is created, and out of reserved when it completes, or back to available when it is declined
 * or cancelled. A withdrawal routed (or cascaded) to a terminal in another currency moves what
 * it holds there with the step that routes it: it gives back what it held and holds its amount
 * as converted for that terminal, so that it is paid out of the balance in the currency the
 * terminal pays, as a converted deposit is credited to the balance in the currency the
 * terminal charged. A refund goes back through its deposit's terminal, in the deposit's
 * currency, which is what it holds from the start. A withdrawal that holds once routed
 * ({@link Payment#holdsOnceRouted}) holds nothing until the step that routes it, which holds its
 * amount as routed and gives nothing back; declined or cancelled before, it gives nothing back
 * either.
 *
 * <p>Webhooks: entering a state the merchant is told about (COMPLETED, DECLINED, CANCELLED,
 * AUTHORIZED) writes an outbox event with the payment's document as it is at that moment.
 *
 * <p>Idempotency-Key: a step of the payment a keyed action runs on ({@link #acting}) is recorded
 * as that key's change in the step's transaction, so that the retry of a request that failed or
 * was cut short is answered with what it changed, and only that.
 */
public final class PaymentWriter {

  /** The payment a request with an Idempotency-Key acts on, and its key. */
  private record Acting(String key, PaymentId payment) {}

  /** Per thread: a request's action runs on its own thread, where no other request's steps are stored. */
  private final ThreadLocal<Acting> acting = new ThreadLocal<>();
  private final PaymentRepository payments;
  private final WebhookPayloads payloads;
  private final PaymentMetrics metrics;
  /** Told which key's request made a change; null where no keyed action runs (some tests). */
  private final IdempotencyRepository keys;

  public PaymentWriter(PaymentRepository payments, WebhookPayloads payloads, PaymentMetrics metrics) {
    this(payments, payloads, metrics, null);
  }

  public PaymentWriter(PaymentRepository payments, WebhookPayloads payloads, PaymentMetrics metrics,
      IdempotencyRepository keys) {
    this.metrics = metrics;
    this.payments = payments;
    this.payloads = payloads;
    this.keys = keys;
  }

  /**
   * Runs the action of the request holding {@code key} on {@code payment}: each step of that
   * payment it stores is recorded as the key's change ({@link IdempotencyRepository#recordActed}).
   * A request without a key does not come here: its steps cost no write more.
   */
  public <T> T acting(String key, PaymentId payment, Supplier<T> action) {
    acting.set(new Acting(key, payment));
    try {
      return action.get();
    } finally {
      acting.remove();
    }
  }

  /** The key of the request acting on {@code payment} on this thread ({@link #acting}), or null. */
  public String actingKey(PaymentId payment) {
    Acting a = acting.get();
    return a != null && a.payment() != null && a.payment().equals(payment) ? a.key() : null;
  }

  /**
   * Stores the terminal's answer to a capture or void the request holding {@code askedBy} asked
   * (null: one without a key): that request's change, whether it stores it, another request
   * asking the same step again does, or the job for unanswered steps.
   */
  public Payment answer(Payment.Transition step, String askedBy) {
    Payment stored = update(step);
    if (askedBy != null && keys != null && !askedBy.equals(actingKey(stored.id()))) {
      keys.recordActed(stored.shopId(), askedBy);
    }
    return stored;
  }

  /** {@code stored}, a step just written, recorded as the change of the keyed request acting on it. */
  private Payment acted(Payment stored) {
    String key = actingKey(stored.id());
    if (key != null && keys != null) {
      keys.recordActed(stored.shopId(), key);
    }
    return stored;
  }

  public Payment create(Payment.Transition creation) {
    return create(creation, null);
  }

  /**
   * Stores a new payment; a customer it names by reference id is added to the shop's
   * customers (or updated there), and {@code card}, the number behind its card token when the
   * request gave one, is stored in the vault, in the same write. The payment returned carries
   * the token the vault holds for its card.
   */
  public Payment create(Payment.Transition creation, CardVault.Sealed card) {
    Payment stored = payments.insert(creation, p -> new PaymentRepository.Effects(notification(p),
        reserved(p) != null ? entry(p, p.amount(), p.amount().amount().negate(), p.amount().amount(),
            "reserved for " + describe(p)) : null,
        p.customer() != null && p.customer().referenceId() != null ? p.customer() : null, card));
    metrics.created(stored);
    return stored;
  }

  public Payment update(Payment.Transition step) {
    return store(step, List.of());
  }

  /**
   * Holds a step that records an operation and changes nothing else about the payment (an
   * anti-fraud screen that found nothing), to be stored with the request's next step by
   * {@link #update(Held, Payment.Transition)}: one write fewer. The held payment carries the
   * version its row will have once both are stored, so a next step written without the held
   * one fails as a concurrent modification instead of losing the operation.
   */
  public Held hold(Payment.Transition step) {
    Payment before = step.before();
    if (before == null || before.state() != step.after().state()) {
      throw new IllegalArgumentException("only a step that keeps the payment's state can be held");
    }
    return new Held(step);
  }

  /** A step not stored yet; {@link #payment()} is what the next step starts from. */
  public record Held(Payment.Transition step) {
    public Payment payment() {
      return step.after().withVersion(step.before().version() + 1);
    }
  }

  /**
   * Stores where a payment is to be sent, before it is sent there: {@code step} leaves it with
   * its terminal and amounts as routed, by a step that tells the merchant nothing (for a payout
   * none, its operation null, or a CASCADING step that says why connectors were passed over),
   * with the held step before it when there is one. No
   * event; no ledger entry, but for a payout routed in another amount or currency than it holds
   * the transfer of what it holds there, and for one that holds nothing yet the hold of what it
   * is routed in.
   */
  public Payment route(Held held, Payment.Transition step) {
    Payment.Transition whole = step;
    List<PaymentOperation> earlier = List.of();
    if (held != null) {
      Payment from = step.before();
      if (!from.id().equals(held.payment().id()) || from.version() != held.payment().version()) {
        throw new IllegalStateException("payment " + from.id() + ": the routing does not follow the held step");
      }
      whole = new Payment.Transition(from.withVersion(held.step().before().version()), step.after(),
          step.operation());
      earlier = List.of(held.step().operation());
    }
    Payment before = step.before();
    Payment stored = payments.update(whole, earlier, p -> moving(before, p));
    if (step.before().state() != stored.state()) {
      metrics.moved(step.before().state(), stored);
    }
    return acted(stored);
  }

  /** Stores {@code next}, and the held step before it when there is one, as one write. */
  public Payment update(Held held, Payment.Transition next) {
    if (held == null) {
      return update(next);
    }
    Payment start = held.payment();
    if (!next.before().id().equals(start.id()) || next.before().version() != start.version()) {
      throw new IllegalStateException("payment " + next.before().id() + ": the step does not follow the held one");
    }
    Payment before = next.before().withVersion(held.step().before().version());
    return store(new Payment.Transition(before, next.after(), next.operation()), List.of(held.step().operation()));
  }

  /**
   * Stores {@code next} with {@code passed}, the steps that led to it in memory only (a bank
   * transfer's terminal that would not open it, and the cascading on from there), and the held
   * step before them, as one write: the payment changes state once, and its one event tells what
   * the last step left.
   */
  public Payment update(Held held, List<Payment.Transition> passed, Payment.Transition next) {
    if (passed.isEmpty()) {
      return update(held, next);
    }
    Payment first = passed.get(0).before();
    List<PaymentOperation> earlier = new ArrayList<>();
    Payment before = first;
    if (held != null) {
      Payment start = held.payment();
      if (!first.id().equals(start.id()) || first.version() != start.version()) {
        throw new IllegalStateException("payment " + first.id() + ": the steps do not follow the held one");
      }
      earlier.add(held.step().operation());
      before = first.withVersion(held.step().before().version());
    }
    passed.forEach(step -> earlier.add(step.operation()));
    return store(new Payment.Transition(before, next.after(), next.operation()), earlier);
  }

  private Payment store(Payment.Transition step, List<PaymentOperation> earlier) {
    PaymentState from = step.before().state();
    if (from == step.after().state()) {
      return acted(payments.update(step, earlier, p -> moving(step.before(), p)));
    }
    // The payment, its operations, its outbox row and its ledger entry in one write.
    Payment stored = payments.update(step, earlier, p -> new PaymentRepository.Effects(notification(p), ledgerEntry(p)));
    metrics.moved(from, stored);
    return acted(stored);
  }

  /**
   * The effects of a step that keeps a payment's state: none, or for a payout that routing sends
   * in another amount or currency than it holds, the transfer of what it holds to that; for one
   * that held nothing until routed, the hold of what it is routed in, and nothing given back.
   */
  private static PaymentRepository.Effects moving(Payment before, Payment stored) {
    Money held = reserved(before);
    Money now = reserved(stored);
    if (stored.type() != PaymentType.WITHDRAWAL || now == null || held != null && sameMoney(held, now)) {
      return PaymentRepository.Effects.NONE;
    }
    String why = describe(stored) + " routed to " + stored.terminalName() + " in " + now.currency();
    // when it is routed: a routing step keeps the payment's time of its last operation
    java.time.Instant at = java.time.Instant.now();
    LedgerEntry hold = new LedgerEntry(stored.shopId(), now.currency(), now.amount().negate(), now.amount(),
        stored.id(), "reserved: " + why, at);
    if (held == null) {
      return new PaymentRepository.Effects(null, hold);
    }
    return PaymentRepository.Effects.moving(new BalanceRepository.Transfer(
        new LedgerEntry(stored.shopId(), held.currency(), held.amount(), held.amount().negate(), stored.id(),
            "released: " + why, at), hold));
  }

  private static boolean sameMoney(Money a, Money b) {
    return a.currency().equals(b.currency()) && a.amount().compareTo(b.amount()) == 0;
  }

  /** The ledger entry of entering the stored payment's state, or null when the state moves no money. */
  private static LedgerEntry ledgerEntry(Payment stored) {
    PaymentState to = stored.state();
    if (stored.type() == PaymentType.DEPOSIT && to == PaymentState.COMPLETED) {
      return entry(stored, stored.amount(), stored.amount().amount(), BigDecimal.ZERO, "deposit completed");
    }
    Money held = reserved(stored);
    if (held == null) {
      return null;
    }
    if (to == PaymentState.COMPLETED) {
      return entry(stored, held, BigDecimal.ZERO, held.amount().negate(), describe(stored) + " paid out");
    } else if (to == PaymentState.DECLINED || to == PaymentState.CANCELLED) {
      return entry(stored, held, held.amount(), held.amount().negate(), describe(stored) + " released");
    }
    return null;
  }

  /** The outbox row of a state the merchant hears about, or null. */
  private WebhookOutbox.NewEvent notification(Payment p) {
    if (!p.state().notifiesMerchant()) {
      return null;
    }
    return new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), p.id(), p.shopId(), p.state(),
        p.webhookUrl(), payloads.render(p), p.updated());
  }

  private static boolean holdsFunds(PaymentType type) {
    return type == PaymentType.WITHDRAWAL || type == PaymentType.REFUND;
  }

  private static String describe(Payment p) {
    return p.type().name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * What a withdrawal or refund holds back: its amount; null for a deposit, and for a withdrawal
   * that holds once routed ({@link Payment#holdsOnceRouted}) and names no terminal yet. For a
   * withdrawal that is the amount it was created with until routing sends it in another
   * currency, and its amount as converted for its terminal from the step that routed it there; a
   * refund is created in its deposit's currency, which its deposit added to the balance, even
   * when it was asked in the currency the deposit was asked in (its {@code customerAmount} then).
   */
  private static Money reserved(Payment p) {
    if (!holdsFunds(p.type()) || p.holdsNothingYet()) {
      return null;
    }
    return p.amount();
  }

  private static LedgerEntry entry(Payment p, Money account, BigDecimal available, BigDecimal reserved, String reason) {
    return new LedgerEntry(p.shopId(), account.currency(), available, reserved, p.id(), reason, p.updated());
  }
}
