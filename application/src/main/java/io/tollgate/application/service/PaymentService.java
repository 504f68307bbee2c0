package io.tollgate.application.service;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.in.CreatePaymentCommand;
import io.tollgate.application.port.in.CreatePaymentUseCase;
import io.tollgate.application.port.in.IdempotentActionUseCase;
import io.tollgate.application.port.in.ListPaymentsQuery;
import io.tollgate.application.port.in.PaymentQueries;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.DestinationPolicy;
import io.tollgate.application.port.out.IdempotencyRepository;
import io.tollgate.application.port.out.IdempotencyRepository.PriorUse;
import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.Violation;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** Creates payments and answers questions about them. */
public final class PaymentService implements CreatePaymentUseCase, PaymentQueries, IdempotentActionUseCase {

  public static final Duration IDEMPOTENCY_WINDOW = Duration.ofHours(24);

  /**
   * How long an action's key stays claimed by a request that has not answered: longer than any
   * action takes. A request cut short (the service stopped) leaves its claim unfinished; once
   * this has passed, a retry with the key takes it over.
   */
  static final Duration UNFINISHED_CLAIM = Duration.ofMinutes(2);

  /** How long an action waits for the request that holds its key before it answers 409. */
  static final Duration WAIT_FOR_RUNNING = Duration.ofSeconds(30);

  private final TransactionRunner tx;
  private final PaymentRepository payments;
  private final PaymentWriter writer;
  private final BalanceRepository balances;
  private final ShopRepository shops;
  private final IdempotencyRepository idempotency;
  private final CardVault cardVault;
  private final Clock clock;
  private final PaymentRequestRules rules;
  private final SecretBox secrets;
  private final DestinationPolicy destinations;
  private final CardProfiles cards;
  private final SecurityCodes securityCodes;
  private final ReferenceData reference;

  public PaymentService(TransactionRunner tx, PaymentRepository payments, PaymentWriter writer,
      BalanceRepository balances, ShopRepository shops, IdempotencyRepository idempotency,
      CardVault cardVault, SecretBox secrets, Currencies currencies, DestinationPolicy destinations,
      ReferenceData referenceData, Clock clock, SecurityCodes securityCodes) {
    this.securityCodes = securityCodes;
    this.reference = referenceData;
    this.cards = new CardProfiles(referenceData);
    this.destinations = destinations;
    this.writer = writer;
    this.balances = balances;
    this.secrets = secrets;
    this.tx = tx;
    this.payments = payments;
    this.shops = shops;
    this.idempotency = idempotency;
    this.cardVault = cardVault;
    this.clock = clock;
    this.rules = new PaymentRequestRules(currencies, clock);
  }

  /**
   * Whether every connector of the shop that could pay the withdrawal pays it in another currency
   * than it was asked in (one in that currency whose limits leave its amount out could not). Its balance is then checked where it is paid, when routing converts it
   * (ProcessingService), and not in the currency it was asked in: a shop whose deposits were all
   * converted into its terminal's currency has nothing in the currency its customers ask in, and
   * would have every withdrawal declined 1.10. Unchecked, it holds nothing until routed
   * ({@link Payment#holdsOnceRouted}): held in the currency it was asked in, it took that balance
   * below zero, and had every withdrawal checked there declined 1.10 while it waited.
   */
  private boolean paidConvertedOnly(Shop shop, PaymentRequestRules.Valid valid) {
    List<ReferenceData.Connector> payers = reference.connectorsOf(shop.id().value()).stream()
        .filter(c -> c.paymentMethod().equals(valid.method().name()) && c.takes(PaymentType.WITHDRAWAL)).toList();
    // one in the currency asked whose limits leave the amount out cannot pay it: routing passes it over (1.08)
    return !payers.isEmpty() && payers.stream().noneMatch(c -> c.terminalCurrency()
        .equals(valid.amount().currency().code()) && within(valid.amount().amount(), c.minAmount(), c.maxAmount()));
  }

