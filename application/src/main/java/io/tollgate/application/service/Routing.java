package io.tollgate.application.service;

import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ReferenceData.Connector;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Chooses the terminals a payment is sent to: the shop's ACTIVE connectors for the payment's
 * method whose terminal's API takes the payment's type, those in the payment's currency first
 * and those that convert it after them; within each, by priority (lower first), and connectors
 * of one priority in a random order weighted by their {@code weight}, the same for every plan
 * of one payment. A connector that cannot
 * take the payment (its limits, no rate, an amount that converts to nothing) is passed over. Converts the requested amount when a connector's
 * currency differs, and says whether a decline may cascade to the next connector. A shop with
 * no connectors at all is sent to the default terminal.
 */
final class Routing {

  /**
   * A payment as one connector would take it: the amount sent, in the connector's currency,
   * and the requested amount when that differs in currency; or why the connector cannot take
   * it. {@code connector} is null for the default terminal of a shop without connectors, and
   * {@code terminalId} null for that terminal only (and for a payout stored before terminals
   * were recorded by id, taken up again at a terminal whose connector is gone).
   */
  record Routed(Connector connector, Long terminalId, String terminalName, Money amount, Money customerAmount,
      ErrorCode refusal, String why) {

    /** The payment as sent through the connector. */
    Payment applyTo(Payment p) {
      return p.withRouting(amount, customerAmount, terminalId, terminalName);
    }

    /** How an operation that used it names the connector: empty for the default terminal. */
    String via() {
      return connector == null ? "" : " via terminal " + terminalName;
    }
  }

  private final ReferenceData reference;
  private final GroupRepository groups;
  private final Currencies currencies;
  private final String defaultTerminal;

  /** @param defaultTerminal the terminal of a shop that has no connectors at all */
  Routing(ReferenceData reference, GroupRepository groups, Currencies currencies, String defaultTerminal) {
    this.reference = reference;
    this.groups = groups;
    this.currencies = currencies;
    this.defaultTerminal = defaultTerminal;
  }

  /**
   * The shop's active connectors for this payment in the order to try them: those whose
   * currency is the requested one, then the others; empty when there are none. A connector
   * whose terminal's API does not take the payment's type (its {@code apiTypes}) is left out,
   * as an inactive one is.
   */
  List<Connector> candidates(Payment p) {
    String currency = requested(p).currency().code();
    List<Connector> matching = reference.connectorsOf(p.shopId().value()).stream()
        .filter(c -> c.paymentMethod().equals(p.method().name()) && c.takes(p.type())).toList();
    List<Connector> ordered = new ArrayList<>(byPriority(p, matching.stream()
        .filter(c -> c.terminalCurrency().equals(currency)).toList()));
    ordered.addAll(byPriority(p, matching.stream().filter(c -> !c.terminalCurrency().equals(currency)).toList()));
    return ordered;
  }

  private static List<Connector> byPriority(Payment p, List<Connector> connectors) {
    Map<Integer, List<Connector>> byPriority = connectors.stream()
        .collect(Collectors.groupingBy(Connector::priority, TreeMap::new, Collectors.toList()));
    List<Connector> ordered = new ArrayList<>();
    byPriority.values().forEach(same -> ordered.addAll(weightedOrder(p, same)));
    return ordered;
  }

  /**
   * The ways to send the payment, tried in turn with {@link Plan#next()}: the connectors that
   * can take it in routing order, or the default terminal when the shop has no connectors at
   * all. Reads only the cached connectors; a rate is looked up only for a connector reached
   * that converts.
   */
  Plan plan(Payment p) {
    List<Connector> candidates = candidates(p);
    if (candidates.isEmpty() && !reference.hasConnectors(p.shopId().value())) {
      return new Plan(p, List.of(), true);
    }
    return new Plan(p, candidates, false);
  }

