package io.tollgate.bootstrap;

import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.PaymentId;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The acquirer behind the sandbox as the processor port describes a real one, which a gateway
 * started with it sends its payments to (in place of its sandbox): it de-duplicates a call made
 * again (same step, payment, terminal and attempt) by answering what it answered the first time,
 * and it records every charge, payout and refund it made, so that a test can hold the gateway's
 * states to what the acquirer did.
 *
 * <p>Payments of its two tardy cards, and refunds of deposits paid with one, are not answered at
 * once: the first calls of one ({@link Plan#silent}), or every call ({@link Plan#never}), answer
 * PENDING (the acquirer still waits on the issuer) or time out, having reached the acquirer or
 * not. Once a call reached it the acquirer has decided, as the sandbox decides for {@link #PAYS}
 * or {@link #DECLINES}, and answers that decision to every call it answers after.
 *
 * <p>The capture or void of a pre-authorization of a tardy card follows the same plan, its first
 * {@code silent} calls counted apart from the authorization's. Like a real acquirer it captures
 * or voids a pre-authorization once: the same step asked again is answered what it did, and a
 * void of what it captured, or a capture of what it voided (or of another amount), is refused.
 */
final class TardyAcquirer implements PaymentProcessor {

  /** A tardy card the acquirer approves once it answers. */
  static final String TARDY = "400000000000777" + MoneyInvariantsTest.luhnDigit("400000000000777");
  /** A tardy card the acquirer declines (4.00) once it answers. */
  static final String TARDY_DECLINED = "400000000000778" + MoneyInvariantsTest.luhnDigit("400000000000778");
  static final String PAYS = "4000000000000408";
  static final String DECLINES = "4000000000000416";

  /**
   * How the acquirer treats the calls for one payment: the first {@code silent} are answered
   * PENDING or time out; with {@code never}, all of them.
   */
  record Plan(int silent, boolean never) {}

  private final PaymentProcessor sandbox;
  private final long seed;
  /** What the acquirer decided, by step, payment, terminal and attempt: a call made again is answered this. */
  private final Map<String, Result> decided = new ConcurrentHashMap<>();
  /**
   * The steps in which the acquirer moved money of a payment (charged, paid out, refunded,
   * captured), by payment id.
   */
  private final Map<String, List<String>> moved = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  /** The calls to capture or void each pre-authorization, counted apart: its plan starts over for them. */
  private final Map<String, AtomicInteger> settleCalls = new ConcurrentHashMap<>();
  /** The capture or void the acquirer made of each pre-authorization, by payment id: it makes one at most. */
  private final Map<String, String> settled = new ConcurrentHashMap<>();
  private final Set<String> tardyDeposits = ConcurrentHashMap.newKeySet();
  private final AtomicInteger unanswered = new AtomicInteger();
  /** What happens elsewhere while the acquirer decides a payout at a terminal, by terminal id. */
  private final Map<Long, Consumer<CardCharge>> meanwhile = new ConcurrentHashMap<>();

  TardyAcquirer(PaymentProcessor sandbox, long seed) {
    this.sandbox = sandbox;
    this.seed = seed;
  }

  static boolean tardy(String card) {
    return TARDY.equals(card) || TARDY_DECLINED.equals(card);
  }

  /** The plan of the payment {@code paymentId}, the same for the acquirer and the test's model. */
  static Plan plan(long seed, String paymentId) {
    Random r = new Random(seed * 131 + paymentId.hashCode());
    return new Plan(1 + r.nextInt(3), r.nextInt(6) == 0);
  }

  /** The steps in which the acquirer moved money of the payment. */
  List<String> moved(String paymentId) {
    return List.copyOf(moved.getOrDefault(paymentId, List.of()));
  }

  /** The void the acquirer made of the pre-authorization, or null when it voided nothing. */
  String voided(String paymentId) {
    String did = settled.get(paymentId);
    return did != null && did.startsWith("void ") ? did : null;
  }

  /** The payments the acquirer was asked about. */
  Set<String> asked() {
    Set<String> all = new java.util.HashSet<>(calls.keySet());
    all.addAll(settleCalls.keySet());
    return all;
  }

  /**
   * Has {@code action} run while the acquirer decides each payout at {@code terminal}, before it
   * answers, once per payout and attempt however often it is asked: what an operator changes
   * while a terminal has a payout.
   */
  void meanwhile(long terminal, Consumer<CardCharge> action) {
    meanwhile.put(terminal, action);
  }

  /** How many calls the acquirer left unanswered (PENDING or timed out). */
  int unanswered() {
    return unanswered.get();
  }

  @Override
  public String terminalName() {
    return sandbox.terminalName();
  }

  @Override
  public Result authorize(CardCharge charge) {
    boolean tardy = tardy(charge.cardNumber());
    if (tardy) {
      tardyDeposits.add(charge.payment().value());
    }
    return ask("authorize " + charge.payment().value() + " " + charge.terminal() + " " + charge.attempt(),
        charge.payment(), tardy, calls, true, () -> sandbox.authorize(decided(charge)));
  }

  @Override
  public Result completeChallenge(CardCharge charge, boolean customerPassed) {
    return ask("challenge " + charge.payment().value() + " " + charge.terminal() + " " + charge.attempt(),
        charge.payment(), false, calls, true, () -> sandbox.completeChallenge(charge, customerPassed));
  }

  @Override
  public Result capture(PaymentId payment, Terminal terminal, String externalId, Money amount) {
    String step = "capture " + payment.value() + " " + amount;
    return ask(step, payment, tardyDeposits.contains(payment.value()), settleCalls, true,
        () -> settle(payment, step, () -> sandbox.capture(payment, terminal, externalId, amount)));
  }

  @Override
  public Result voidAuthorization(PaymentId payment, Terminal terminal, String externalId) {
    String step = "void " + payment.value();
    // a void releases what was held: no money moved
    return ask(step, payment, tardyDeposits.contains(payment.value()), settleCalls, false,
        () -> settle(payment, step, () -> sandbox.voidAuthorization(payment, terminal, externalId)));
  }

  /**
   * The acquirer's decision on a capture or void of a pre-authorization: the sandbox's, unless
   * it already captured or voided it otherwise, which it refuses.
   */
  private Result settle(PaymentId payment, String step, Supplier<Result> decide) {
    // one lock for the check and the act: a capture and a void decided at once cannot both be made
    synchronized (settled) {
      String did = settled.get(payment.value());
      if (did != null) {
        return Result.declined(ErrorCode.E3_00_DECLINED_BY_ACQUIRER, "acq-" + payment.value(), "12");
      }
      Result r = decide.get();
      if (r.status() == Result.Status.APPROVED) {
        settled.put(payment.value(), step);
      }
      return r;
    }
  }

  @Override
  public Result payout(CardCharge payout) {
    Consumer<CardCharge> action = payout.terminal().id() == null ? null : meanwhile.get(payout.terminal().id());
    return ask("payout " + payout.payment().value() + " " + payout.terminal() + " " + payout.attempt(),
        payout.payment(), tardy(payout.cardNumber()), calls, true, () -> {
          if (action != null) {
            action.accept(payout);
          }
          return sandbox.payout(decided(payout));
        });
  }

  @Override
  public Result bankPayout(PaymentId payout, Terminal terminal, Money amount, Customer account) {
    return ask("bank payout " + payout.value() + " " + terminal, payout, false, calls, true,
        () -> sandbox.bankPayout(payout, terminal, amount, account));
  }

  @Override
  public Result refund(PaymentId refund, PaymentId deposit, Terminal terminal, String depositExternalId,
      Money amount) {
    return ask("refund " + refund.value() + " " + terminal, refund, tardyDeposits.contains(deposit.value()), calls,
        true, () -> sandbox.refund(refund, deposit, terminal, depositExternalId, amount));
  }

  @Override
  public Result startBankTransfer(PaymentId payment, Terminal terminal, Money amount,
      Map<String, String> additionalParameters) {
    return sandbox.startBankTransfer(payment, terminal, amount, additionalParameters);
  }

  @Override
  public Result bankTransferStatus(PaymentId payment, Terminal terminal, String externalId, Money expected,
      Map<String, String> additionalParameters) {
    return sandbox.bankTransferStatus(payment, terminal, externalId, expected, additionalParameters);
  }

  /**
   * A call of {@code step} for {@code payment}, counted in {@code counted}: answered what the
   * acquirer decided, once it has (deciding now if it has not), unless the payment is tardy and
   * this call is one its plan leaves unanswered. {@code moves}: whether an approval moves money.
   */
  private Result ask(String step, PaymentId payment, boolean tardy, Map<String, AtomicInteger> counted,
      boolean moves, Supplier<Result> decide) {
    int call = counted.computeIfAbsent(payment.value(), p -> new AtomicInteger()).incrementAndGet();
    Plan plan = plan(seed, payment.value());
    if (!tardy || (!plan.never() && call > plan.silent())) {
      return decide(step, payment, moves, decide);
    }
    unanswered.incrementAndGet();
    // a capture's or void's calls drawn apart from the authorization's of the same number
    String drawn = payment.value() + " " + (counted == calls ? "" : "settle ") + call;
    Random r = new Random(seed * 37 + drawn.hashCode());
    boolean reached = r.nextInt(3) != 0;
    boolean alreadyDecided = decided.containsKey(step);
    if (reached) {
      decide(step, payment, moves, decide);
    }
    if (!alreadyDecided && r.nextBoolean()) {
      // the acquirer took it and waits on the issuer or the bank: no decision yet, as far as the gateway is told
      return new Result(Result.Status.PENDING, null, null, "IN_PROGRESS", Map.of(), null);
    }
    throw new IllegalStateException("the terminal did not answer " + step + " in time"
        + (reached ? " (it had received it)" : ""), new SocketTimeoutException("Read timed out"));
  }

  private Result decide(String step, PaymentId payment, boolean moves, Supplier<Result> decide) {
    return decided.computeIfAbsent(step, s -> {
      Result r = decide.get();
      if (moves && r.status() == Result.Status.APPROVED) {
        moved.computeIfAbsent(payment.value(), p -> new CopyOnWriteArrayList<>()).add(step);
      }
      return r;
    });
  }

  /** A tardy card's charge as the sandbox is to decide it: with the test card of the outcome it stands for. */
  private static CardCharge decided(CardCharge c) {
    if (!tardy(c.cardNumber())) {
      return c;
    }
    return new CardCharge(c.payment(), c.amount(), TARDY.equals(c.cardNumber()) ? PAYS : DECLINES, c.expiryMonth(),
        c.expiryYear(), c.cardholderName(), c.securityCode(), c.capture(), c.terminal(), c.attempt(), c.browser());
  }
}