  private static boolean within(java.math.BigDecimal amount, java.math.BigDecimal min, java.math.BigDecimal max) {
    return (min == null || amount.compareTo(min) >= 0) && (max == null || amount.compareTo(max) <= 0);
  }

  /**
   * Production refuses URLs that point into private networks (CONTRACT section 6): the refusal,
   * or null. It asks the DNS, so its answer may change between a request and its retry.
   */
  private DomainException.Invalid unsafeDestinations(CreatePaymentCommand c) {
    List<Violation> refused = PaymentRequestRules.unsafeDestinations(destinations, c.webhookUrl(), c.returnUrl());
    return refused.isEmpty() ? null : new DomainException.Invalid("Validation failed", refused);
  }

  /**
   * The request's checks, with every violation at once as CONTRACT section 0 asks: the
   * Idempotency-Key's beside the body's, and, once the request is refused anyway, the destinations
   * production refuses (a URL refused as malformed is not refused twice). A valid request's
   * destinations are checked after the key shows no earlier use ({@link #create}).
   */
  private PaymentRequestRules.Valid checked(CreatePaymentCommand command) {
    List<Violation> found = new ArrayList<>();
    try {
      checkIdempotencyKey(command.idempotencyKey());
    } catch (DomainException.Invalid e) {
      found.addAll(e.violations());
    }
    DomainException.Invalid body = null;
    try {
      PaymentRequestRules.Valid valid = rules.check(command);
      if (found.isEmpty()) {
        return valid;
      }
    } catch (DomainException.Invalid e) {
      body = e;
      found.addAll(e.violations());
    }
    Set<String> refused = found.stream().map(Violation::field).collect(Collectors.toSet());
    PaymentRequestRules.unsafeDestinations(destinations, command.webhookUrl(), command.returnUrl()).stream()
        .filter(v -> !refused.contains(v.field())).forEach(found::add);
    if (body != null) {
      throw new DomainException.Invalid(body.getMessage(), found);
    }
    throw found.size() == 1 ? new DomainException.Invalid(found.get(0))
        : new DomainException.Invalid("Validation failed", found);
  }