  /**
   * The plan of a payment routed or cascaded in an earlier transaction and taken up again: first
   * the terminal it was routed or moved on to, as stored on the payment (with the amount already
   * converted for it, so that an acquirer that may have been asked already sees the same payout
   * again), then the shop's other connectors whose terminal it has not been sent to (among them
   * the stored terminal's connectors in other currencies, until it has answered). The stored terminal is
   * taken even when its connector is no longer active, then with no cascading after it. A
   * terminal may have connectors in several currencies: the one that cascades after it is its
   * connector in the currency of the stored amount, the one the payment was moved on to.
   * Terminals are told apart by id; a payment or operation stored before they were recorded by
   * id names its terminal only, and is matched by that name, unique per merchant since V27.
   *
   * @param sent the operations in which terminals already answered the payment
   */
  Plan resume(Payment p, List<PaymentOperation> sent) {
    List<Connector> candidates = candidates(p);
    Connector current = candidates.stream().filter(c -> isTerminal(c, p.terminalId(), p.terminalName())
        && c.terminalCurrency().equals(p.amount().currency().code())).findFirst().orElse(null);
    List<Connector> rest = candidates.stream()
        .filter(c -> current != null ? !c.equals(current) : !isTerminal(c, p.terminalId(), p.terminalName()))
        .filter(c -> sent.stream().noneMatch(o -> isTerminal(c, o.terminalId(), o.terminalName()))).toList();
    Plan plan = new Plan(p, rest, false);
    plan.resumed = new Routed(current, current != null ? Long.valueOf(current.terminalId()) : p.terminalId(),
        p.terminalName(), p.amount(), p.customerAmount(), null, null);
    return plan;
  }

  /**
   * Whether the connector goes to the terminal a payment or operation names: by its id, or by
   * its name when it was stored without one.
   */
  private static boolean isTerminal(Connector c, Long terminalId, String terminalName) {
    return terminalId != null ? c.terminalId() == terminalId : c.terminalName().equals(terminalName);
  }

  /**
   * Whether the shop's balance can hold a payout as a connector would take it: in another
   * currency, or for more of the one it holds, or as it holds it, or at all when it holds
   * nothing yet.
   */
  @FunctionalInterface
  interface Funds {
    /**
     * Why the payout's balance cannot hold {@code routed}, given that it holds {@code held} now
     * (null: nothing, as a payout that holds once routed before it is); null when it can.
     */
    String shortOf(Money held, Money routed);
  }

  /** The connectors of one payment, tried in order; remembers why each passed over could not take it. */
  final class Plan {
    private final Payment payment;
    private final List<Connector> candidates;
    private boolean defaultTerminalLeft;
    private Routed resumed;
    private int next;
    private final List<Routed> passedOver = new ArrayList<>();
    private Funds funds;

    private Plan(Payment payment, List<Connector> candidates, boolean toDefaultTerminal) {
      this.payment = payment;
      this.candidates = candidates;
      this.defaultTerminalLeft = toDefaultTerminal;
    }

    /**
     * Passes over, with 1.10, each connector whose currency's balance cannot hold the payment as
     * it would take it: for a payout that holds its amount (in {@code payment.amount()}), asked
     * of every connector, whether it would move the payout to its currency or pay it where it is
     * held (a hold that overdrew the balance: a refund took what it left, or the shop checked
     * nothing when it was created); for one that holds nothing until routed (its check at
     * creation passed over, as the shop paid out only converted then), whether the connector's
     * currency can hold all of it. The default terminal of a shop without connectors pays it as
     * it is held, and is asked so: the payout is declined 1.10 when its hold overdrew the
     * balance. The terminal a resumed payout was routed to holds it already.
     */
    Plan checking(Funds funds) {
      this.funds = funds;
      return this;
    }

    /** The next connector that can take the payment, after the ones passed over; empty when none is left. */
    Optional<Routed> next() {
      if (resumed != null) {
        Routed r = resumed;
        resumed = null;
        return Optional.of(r);
      }
      if (defaultTerminalLeft) {
        defaultTerminalLeft = false;
        Routed r = funded(new Routed(null, null, defaultTerminal, payment.amount(), payment.customerAmount(), null,
            null));
        if (r.refusal() == null) {
          return Optional.of(r);
        }
        passedOver.add(r);
        return Optional.empty();
      }
      while (next < candidates.size()) {
        Routed r = funded(route(payment, candidates.get(next++)));
        if (r.refusal() == null) {
          return Optional.of(r);
        }
        passedOver.add(r);
      }
      return Optional.empty();
    }

    /** The terminal as routed, or refused with 1.10 when the balance cannot pay the payout there. */
    private Routed funded(Routed r) {
      String shortfall = r.refusal() == null && funds != null
          ? funds.shortOf(payment.holdsNothingYet() ? null : payment.amount(), r.amount()) : null;
      return shortfall == null ? r : new Routed(r.connector(), r.terminalId(), r.terminalName(), null, null,
          ErrorCode.E1_10_INSUFFICIENT_BALANCE, shortfall + " for terminal " + r.terminalName());
    }