  @Override
  public CreatedPayment create(CreatePaymentCommand command) {
    PaymentRequestRules.Valid valid = checked(command);
    // Looked up before any transaction is open, and refused only once the key, if any, shows no
    // earlier use: a retry whose first try was taken gets that answer even while the DNS fails.
    DomainException.Invalid unsafe = unsafeDestinations(command);
    if (unsafe != null && command.idempotencyKey() == null) {
      throw unsafe;
    }
    // A withdrawal's approval and balance check and a refund's webhook URL follow the shop's
    // settings as they are now, not as this instance read them a few seconds ago.
    Shop shop = (valid.type() == PaymentType.DEPOSIT ? shops.find(command.shopId())
        : shops.findCurrent(command.shopId())).orElseThrow(() -> new DomainException.Unauthenticated("Invalid token"));

    Supplier<CreatedPayment> work = () -> {
      Instant now = clock.instant();
      // The body digest may stem from a card number: only a keyed digest of it is stored.
      String fingerprint = command.idempotencyKey() == null ? null : secrets.fingerprint(command.fingerprint());
      if (command.idempotencyKey() != null) {
        // in the creation's transaction: a claim is never committed unfinished here
        Optional<PriorUse> prior = idempotency.claim(shop.id(), command.idempotencyKey(),
            fingerprint, now, now.minus(IDEMPOTENCY_WINDOW));
        if (prior.isPresent()) {
          return replay(shop.id(), command.idempotencyKey(), prior.get(), fingerprint);
        }
        if (unsafe != null) {
          throw unsafe; // and the claim is rolled back with the transaction
        }
      }
      // A card number given in clear is sealed for the vault now and stored with the payment.
      CardVault.Sealed sealed = valid.type() != PaymentType.REFUND && valid.cardDigits() != null
          ? cardVault.seal(shop.id(), valid.cardDigits()) : null;
      Drafted drafted = draft(command, valid, shop, sealed);
      Payment.Draft draft = drafted.draft();
      if (valid.type() != PaymentType.DEPOSIT && valid.customer() != null && valid.customer().referenceId() != null) {
        if (sealed != null) {
          // The card before the customer, as a deposit's one statement takes them (it marks its
          // card used, under the card's lock when last used over a day ago, then writes its
          // customer): a withdrawal and a deposit of one card and customer at once each waited
          // for what the other held, and the database aborted one as a deadlock.
          cardVault.tokenize(shop.id(), valid.cardDigits());
        }
        // A withdrawal or refund writes a balance: its customer is locked first, as every
        // transaction takes them. A withdrawal checking the balance locked the balance first,
        // a refund its customer first, and one of two naming one customer at once was aborted
        // by the database as a deadlock.
        payments.lockCustomer(shop.id(), valid.customer(), now);
      }
      boolean checking = valid.type() == PaymentType.WITHDRAWAL && shop.checkWithdrawalBalance();
      boolean heldOnceRouted = checking && paidConvertedOnly(shop, valid);
      java.math.BigDecimal available = checking && !heldOnceRouted
          ? balances.lock(shop.id(), valid.amount().currency()).available() : null;
      boolean balanceShort = available != null && available.compareTo(valid.amount().amount()) < 0;
      PaymentState initial = switch (valid.type()) {
        case DEPOSIT -> PaymentState.CHECKOUT;
        case WITHDRAWAL -> shop.requiresApproval() && !balanceShort ? PaymentState.AWAITING_APPROVAL : PaymentState.PENDING;
        case REFUND -> PaymentState.PENDING;
      };
      Payment.Transition creation = Payment.create(draft, initial, now);
      if (drafted.asked() != null) {
        creation = new Payment.Transition(null, creation.after().withRouting(creation.after().amount(),
            drafted.asked(), null, null), creation.operation());
      }
      if (heldOnceRouted) {
        creation = new Payment.Transition(null, creation.after().holdingOnceRouted(), creation.operation());
      }
      Payment stored = writer.create(creation, sealed);
      if (balanceShort) {
        // The balance row stays locked until commit, so two withdrawals can never both pass.
        stored = writer.update(stored.apply(OperationType.WITHDRAWAL, PaymentState.DECLINED,
            Outcome.error(ErrorCode.E1_10_INSUFFICIENT_BALANCE).withDetails("Check Withdrawal Balance: "
                + available.toPlainString() + " " + valid.amount().currency() + " available"), now));
      }
      if (command.idempotencyKey() != null) {
        idempotency.complete(shop.id(), command.idempotencyKey(), stored.id());
      }
      if (valid.type() == PaymentType.DEPOSIT && valid.card() != null) {
        // for the charge a later request makes, in memory only: a security code is never stored
        securityCodes.hold(shop.id(), stored.id(), valid.card().cardSecurityCode());
      }
      return new CreatedPayment(stored, false);
    };
    // A deposit without an idempotency key is written by one statement, atomic by itself (the
    // reads before it need no lock): without a transaction around it, the database is spared
    // the round trip of a COMMIT.
    return command.idempotencyKey() == null && valid.type() == PaymentType.DEPOSIT ? work.get()
        : tx.inTransaction(work);
  }