    /**
     * The next connector to cascade to after {@code declined} refused the payment with
     * {@code code}: empty when the code does not cascade or no later connector can take it.
     */
    Optional<Routed> cascade(Routed declined, ErrorCode code) {
      if (declined.connector() == null || next >= candidates.size() || !cascades(declined.connector(), code)) {
        return Optional.empty();
      }
      return next();
    }

    /** The connectors passed over so far and why, for an operation's details; empty when none was. */
    String passedOver() {
      return passedOver.isEmpty() ? ""
          : "; passed over: " + passedOver.stream().map(Routed::why).collect(Collectors.joining("; "));
    }

    /**
     * Why the payment is declined when {@link #next()} found nothing: 1.05 when the shop has no
     * active connector for the method whose terminal takes the payment's type, the default
     * terminal's refusal for a shop without connectors, otherwise the refusal of the best
     * connector, with every connector's reason.
     */
    Outcome refusal() {
      if (passedOver.isEmpty()) {
        return Outcome.error(ErrorCode.E1_05_TERMINAL_NOT_FOUND).withDetails("the shop has no active connector for "
            + payment.method() + " whose terminal takes " + payment.type() + " payments");
      }
      if (passedOver.get(0).connector() == null) {
        return Outcome.error(passedOver.get(0).refusal()).withDetails(passedOver.get(0).why());
      }
      return Outcome.error(passedOver.get(0).refusal()).withDetails("no connector can take the payment: "
          + passedOver.stream().map(Routed::why).collect(Collectors.joining("; ")));
    }
  }

  private static Money requested(Payment p) {
    return p.customerAmount() != null ? p.customerAmount() : p.amount();
  }

  /**
   * Connectors of one priority in an order drawn at random by weight, the same draw every time
   * for one payment: a payout whose worker died after asking a terminal, before it recorded the
   * answer, is asked of that terminal again, which de-duplicates it, and not of another one
   * that would pay it too.
   */
  private static List<Connector> weightedOrder(Payment p, List<Connector> same) {
    if (same.size() < 2) {
      return same;
    }
    // Efraimidis–Spirakis: sort by u^(1/w) descending, a weighted random permutation; u is the
    // payment's and the connector's, uniform over payments.
    long seed = p.id().value().hashCode() * 0x9E3779B97F4A7C15L;
    Map<Connector, Double> keys = new java.util.HashMap<>();
    for (Connector c : same) {
      double weight = Math.max(c.weight(), 0) + 1e-9;
      double u = (mix(seed ^ c.id()) >>> 11) * 0x1.0p-53;
      keys.put(c, Math.pow(u, 1.0 / weight));
    }
    return same.stream().sorted(Comparator.comparing(keys::get, Comparator.reverseOrder())).toList();
  }