  @Override
  public CreatedPayment once(ShopId shop, String idempotencyKey, String request, String paymentId,
      Supplier<Payment> action) {
    checkIdempotencyKey(idempotencyKey);
    String fingerprint = secrets.fingerprint("action:" + request);
    // Claimed, and committed, before the action runs: a host-to-host execution commits the
    // terminal it routed a deposit to before it asks that terminal (ProcessingService), which it
    // could not do inside a transaction held open around it. A request with the key still
    // running is waited for, so that every duplicate gets its answer, as a claim held in an open
    // transaction made it wait before.
    long waitUntil = System.nanoTime() + WAIT_FOR_RUNNING.toNanos();
    Instant claimed;
    boolean tookOver = false;
    Instant cutShortClaim = null;
    while (true) {
      Instant at = clock.instant().truncatedTo(ChronoUnit.MICROS);
      Optional<PriorUse> prior = tx.inTransaction(() -> idempotency.claim(shop, idempotencyKey, fingerprint, at,
          at.minus(IDEMPOTENCY_WINDOW)));
      if (prior.isEmpty()) {
        claimed = at;
        break;
      }
      PriorUse use = prior.get();
      if (use.paymentId() != null || !use.fingerprint().equals(fingerprint)) {
        return replay(shop, idempotencyKey, use, fingerprint);
      }
      if (use.claimed().isBefore(at.minus(UNFINISHED_CLAIM))) {
        // cut short: what it did before it stopped is its answer; if nothing, the action runs
        if (!idempotency.takeOver(shop, idempotencyKey, use.claimed(), at)) {
          continue;
        }
        if (idempotency.acted(shop, idempotencyKey)) {
          idempotency.completeUnanswered(shop, idempotencyKey, PaymentId.parse(paymentId));
          return replay(shop, idempotencyKey, new PriorUse(fingerprint, PaymentId.parse(paymentId), at), fingerprint);
        }
        claimed = at;
        tookOver = true;
        cutShortClaim = use.claimed();
        break;
      }
      if (System.nanoTime() - waitUntil > 0) {
        throw new DomainException.Conflict("idempotency_key_in_use",
            "A request with this Idempotency-Key is still being processed; retry it in a moment");
      }
      pause();
    }
    Payment done;
    try {
      // What the action stores is recorded as the key's change, in the transaction that stores
      // it: that the payment changed after the claim says nothing of who changed it, and a void
      // without a key, made while a capture with one was cut short, was replayed as the capture.
      done = writer.acting(idempotencyKey, PaymentId.parse(paymentId), action);
    } catch (RuntimeException e) {
      try {
        // A refusal (bad input, a state that does not allow the action) changed nothing a retry
        // would be answered otherwise (a PATCH past the checkout timeout commits the payment's
        // cancel, 1.04, and is refused with the 409 its retry gets as well); an
        // error may come after a commit of the action's own (a deposit committed as sent to its
        // terminal), and then a retry is answered with the payment as it stands at the retry (a
        // deposit the job has since completed, COMPLETED), not as this request left it: this
        // request answered nothing to repeat. A capture or void committed as asked is no change
        // yet: its retry asks the terminal again, or is answered the payment the job has since
        // captured or voided.
        boolean refused = e instanceof DomainException && !(e instanceof DomainException.Unavailable);
        if (!refused && idempotency.acted(shop, idempotencyKey)) {
          idempotency.completeUnanswered(shop, idempotencyKey, PaymentId.parse(paymentId));
        } else if (!tookOver) {
          idempotency.release(shop, idempotencyKey, claimed);
        } else {
          // A claim taken over from a request taken to be cut short stays, as it was: that
          // request may only have been slow and still record its answer, and the next retry
          // takes the claim over again at once, answered with what it did. Kept as this
          // request's, the retry a refusal or a 503 asks for ("make this request again") waited
          // 30 s and was told the key's request was still being processed, for two minutes.
          idempotency.takeOver(shop, idempotencyKey, claimed, cutShortClaim);
        }
      } catch (RuntimeException unrecorded) {
        e.addSuppressed(unrecorded);
      }
      throw e;
    }
    idempotency.complete(shop, idempotencyKey, done.id());
    return new CreatedPayment(done, false);
  }