  /**
   * A uniform 64-bit hash of {@code seed}: the first value SplitMix64 (Steele, Lea and Flood)
   * draws from it, written out here because {@code SplittableRandom} promises the same values for a seed
   * only within one run of the JVM, and a payout resumed after a crash must meet its connectors
   * in the order the crashed run did.
   */
  static long mix(long seed) {
    long z = seed + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * The payment as the connector would take it: in the connector's currency (the requested
   * amount converted at the current rate, rounded half-even to the currency's decimals) and
   * within its limits, which a card verification (a pre-authorization of 0) is not held to.
   * Refused with 1.09 when there is no rate, and with 1.08 when the amount is outside the limits,
   * or a positive amount converts to an amount no payment may have (0.00001 to 1,000,000,000),
   * nothing among them.
   */
  Routed route(Payment p, Connector c) {
    Money requested = requested(p);
    Money sent = requested;
    Money customer = null;
    if (!c.terminalCurrency().equals(requested.currency().code())) {
      Optional<Currency> target = currencies.find(c.terminalCurrency());
      Optional<ReferenceData.CurrencyRate> rate = reference.currencyRate(requested.currency().code(), c.terminalCurrency());
      if (target.isEmpty() || rate.isEmpty()) {
        return refused(c, ErrorCode.E1_09_INVALID_CURRENCY, "no " + requested.currency().code() + " to "
            + c.terminalCurrency() + " rate for terminal " + c.terminalName());
      }
      BigDecimal converted = requested.amount().multiply(rate.get().rate())
          .setScale(target.get().scale(), RoundingMode.HALF_EVEN);
      sent = new Money(converted, target.get());
      customer = requested;
      // An amount a payment may have, as the rules hold what a merchant asks for to it: the
      // reference's 0.00001 to 1,000,000,000 for the amount sent to the terminal too. Below it a
      // payment in that currency could be refunded by no refund; far above it (a rate may be up to
      // 10^20) the amount did not fit its column, and its write failed.
      if (requested.amount().signum() > 0 && (sent.amount().compareTo(PaymentRequestRules.MIN_AMOUNT) < 0
          || sent.amount().compareTo(PaymentRequestRules.MAX_AMOUNT) > 0)) {
        return refused(c, ErrorCode.E1_08_INVALID_AMOUNT, requested + " converts to " + sent + " for terminal "
            + c.terminalName() + (sent.amount().signum() <= 0 ? "" : ", outside the amounts a payment may have ("
            + PaymentRequestRules.MIN_AMOUNT.toPlainString() + " to " + PaymentRequestRules.MAX_AMOUNT.toPlainString()
            + ")"));
      }
    }
    if (!verifiesCard(p) && ((c.minAmount() != null && sent.amount().compareTo(c.minAmount()) < 0)
        || (c.maxAmount() != null && sent.amount().compareTo(c.maxAmount()) > 0))) {
      return refused(c, ErrorCode.E1_08_INVALID_AMOUNT, sent + " is outside the limits of terminal "
          + c.terminalName());
    }
    return new Routed(c, c.terminalId(), c.terminalName(), sent, customer, null, null);
  }

  /** A card verification: a pre-authorization of 0, which moves no money whatever a connector's limits. */
  private static boolean verifiesCard(Payment p) {
    return p.type() == PaymentType.DEPOSIT && p.preAuth() && requested(p).amount().signum() == 0;
  }

  private static Routed refused(Connector c, ErrorCode code, String why) {
    return new Routed(c, c.terminalId(), c.terminalName(), null, null, code, why);
  }

  /**
   * The connector's least amount at its currency's scale, as payments show amounts ({@code 1.00}
   * EUR, {@code 0.500} KWD): the smallest amount it takes, rounded up to the next payable one.
   */
  static BigDecimal amountAtLeast(Connector c, Currencies currencies) {
    if (c.minAmount() == null) {
      return null;
    }
    return currencies.find(c.terminalCurrency()).map(currency -> c.minAmount().setScale(currency.scale(),
        RoundingMode.CEILING)).orElse(c.minAmount());
  }

  /**
   * The exclusive upper bound of the amounts {@link #route} sends through the connector, in the
   * connector's currency; null when it sets no maximum. {@code maxAmount} is inclusive, and route
   * compares it with amounts held at the currency's scale, so "at most the maximum" admits exactly
   * the amounts below the currency's next amount after it: below 5000.01 for a maximum of 5000
   * EUR, below 5001 for 5000 JPY, below 10.01 for a maximum of 10.005 EUR. Published so, the
   * bound states the rule routing applies, and the stored maximum keeps its meaning. A currency
   * this deployment does not know (a crypto symbol since removed) can route nothing, since route
   * finds no rate into it; its maximum is then taken at its own scale.
   */
  static BigDecimal amountBelow(Connector c, Currencies currencies) {
    if (c.maxAmount() == null) {
      return null;
    }
    int scale = currencies.find(c.terminalCurrency()).map(Currency::scale)
        .orElse(Math.max(c.maxAmount().stripTrailingZeros().scale(), 0));
    return c.maxAmount().setScale(scale, RoundingMode.FLOOR).add(BigDecimal.ONE.movePointLeft(scale));
  }

  /** Whether a decline with this code moves on to the next connector. */
  private boolean cascades(Connector c, ErrorCode code) {
    if (code == null || c.cascadingWhitelistGroupId() == null) {
      return false;
    }
    if (c.cascadingBlacklistGroupId() != null && groups.contains(c.cascadingBlacklistGroupId(), code.code())) {
      return false;
    }
    return groups.contains(c.cascadingWhitelistGroupId(), code.code());
  }
}