  @Override
  public int forgetExpiredIdempotencyKeys(int batch) {
    return idempotency.forgetClaimedBefore(clock.instant().minus(IDEMPOTENCY_WINDOW), batch);
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DomainException.Conflict("idempotency_key_in_use",
          "A request with this Idempotency-Key is still being processed; retry it in a moment");
    }
  }

  private static void checkIdempotencyKey(String key) {
    if (key != null && (key.isEmpty() || Checks.longerThan(key, 255))) {
      throw new DomainException.Invalid(Violation.of("Idempotency-Key",
          "must be 1 to 255 characters", Checks.abbreviate(key)));
    }
  }

  /**
   * The first answer again, as the contract says: the payment as it stood then (a deposit
   * since completed is answered in CHECKOUT with its redirectUrl, which a client that lost the
   * first response needs). A key completed before answers were kept answers the payment now, and
   * so does one whose request failed, or was cut short, after it changed the payment: it answered
   * nothing, and the payment as it stands is what a retry needs.
   */
  private CreatedPayment replay(ShopId shop, String key, PriorUse prior, String fingerprint) {
    if (!prior.fingerprint().equals(fingerprint)) {
      throw new DomainException.Conflict("idempotency_key_reused",
          "Idempotency-Key was already used for a different request");
    }
    Payment earlier = payments.findAsAnswered(shop, key).or(() -> payments.find(prior.paymentId()))
        .orElseThrow(() -> new IllegalStateException("idempotency record without its payment"));
    return new CreatedPayment(earlier, true);
  }

  /**
   * A new payment as drafted, and for a refund asked in the currency its deposit was asked in
   * (before routing converted it), that amount as asked: the draft's amount is then the
   * deposit's currency.
   */
  private record Drafted(Payment.Draft draft, Money asked) {}

  private Drafted draft(CreatePaymentCommand c, PaymentRequestRules.Valid v, Shop shop, CardVault.Sealed sealed) {
    PaymentMethod method = v.method();
    CardDetails card = null;
    Money amount = v.amount();
    Money asked = null;
    String webhookUrl = c.webhookUrl();
    if (v.type() == PaymentType.REFUND) {
      Refundable refundable = refundableParent(shop.id(), v.parentPaymentId(), v.amount());
      method = refundable.parent().method();
      card = refundable.parent().card();
      amount = refundable.amount();
      asked = refundable.asked();
      // A merchant that gives each order its URL, and the shop none, would never hear of the
      // refund: it is told where the deposit was. The refund's own URL, and else the shop's,
      // still come first, as for any payment.
      webhookUrl = webhookUrl != null || shop.webhookUrl() != null ? webhookUrl : refundable.parent().webhookUrl();
    } else if (v.card() != null) {
      card = cardDetails(shop.id(), v, sealed);
    }
    return new Drafted(new Payment.Draft(PaymentId.random(), shop.id(), v.type(), method, amount,
        c.referenceId(), v.description(), v.parentPaymentId(), v.preAuth(), card, v.customer(),
        v.billingAddress(), c.returnUrl(), webhookUrl, v.additionalParameters()), asked);
  }

  private CardDetails cardDetails(ShopId shop, PaymentRequestRules.Valid v, CardVault.Sealed sealed) {
    String digits = v.cardDigits();
    String token;
    String name = v.card().cardholderName();
    String month = v.card().expiryMonth();
    String year = v.card().expiryYear();
    if (digits != null) {
      token = sealed.token();
    } else {
      token = v.card().cardToken();
      digits = cardVault.reveal(shop, token).orElseThrow(() -> new DomainException.Invalid(
          Violation.of("card.cardToken", "unknown card token", Pan.maskForDisplay(token))));
      if (month == null && year == null) {
        // A token alone is charged with the expiry its card was last taken with, as a stored
        // card is: an acquirer declines a charge without one.
        Optional<CardDetails> last = payments.lastCardWithExpiry(shop, token);
        if (last.isPresent()) {
          month = last.get().expiryMonth();
          year = last.get().expiryYear();
          name = name == null ? last.get().cardholderName() : name;
        }
      }
    }
    return cards.describe(digits, token, name, month, year);
  }

  /**
   * A refund's deposit, and what the refund takes back: {@code amount} in the deposit's currency,
   * and when the merchant asked in the currency the deposit was asked in before routing
   * converted it for its terminal, that amount as {@code asked} (else null).
   */
  private record Refundable(Payment parent, Money amount, Money asked) {}

  /**
   * Locks the parent deposit so that concurrent refunds of it are checked one after another
   * and can never add up to more than the deposit.
   *
   * <p>A refund is paid back through the deposit's terminal, in the currency that terminal
   * charged. One asked in the currency the deposit was asked in (its {@code customerCurrency},
   * when routing converted it) is converted back at the deposit's own rate, its
   * {@code amount} against its {@code customerAmount}, half-even to the currency's decimals, so
   * that refunding all of what was asked takes back exactly what was charged; when rounding alone
   * would take more than is left, it takes what is left. The rounding is of all the refunds asked
   * in that currency together: a refund takes what they asked for with it, converted and rounded
   * once, less what they took before it, so that parts worth less than the smallest amount of the
   * deposit's currency (1 JPY of 1000 JPY charged as 6.70 USD) add up to what they are worth,
   * where each rounded on its own up to a cent took all 6.70 USD back after 670 JPY. A part that
   * comes to nothing this way is refused, naming the least that would take something. What is
   * left to refund as asked is what was asked less what the refunds asked in that currency asked
   * for (and the others converted back at the same rate), not what is left as charged converted
   * back. A refund of all that is left as asked takes all that is left as charged.
   */
  private Refundable refundableParent(ShopId shop, PaymentId parentId, Money requested) {
    Payment parent = payments.findForUpdate(parentId)
        .filter(p -> p.shopId().equals(shop))
        .orElseThrow(() -> invalidParent("payment not found", parentId));
    if (parent.type() != PaymentType.DEPOSIT || parent.state() != PaymentState.COMPLETED) {
      throw invalidParent("only a COMPLETED deposit can be refunded (this one is "
          + parent.type() + " " + parent.state() + ")", parentId);
    }
    Money charged = parent.amount();
    Money asked = parent.customerAmount();
    boolean inAsked = asked != null && !asked.currency().equals(charged.currency())
        && asked.currency().equals(requested.currency());
    if (!charged.currency().equals(requested.currency()) && !inAsked) {
      throw new DomainException.Invalid(Violation.of("currency",
          "must be the currency of the refunded deposit (" + charged.currency()
              + (asked != null && !asked.currency().equals(charged.currency())
                  ? ", or " + asked.currency() + " in which it was asked" : "") + ")",
          requested.currency().code()));
    }
    PaymentRepository.Refunded refunded = payments.refunded(parentId, charged.currency(),
        asked != null && !asked.currency().equals(charged.currency()) ? asked.currency() : null);
    Money left = charged.minus(refunded.total());
    if (!inAsked) {
      if (requested.isGreaterThan(left)) {
        throw new DomainException.Invalid(Violation.of("amount",
            "exceeds what is left to refund of the deposit (" + left + ")", requested.amount().toPlainString()));
      }
      return new Refundable(parent, requested, null);
    }
    Money leftAsked = Money.zero(asked.currency());
    if (asked.amount().signum() > 0 && charged.amount().signum() > 0 && left.amount().signum() > 0) {
      BigDecimal restAsAsked = refunded.rest().amount().multiply(asked.amount())
          .divide(charged.amount(), java.math.MathContext.DECIMAL128);
      leftAsked = new Money(asked.amount().subtract(refunded.askedFor().amount()).subtract(restAsAsked)
          .setScale(asked.currency().scale(), RoundingMode.HALF_EVEN).max(BigDecimal.ZERO), asked.currency());
    }
    if (requested.isGreaterThan(leftAsked)) {
      throw new DomainException.Invalid(Violation.of("amount",
          "exceeds what is left to refund of the deposit (" + leftAsked + ", " + left + " as charged)",
          requested.amount().toPlainString()));
    }
    Money takenAsAsked = refunded.total().minus(refunded.rest());
    Money back = asCharged(refunded.askedFor().amount().add(requested.amount()), charged, asked)
        .minus(takenAsAsked);
    if (back.isGreaterThan(left) || requested.amount().compareTo(leftAsked.amount()) == 0) {
      back = left;
    }
    if (back.amount().signum() <= 0 && requested.amount().signum() > 0) {
      String least = left.amount().signum() <= 0 ? "" : "; refund at least "
          + leastTaking(refunded.askedFor(), takenAsAsked, charged, asked).min(leftAsked.amount()).toPlainString()
          + " " + asked.currency();
      throw new DomainException.Invalid(Violation.of("amount", "converts to nothing in the deposit's currency ("
          + charged.currency() + ")" + (refunded.askedFor().isZero() ? "" : " with the refunds asked in "
              + asked.currency() + " before it") + least, requested.amount().toPlainString()));
    }
    if (back.amount().compareTo(PaymentRequestRules.MIN_AMOUNT) < 0 && back.isGreaterThan(Money.zero(
        charged.currency())) && back.amount().compareTo(left.amount()) != 0) {
      // as a refund asked in the deposit's own currency is held to it (its remainder aside): a
      // refund of 0.50 EUR of a deposit charged in bitcoin went out as 0.00000575 BTC
      throw new DomainException.Invalid(Violation.of("amount", "converts to " + back + " in the deposit's currency, "
          + "less than the least amount a refund may take back (" + PaymentRequestRules.MIN_AMOUNT.toPlainString()
          + ")", requested.amount().toPlainString()));
    }
    return new Refundable(parent, back, requested);
  }

  /** What refunds asking {@code askedFor} of a converted deposit take back together: at its rate, rounded once. */
  private static Money asCharged(BigDecimal askedFor, Money charged, Money asked) {
    return new Money(askedFor.multiply(charged.amount())
        .divide(asked.amount(), charged.currency().scale(), RoundingMode.HALF_EVEN), charged.currency());
  }

  /**
   * The least refund as asked that takes something back after refunds that asked {@code askedFor}
   * and took {@code taken}: the first amount of the asked currency at which what they all asked
   * for, converted and rounded, comes to more than they took.
   */
  private static BigDecimal leastTaking(Money askedFor, Money taken, Money charged, Money asked) {
    BigDecimal halfUnit = BigDecimal.ONE.movePointLeft(charged.currency().scale()).divide(BigDecimal.valueOf(2));
    BigDecimal least = taken.amount().add(halfUnit).multiply(asked.amount())
        .divide(charged.amount(), asked.currency().scale(), RoundingMode.CEILING).subtract(askedFor.amount())
        .max(BigDecimal.ONE.movePointLeft(asked.currency().scale()));
    // exactly halfway, half-even may round down: one more of the smallest amount then
    return asCharged(askedFor.amount().add(least), charged, asked).isGreaterThan(taken) ? least
        : least.add(BigDecimal.ONE.movePointLeft(asked.currency().scale()));
  }

  private static DomainException.Invalid invalidParent(String message, PaymentId id) {
    return new DomainException.Invalid(Violation.of("parentPaymentId", message, id.value()));
  }

  @Override
  public Payment get(ShopId shop, String paymentId) {
    return ownPayment(shop, paymentId);
  }

  @Override
  public Page<Payment> list(ListPaymentsQuery q) {
    return payments.list(new PaymentRepository.PaymentFilter(q.shopId(), q.createdFrom(),
        q.createdBefore(), q.updatedFrom(), q.updatedBefore(), q.referenceId()), q.offset(), q.limit());
  }

  @Override
  public List<PaymentOperation> operations(ShopId shop, String paymentId) {
    return payments.operations(ownPayment(shop, paymentId).id());
  }

  private Payment ownPayment(ShopId shop, String paymentId) {
    PaymentId id = PaymentId.parse(paymentId);
    if (id == null) {
      throw new DomainException.NotFound("Payment not found");
    }
    return payments.find(id)
        .filter(p -> p.shopId().equals(shop))
        .orElseThrow(() -> new DomainException.NotFound("Payment not found"));
  }
}
