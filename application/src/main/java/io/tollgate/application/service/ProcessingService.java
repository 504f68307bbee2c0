package io.tollgate.application.service;

import io.tollgate.application.port.in.BackgroundWorkUseCase;
import io.tollgate.application.port.in.BalanceQueries;
import io.tollgate.application.port.in.CardInput;
import io.tollgate.application.port.in.CheckoutUseCase;
import io.tollgate.application.port.in.PaymentActionsUseCase;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.BalanceRepository.BalanceAccount;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.application.port.out.PaymentProcessor.BrowserInfo;
import io.tollgate.application.port.out.PaymentProcessor.CardCharge;
import io.tollgate.application.port.out.PaymentProcessor.Result;
import io.tollgate.application.port.out.PaymentProcessor.Terminal;
import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.domain.money.Currencies;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.PaymentRepository.Due;
import io.tollgate.application.port.out.PaymentRepository.DueWork;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentTransitions;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Takes payments from their initial state to a final one: host-to-host execution, the
 * checkout page and its 3-D Secure step, pre-auth capture and void, withdrawal approval, and
 * the background jobs. Every step locks the payment's row first, so concurrent requests for
 * one payment are processed one after another and only the first finds it in a state that
 * allows the step; a card deposit's charge is the exception, sent once the terminal it goes to
 * is committed and the lock released ({@link #send}). A step that screens a card deposit for a
 * shop whose anti-fraud profile counts a card's deposits then locks the card in the shop too,
 * so that concurrent deposits of one card cannot all pass one velocity count: each is counted,
 * as sent (PENDING) or finished, by the ones screened after it.
 */
public final class ProcessingService
    implements PaymentActionsUseCase, CheckoutUseCase, BackgroundWorkUseCase, BalanceQueries {

  private final TransactionRunner tx;
  private final PaymentRepository payments;
  private final PaymentWriter writer;
  private final BalanceRepository balances;
  private final ShopRepository shops;
  private final CardVault cardVault;
  private final PaymentProcessor processor;
  /** Set when the service stops: the jobs' batches take up no more payments. */
  private volatile boolean stopping;
  private final Clock clock;
  private final Duration bankTransferDelay;

  /**
   * How long a card deposit's terminal may take to answer before the job takes the deposit up
   * again: far beyond the bounded time the processor port asks of every call, so that the job
   * meets only deposits whose request was cut short.
   */
  static final Duration UNANSWERED_FOR = Duration.ofMinutes(2);

  private static final Pattern IP_COUNTRY_CODE = Pattern.compile("^[A-Za-z0-9]{2}$");

  private final ReferenceData reference;
  private final CardProfiles cards;
  private final FraudScreen fraud;
  private final Routing routing;
  private final SecurityCodes securityCodes;
  private final RecentShops recentShops;

  public ProcessingService(TransactionRunner tx, PaymentRepository payments, PaymentWriter writer,
      BalanceRepository balances, ShopRepository shops, CardVault cardVault, PaymentProcessor processor,
      ReferenceData reference, GroupRepository groups, SecretBox secrets, Currencies currencies, Clock clock,
      Duration bankTransferDelay, SecurityCodes securityCodes, RecentShops recentShops) {
    this.securityCodes = securityCodes;
    this.recentShops = recentShops;
    this.reference = reference;
    this.cards = new CardProfiles(reference);
    this.fraud = new FraudScreen(reference, groups, secrets, clock);
    this.routing = new Routing(reference, groups, currencies, processor.terminalName());
    this.tx = tx;
    this.payments = payments;
    this.writer = writer;
    this.balances = balances;
    this.shops = shops;
    this.cardVault = cardVault;
    this.processor = processor;
    this.clock = clock;
    this.bankTransferDelay = bankTransferDelay;
  }

  // ---- merchant actions -------------------------------------------------------------------

  @Override
  public Payment executeHostToHost(ShopId shop, String paymentId, HostToHostCommand command) {
    Checks checks = new Checks();
    String customerIp = checks.required("customerIp", command.customerIp())
        ? checks.clientAddress("customerIp", command.customerIp()) : null;
    // two characters, as the reference says, not only ISO letters: IP-geolocation services answer
    // codes of their own ("T1" for Tor, "XX", "A1", "O1"); it is kept and shown, never screened
    checks.matches("ipCountryCode", command.ipCountryCode(), IP_COUNTRY_CODE, "must be two letters or digits");
    checks.maxLength("customerUserAgent", command.customerUserAgent(), 512);
    checks.maxLength("browserLanguage", command.browserLanguage(), 32);
    checks.throwIfAny("Invalid host-to-host request");
    // passed on with this request's charges, for 3-D Secure; not stored
    BrowserInfo browser = new BrowserInfo(command.customerUserAgent(), command.browserLanguage(),
        command.browserJavaEnabled(), command.browserScreenColorDepth(), command.browserScreenWidth(),
        command.browserScreenHeight(), command.browserWindowWidth(), command.browserWindowHeight(),
        command.browserTimezoneOffset());
    // the card's lock rides on the row's when the screen will count the card's deposits
    boolean lockCard = fraud.countsCardDeposits(shop);
    Decided decided = tx.inTransaction(() -> {
      PaymentRepository.Locked locked = lockOwnWithCard(shop, paymentId, lockCard);
      Payment checkout = locked.payment();
      if (checkout.type() != PaymentType.DEPOSIT || checkout.state() != PaymentState.CHECKOUT) {
        throw PaymentTransitions.illegal();
      }
      // after the shop's checkout timeout it is cancelled 1.04, as the expiry job would have
      // cancelled it had it not been late, and not charged; refused below once that is committed
      Payment timedOut = cancelledIfTimedOut(checkout);
      if (timedOut != null) {
        return Decided.done(timedOut);
      }
      // kept on the payment (customer.ip), written with the step's own row update
      Payment p = checkout.withCustomerIp(customerIp, command.ipCountryCode() == null ? null
          : command.ipCountryCode().toUpperCase(java.util.Locale.ROOT));
      String details = "host-to-host from " + customerIp;
      if (p.method() == PaymentMethod.BANKTRANSFER) {
        return Decided.done(openBankTransfer(p, details));
      }
      if (p.card() == null || p.card().cardToken() == null) {
        throw new DomainException.Invalid(Violation.of("card",
            "this deposit has no card: give one at creation, or send the customer to the checkout page", null));
      }
      return decide(p, fromLock(locked, securityCodes.held(p.shopId(), p.id())), details, browser);
    });
    Payment done = sendKeepingCodeForChallenge(decided);
    if (done.state() == PaymentState.CANCELLED) {
      // the answer a PATCH gets once the expiry job has cancelled the deposit, whether the job
      // was on time or this request did its work for it: one answer for one situation
      throw PaymentTransitions.illegal();
    }
    return done;
  }

  @Override
  public Payment capture(ShopId shop, String paymentId, BigDecimal amount, String currency) {
    Asking asking = tx.inTransaction(() -> {
      Payment p = lockOwn(shop, paymentId);
      if (answeredSince(p, OperationType.CAPTURE, amount, currency)) {
        return new Asking(p, null);
      }
      PaymentTransitions.checkAllowed(p.type(), p.state(), OperationType.CAPTURE);
      Money authorized = p.amount();
      Money asked = p.customerAmount();
      boolean converted = asked != null && !asked.currency().equals(authorized.currency());
      boolean inAsked = converted && currency != null && currency.equals(asked.currency().code());
      if (currency != null && !inAsked && !currency.equals(authorized.currency().code())) {
        Violation wrongCurrency = Violation.of("currency", "must be the currency the payment was authorized in ("
            + authorized.currency() + (converted ? ", or " + asked.currency() + " in which it was asked" : "") + ")",
            currency);
        if (amount == null || amount.signum() > 0) {
          throw new DomainException.Invalid(wrongCurrency);
        }
        // every violation at once: an amount below zero is wrong in any currency
        throw new DomainException.Invalid("Invalid capture", List.of(wrongCurrency,
            Violation.of("amount", "must be a positive amount", amount.toPlainString())));
      }
      if (amount == null && authorized.amount().signum() == 0) {
        // a card verification (a pre-authorization of 0) holds nothing to take: it is voided; an
        // amount to capture is refused below, as more than the authorized 0
        throw new DomainException.Conflict("illegal_workflow_state", PaymentTransitions.ILLEGAL_WORKFLOW_STATE
            + ": a pre-authorization of 0 is a card verification and holds nothing to capture; void it instead");
      }
      Money captured = authorized;
      Money capturedAsked = null;
      if (amount != null) {
        Money requested = inAsked ? asked : authorized;
        if (amount.signum() <= 0 || !Money.fitsScale(amount, requested.currency())) {
          throw new DomainException.Invalid(Violation.of("amount", "must be a positive amount in "
              + requested.currency() + " with at most " + requested.currency().scale() + " decimals",
              amount.toPlainString()));
        }
        if (new Money(amount, requested.currency()).isGreaterThan(requested)) {
          throw new DomainException.Invalid(Violation.of("amount",
              "must not exceed the authorized " + requested, amount.toPlainString()));
        }
        // as for a payment's amount (the reference's least): captured below it, a deposit could
        // be refunded by no refund, each being held to it too
        if (amount.compareTo(PaymentRequestRules.MIN_AMOUNT) < 0) {
          throw new DomainException.Invalid(Violation.of("amount", "must be at least "
              + PaymentRequestRules.MIN_AMOUNT.toPlainString(), amount.toPlainString()));
        }
        if (inAsked) {
          // at the payment's own rate, what it was charged against what it was asked, so that
          // capturing all that was asked captures exactly what was authorized
          captured = new Money(amount.multiply(authorized.amount())
              .divide(asked.amount(), authorized.currency().scale(), RoundingMode.HALF_EVEN), authorized.currency());
          if (captured.amount().signum() <= 0) {
            throw new DomainException.Invalid(Violation.of("amount", "converts to nothing in the currency the "
                + "payment was authorized in (" + authorized.currency() + ")", amount.toPlainString()));
          }
          if (captured.amount().compareTo(PaymentRequestRules.MIN_AMOUNT) < 0) {
            throw new DomainException.Invalid(Violation.of("amount", "converts to " + captured + " in the currency "
                + "the payment was authorized in, less than the least amount, "
                + PaymentRequestRules.MIN_AMOUNT.toPlainString(), amount.toPlainString()));
          }
          capturedAsked = new Money(amount, asked.currency());
        } else {
          captured = new Money(amount, authorized.currency());
        }
      }
      // a capture of the whole amount is asked as such, no amount: another than one naming it
      return ask(p, amount == null ? new PaymentRepository.Asked(OperationType.CAPTURE, null, null)
          : new PaymentRepository.Asked(OperationType.CAPTURE, captured.amount(),
              capturedAsked == null ? null : capturedAsked.amount()));
    });
    return tell(asking);
  }

  @Override
  public Payment voidAuthorization(ShopId shop, String paymentId) {
    Asking asking = tx.inTransaction(() -> {
      Payment p = lockOwn(shop, paymentId);
      if (answeredSince(p, OperationType.VOID, null, null)) {
        return new Asking(p, null);
      }
      PaymentTransitions.checkAllowed(p.type(), p.state(), OperationType.VOID);
      return ask(p, new PaymentRepository.Asked(OperationType.VOID, null, null));
    });
    return tell(asking);
  }

  /**
   * A capture or void committed as asked of the payment's terminal, and the payment as it then
   * was; {@code asked} null: the payment as the step asked before left it, the answer.
   */
  private record Asking(Payment payment, PaymentRepository.Asked asked) {}

  /**
   * Whether the payment was captured or voided ({@code op}), for these amounts, by a step its
   * terminal first left unanswered: its request was answered the 409 that says so (or a 500),
   * which tells the merchant to make it again, and the job (or that request made again) has
   * since stored the terminal's answer. The request made again is answered the payment, as the
   * request would have been; one made again after a first answer is the 409 it always was.
   */
  private boolean answeredSince(Payment p, OperationType op, BigDecimal amount, String currency) {
    PaymentState done = op == OperationType.CAPTURE ? PaymentState.COMPLETED : PaymentState.CANCELLED;
    if (p.type() != PaymentType.DEPOSIT || p.state() != done) {
      return false;
    }
    Optional<PaymentRepository.Asked> was = payments.asked(p.id());
    if (was.isEmpty() || was.get().operation() != op) {
      return false;
    }
    if (op == OperationType.VOID) {
      return true;
    }
    Money asked = p.customerAmount();
    boolean inAsked = asked != null && currency != null && currency.equals(asked.currency().code())
        && !asked.currency().equals(p.amount().currency());
    if (currency != null && !inAsked && !currency.equals(p.amount().currency().code())) {
      return false;
    }
    // the whole amount (no amount named) was asked as such; a capture naming one is another
    if (amount == null || was.get().amount() == null) {
      return amount == null && was.get().amount() == null;
    }
    BigDecimal askedFor = inAsked ? was.get().customerAmount() : was.get().amount();
    return askedFor != null && askedFor.compareTo(amount) == 0;
  }

  /**
   * Commits, in the transaction that locked the AUTHORIZED payment, that {@code wanted} is asked
   * of its terminal, before the terminal is asked: a request cut short after the terminal
   * captured or voided (the service stopped, the database went away before the answer's commit)
   * leaves the step asked, and the job for unanswered captures and voids asks the terminal
   * again, which de-duplicates on the payment id, and stores its answer. The same step asked
   * again (the merchant's retry) once the terminal left it unanswered (a look recorded, or
   * {@link #UNANSWERED_FOR} gone by) asks the terminal again, and is refused with 409 while a
   * request still waits on the terminal; any other step is refused until it has an answer, so
   * that a void is never sent after a capture the terminal may have made, or the reverse. Not a
   * step of the payment: its operations are the contract's, a CAPTURE or VOID once the terminal
   * has done it.
   */
  private Asking ask(Payment p, PaymentRepository.Asked wanted) {
    Optional<PaymentRepository.Asked> waiting = payments.asked(p.id());
    Instant now = clock.instant();
    if (waiting.isEmpty()) {
      // with the key of the request asking, if it has one: the answer is its change whoever
      // stores it, so that its retry, should it be cut short, is answered with it
      PaymentRepository.Asked asked = wanted.by(writer.actingKey(p.id()));
      payments.ask(p.id(), asked, now);
      return new Asking(p, asked);
    }
    PaymentRepository.Asked before = waiting.get();
    // asked again once the terminal left it unanswered, or its request was cut short; while a
    // request still waits on the terminal, a second one would only race it to store the answer
    boolean leftUnanswered = before.looked() != null || before.since().isBefore(now.minus(UNANSWERED_FOR));
    if (!before.sameAs(wanted) || !leftUnanswered) {
      throw new DomainException.Conflict("illegal_workflow_state", PaymentTransitions.ILLEGAL_WORKFLOW_STATE
          + ": " + describe(p, before) + " waits for the terminal's answer");
    }
    return new Asking(p, before);
  }

  /** "capture of 10.00 EUR (9.20 GBP as asked)", or "void". */
  private static String describe(Payment p, PaymentRepository.Asked asked) {
    if (asked.operation() == OperationType.VOID) {
      return "void";
    }
    return "capture of " + toCapture(p, asked) + (asked.customerAmount() == null ? ""
        : " (" + new Money(asked.customerAmount(), p.customerAmount().currency()) + " as asked)");
  }

  /** What the capture takes: the amount it names, or the whole amount authorized (held while AUTHORIZED). */
  private static Money toCapture(Payment p, PaymentRepository.Asked asked) {
    return asked.amount() == null ? p.amount() : new Money(asked.amount(), p.amount().currency());
  }

  /**
   * Asks the terminal for the step committed as asked, without the payment's lock, and stores
   * its answer if the step is still asked: a refusal ends it, the payment AUTHORIZED as before,
   * to capture or void again, and answered as the 409 it was; a terminal that has not answered
   * leaves it asked, a 409 that says so, as a call that fails does (the failure is the answer).
   * When another request, or the job, stored the answer first: the payment, when what it stored
   * is this step done (the capture of this amount, or the void); else the 409 any capture or
   * void of a payment no longer AUTHORIZED is.
   */
  private Payment tell(Asking asking) {
    Payment p = asking.payment();
    PaymentRepository.Asked asked = asking.asked();
    if (asked == null) {
      return p;
    }
    Result answer;
    try {
      answer = call(p, asked);
    } catch (RuntimeException e) {
      // the step stays asked, left unanswered: the merchant's retry asks again, as the job will
      try {
        payments.checked(p.id(), clock.instant());
      } catch (RuntimeException unrecorded) {
        e.addSuppressed(unrecorded);
      }
      throw e;
    }
    // waits for the lock: a capture or void refused meanwhile holds it for a moment, the job for
    // as long as its own call to the terminal takes
    Optional<Payment> stored = tx.inTransaction(() -> {
      Payment locked = payments.findForUpdate(p.id()).orElseThrow(ProcessingService::notFound);
      boolean stillAsked = locked.state() == PaymentState.AUTHORIZED
          && payments.asked(p.id()).filter(asked::sameAs).isPresent();
      // a step asked again once its terminal left it unanswered: the merchant was told to
      return stillAsked ? Optional.of(answered(locked, asked, answer, asked.looked() != null)) : Optional.empty();
    });
    if (stored.isEmpty()) {
      // the job stored the answer to this step first (the terminal took longer than the job
      // waits), or another request moved the payment: only this step done is this one's answer,
      // never a capture of another amount made after this step was refused to another request
      Payment now = payments.find(p.id()).orElseThrow(ProcessingService::notFound);
      PaymentState done = asked.operation() == OperationType.CAPTURE ? PaymentState.COMPLETED : PaymentState.CANCELLED;
      List<PaymentOperation> steps = payments.operations(p.id());
      boolean refused = answer.status() != Result.Status.APPROVED && answer.status() != Result.Status.PENDING;
      boolean thisStep = now.state() == done && !steps.isEmpty() && steps.get(0).operation() == asked.operation()
          && (asked.operation() == OperationType.VOID
              || now.amount().amount().compareTo(toCapture(p, asked).amount()) == 0);
      if (!refused && thisStep) {
        return now;
      }
      throw refused ? unanswered(p, asked, answer) : PaymentTransitions.illegal();
    }
    if (stored.get().state() != PaymentState.AUTHORIZED) {
      return stored.get();
    }
    throw unanswered(p, asked, answer);
  }

  private Result call(Payment p, PaymentRepository.Asked asked) {
    if (asked.operation() == OperationType.CAPTURE) {
      return processor.capture(p.id(), sentTo(p), p.externalId(), toCapture(p, asked));
    }
    return processor.voidAuthorization(p.id(), sentTo(p), p.externalId());
  }

  /** The 409 of a capture or void the terminal refused ({@code r} not PENDING) or has not answered. */
  private static DomainException.Conflict unanswered(Payment p, PaymentRepository.Asked asked, Result r) {
    boolean capture = asked.operation() == OperationType.CAPTURE;
    if (r.status() != Result.Status.PENDING) {
      return new DomainException.Conflict(capture ? "capture_refused" : "void_refused",
          "The processor refused the " + (capture ? "capture" : "void") + ": " + describe(r));
    }
    return new DomainException.Conflict(capture ? "capture_unanswered" : "void_unanswered",
        "The terminal has not answered the " + describe(p, asked) + " yet. It is asked again until it answers, and "
            + (capture ? "the payment is COMPLETED" : "the payment is CANCELLED") + ", with its webhook, once it "
            + (capture ? "captures" : "voids") + " (it stays AUTHORIZED if the terminal refuses); make this request "
            + "again to ask it now, or to learn its answer");
  }

  /**
   * Stores the terminal's answer to the step asked of the locked payment: APPROVED, the capture
   * or void; refused, the end of the step, the payment AUTHORIZED as it was; PENDING, nothing
   * but the look, and the step stays asked.
   *
   * @param told whether the merchant was answered that the terminal had not answered the step
   *     (or was not answered at all): the step is then kept with the payment it completed or
   *     cancelled, so that the request made again, as it was told to, is answered the payment
   *     ({@link #answeredSince})
   */
  private Payment answered(Payment p, PaymentRepository.Asked asked, Result r, boolean told) {
    if (r.status() == Result.Status.PENDING) {
      payments.checked(p.id(), clock.instant());
      return p;
    }
    if (r.status() != Result.Status.APPROVED) {
      payments.ask(p.id(), null, null);
      return p;
    }
    if (!told) {
      payments.ask(p.id(), null, null);
    }
    if (asked.operation() == OperationType.VOID) {
      return writer.answer(p.apply(OperationType.VOID, PaymentState.CANCELLED, external(r), clock.instant()),
          asked.key());
    }
    Money captured = toCapture(p, asked);
    Payment.Transition done = p.apply(OperationType.CAPTURE, PaymentState.COMPLETED,
        external(r).withAmount(captured).withDetails(describe(p, asked).replaceFirst("^capture of", "captured")),
        clock.instant());
    if (asked.customerAmount() != null) {
      // what was asked is what the merchant captured, not that scaled back from the other currency
      Money capturedAsked = new Money(asked.customerAmount(), p.customerAmount().currency());
      done = new Payment.Transition(done.before(), done.after().withRouting(done.after().amount(), capturedAsked,
          done.after().terminalId(), done.after().terminalName()), done.operation());
    }
    return writer.answer(done, asked.key());
  }

  @Override
  public Payment approve(ShopId shop, String paymentId) {
    return tx.inTransaction(() -> {
      Payment p = lockOwn(shop, paymentId);
      return writer.update(p.apply(OperationType.APPROVE, PaymentState.PENDING, Outcome.NONE, clock.instant()));
    });
  }

  @Override
  public Payment reject(ShopId shop, String paymentId, String reason) {
    if (reason != null && Checks.longerThan(reason, 256)) {
      throw new DomainException.Invalid(Violation.of("rejectReason", "must be at most 256 characters", null));
    }
    // kept, answered and sent in the webhook as written, but for a card number in it, masked as
    // a description's is: the merchant's staff may quote the card they refused
    String kept = reason == null ? null : Pan.maskLuhnValid(reason);
    return tx.inTransaction(() -> {
      Payment p = lockOwn(shop, paymentId);
      Outcome rejected = Outcome.error(ErrorCode.E8_00_REJECTED_BY_MERCHANT).withExternal(null, kept)
          .withDetails(kept == null ? "rejected by the merchant" : "rejected by the merchant: " + kept);
      return writer.update(p.apply(OperationType.REJECT, PaymentState.CANCELLED, rejected, clock.instant()));
    });
  }

  // ---- checkout page ----------------------------------------------------------------------

  @Override
  public CheckoutView view(String paymentId) {
    Payment p = findAny(paymentId);
    if (p.type() != PaymentType.DEPOSIT) {
      throw notFound();
    }
    Shop shop = shops.find(p.shopId()).orElseThrow(ProcessingService::notFound);
    // The payment and its steps are two reads: a card being charged at this moment may have its
    // terminal's answer stored in between, and the payment as it was (PENDING) with that answer
    // as its last step looked like a deposit waiting for its challenge. Read again until the last
    // step left the payment in the state it was read in.
    List<PaymentOperation> steps = payments.operations(p.id());
    for (int i = 0; i < 5 && !steps.isEmpty() && steps.get(0).paymentState() != p.state(); i++) {
      p = findAny(paymentId);
      steps = payments.operations(p.id());
    }
    boolean unanswered = unansweredAfter(p, steps) != null;
    boolean challenged = p.state() == PaymentState.PENDING && p.method() == PaymentMethod.BASIC_CARD && !unanswered
        && !steps.isEmpty() && steps.get(0).paymentState() == PaymentState.PENDING;
    if ((p.state() == PaymentState.CHECKOUT || challenged) && pastDeadline(p, checkoutTimeout(p.shopId()))) {
      // cancelled now, as the expiry job would, since any answer would be refused so: not a
      // form the customer fills in only to be told that then
      Payment now = tx.inTransaction(() -> {
        Payment locked = lockCheckout(paymentId);
        boolean open = locked.state() == PaymentState.CHECKOUT || (locked.state() == PaymentState.PENDING
            && locked.method() == PaymentMethod.BASIC_CARD && !unanswered(locked));
        Payment timedOut = open ? cancelledIfTimedOut(locked) : null;
        return timedOut != null ? timedOut : locked;
      });
      if (now.state() == PaymentState.CANCELLED) {
        securityCodes.forget(now.shopId(), now.id());
      }
      p = now;
      steps = payments.operations(p.id());
      unanswered = unansweredAfter(p, steps) != null;
      challenged = p.state() == PaymentState.PENDING && p.method() == PaymentMethod.BASIC_CARD && !unanswered;
    }
    boolean waitsOnCustomer = p.state() == PaymentState.CHECKOUT || challenged;
    return new CheckoutView(p, shop, unanswered, challenged ? challengedAttempt(p) : 0,
        waitsOnCustomer ? deadline(p, checkoutTimeout(p.shopId())) : null, movedBy(p, steps));
  }

  /** The steps that follow a customer's act in its own request (or the job that asks a terminal again). */
  private static final Set<OperationType> FOLLOWING =
      EnumSet.of(OperationType.DETECT_FRAUD, OperationType.DEPOSIT, OperationType.CASCADING);

  /**
   * The form whose act the payment's newest step (of {@code newestFirst}) is, or follows: a card
   * (its CHECKOUT, then the screen and the terminals), a challenge answered (its CONFIRMATION, then
   * the terminals), a transfer opened (the screen and the bank's details, straight from the
   * checkout), a cancel of the customer's (2.00). Not the bank's answer to a transfer, which
   * follows its opening, nor a cancel for the timeout, which the expiry job makes as well.
   */
  private static CheckoutUseCase.Form movedBy(Payment p, List<PaymentOperation> newestFirst) {
    if (newestFirst.isEmpty()) {
      return null;
    }
    PaymentOperation newest = newestFirst.get(0);
    if (newest.operation() == OperationType.CANCEL) {
      return newest.errorCode() == ErrorCode.E2_00_CANCELLED_BY_CUSTOMER ? CheckoutUseCase.Form.CANCEL : null;
    }
    if (p.method() == PaymentMethod.BANKTRANSFER) {
      // the opening's step, after the steps of the terminals that would not open it and cascaded
      // (each a refusal, then a CASCADING): the bank's answer follows an opening that succeeded
      if (!FOLLOWING.contains(newest.operation())) {
        return null;
      }
      for (PaymentOperation step : newestFirst.subList(1, newestFirst.size())) {
        if (step.paymentState() == PaymentState.CHECKOUT) {
          return CheckoutUseCase.Form.BANK_TRANSFER;
        }
        if (step.operation() != OperationType.CASCADING
            && (step.operation() != OperationType.DEPOSIT || step.errorCode() == null)) {
          return null;
        }
      }
      return null;
    }
    for (PaymentOperation step : newestFirst) {
      if (step.operation() == OperationType.CHECKOUT) {
        return CheckoutUseCase.Form.CARD;
      }
      if (step.operation() == OperationType.CONFIRMATION) {
        return CheckoutUseCase.Form.CHALLENGE;
      }
      if (!FOLLOWING.contains(step.operation())) {
        return null;
      }
    }
    return null;
  }

  @Override
  public Payment submitCard(String paymentId, CardInput card) {
    String digits = validCheckoutCard(card);
    String code = blankToNull(card.cardSecurityCode());
    return sendKeepingCodeForChallenge(tx.inTransaction(() -> {
      Payment p = lockCheckout(paymentId);
      // a deposit whose card came with the request is charged on that card (processCardOnFile),
      // whose page shows no card form: one typed in by hand does not replace the merchant's
      if (p.state() != PaymentState.CHECKOUT || p.method() != PaymentMethod.BASIC_CARD
          || (p.card() != null && p.card().cardToken() != null)) {
        throw PaymentTransitions.illegal();
      }
      Payment timedOut = cancelledIfTimedOut(p);
      if (timedOut != null) {
        return Decided.done(timedOut);
      }
      String token = cardVault.tokenize(p.shopId(), digits);
      lockCardIfCounted(p.shopId(), token);
      CardDetails details = cards.describe(digits, token, blankToNull(card.cardholderName()), card.expiryMonth(),
          card.expiryYear());
      Payment pending = writer.update(p.apply(OperationType.CHECKOUT, PaymentState.PENDING,
          Outcome.NONE.withCard(details).withDetails("card entered on the checkout page"), clock.instant()));
      return decide(pending, typed(digits, code), "checkout page", null);
    }));
  }

  @Override
  public Payment processCardOnFile(String paymentId) {
    return sendKeepingCodeForChallenge(tx.inTransaction(() -> {
      PaymentRepository.Locked locked = lockCheckoutWithCard(paymentId);
      Payment p = locked.payment();
      if (p.state() != PaymentState.CHECKOUT || p.card() == null || p.card().cardToken() == null) {
        throw PaymentTransitions.illegal();
      }
      Payment timedOut = cancelledIfTimedOut(p);
      if (timedOut != null) {
        return Decided.done(timedOut);
      }
      lockCardIfCounted(p.shopId(), p.card().cardToken());
      Payment pending = writer.update(p.apply(OperationType.CHECKOUT, PaymentState.PENDING,
          Outcome.NONE.withDetails("card given with the request"), clock.instant()));
      return decide(pending, fromLock(locked, securityCodes.held(p.shopId(), p.id())), "checkout page", null);
    }));
  }

  @Override
  public Payment startBankTransfer(String paymentId) {
    return tx.inTransaction(() -> {
      Payment p = lockCheckout(paymentId);
      if (p.state() != PaymentState.CHECKOUT || p.method() != PaymentMethod.BANKTRANSFER) {
        throw PaymentTransitions.illegal();
      }
      Payment timedOut = cancelledIfTimedOut(p);
      if (timedOut != null) {
        return timedOut;
      }
      return openBankTransfer(p, "bank transfer chosen on the checkout page");
    });
  }

  /**
   * The customer's answer to the challenge is committed (CONFIRMATION, still PENDING) before the
   * terminal is told, as a charge is committed to its terminal before it is sent: the terminal
   * may complete the charge on that answer (on a failed one too, if the issuer approves all the
   * same), and a request cut short in between leaves the deposit to the job for unanswered
   * deposits, which tells the terminal again, rather than waiting on a challenge the customer
   * may abandon and the checkout timeout cancel, card charged.
   */
  @Override
  public Payment completeChallenge(String paymentId, boolean passed, Integer attempt) {
    Challenge challenge = tx.inTransaction(() -> {
      PaymentRepository.Locked locked = lockCheckoutWithCard(paymentId);
      Payment p = locked.payment();
      if (p.state() != PaymentState.PENDING || p.method() != PaymentMethod.BASIC_CARD || unanswered(p)) {
        throw PaymentTransitions.illegal();
      }
      if (attempt != null && attempt != challengedAttempt(p)) {
        throw new DomainException.Conflict("challenge_replaced",
            "That challenge was replaced by the next terminal's; answer the one shown now");
      }
      Payment timedOut = cancelledIfTimedOut(p);
      if (timedOut != null) {
        return new Challenge(timedOut, 0, null);
      }
      Payment answered = writer.update(p.apply(OperationType.CONFIRMATION, PaymentState.PENDING,
          Outcome.NONE.withDetails(passed ? CHALLENGE_PASSED : CHALLENGE_FAILED), clock.instant()));
      return new Challenge(answered, challengedAttempt(p), fromLock(locked, securityCodes.held(p.shopId(), p.id())));
    });
    if (challenge.payment().state() == PaymentState.CANCELLED) {
      securityCodes.forget(challenge.payment().shopId(), challenge.payment().id());
      return challenge.payment();
    }
    try {
      return sendKeepingCodeForChallenge(confirm(challenge.payment(), challenge.attempt(), challenge.pan(), passed));
    } catch (DomainException.Conflict e) {
      if (!"concurrent_modification".equals(e.code())) {
        throw e;
      }
      return payments.find(challenge.payment().id()).orElseThrow();
    }
  }

  /**
   * The details of the CONFIRMATION step that stores the customer's answer: the job for
   * unanswered deposits reads the answer back from them to tell the terminal again.
   */
  private static final String CHALLENGE_PASSED = "3-D Secure challenge passed";
  private static final String CHALLENGE_FAILED = "3-D Secure challenge failed";

  /** A challenge answered and committed, and what telling its terminal takes. */
  private record Challenge(Payment payment, int attempt, CardNumber pan) {}

  /** The attempt that asked for the challenge: 1, after as many cascades as came before it. */
  private int challengedAttempt(Payment p) {
    return 1 + (int) payments.operations(p.id()).stream()
        .filter(o -> o.operation() == OperationType.CASCADING).count();
  }

  /**
   * Tells the terminal the customer's answer to the challenge, and stores its answer: the
   * deposit done, or, when a passed challenge's decline cascades, committed as routed to the
   * next terminal, which whoever called this asks after that commit (never inside the job's
   * transaction, which a failure after the next terminal charged would roll back).
   *
   * <p>Only a passed challenge cascades: a challenge the customer failed is the issuer's
   * refusal to let this card pay, which another terminal that asks for no challenge must not
   * get round.
   */
  private Decided confirm(Payment answered, int attempt, CardNumber pan, boolean passed) {
    Result r = processor.completeChallenge(charge(answered, attempt, pan, null), passed);
    if (r.status() == Result.Status.PENDING) {
      // its CONFIRMATION stays the last step: the job tells the terminal the answer again
      return Decided.done(notDecidedYet(answered));
    }
    if (r.status() != Result.Status.APPROVED) {
      String details = "3-D Secure challenge " + (passed ? "refused by the issuer" : "failed");
      if (passed) {
        // A decline after a passed challenge cascades as any other: the next terminal is
        // asked, and may ask for a challenge of its own, which the checkout page then shows.
        Routing.Plan plan = routing.resume(answered, payments.operations(answered.id()).stream()
            .filter(o -> o.operation() == OperationType.DEPOSIT).toList());
        Routing.Routed routed = plan.next().orElseThrow();
        Optional<Routing.Routed> next = plan.cascade(routed, declined(r).errorCode());
        if (next.isPresent()) {
          Payment moved = moveOn(answered, OperationType.CONFIRMATION, r, details, routed, next.get());
          return Decided.send(new Sending(moved, plan, next.get(), attempt + 1, pan, "after a 3-D Secure challenge",
              null));
        }
      }
      return Decided.done(writer.update(answered.apply(OperationType.CONFIRMATION, PaymentState.DECLINED,
          declined(r).withDetails(details), clock.instant())));
    }
    return Decided.done(writer.update(answered.apply(OperationType.DEPOSIT,
        answered.preAuth() ? PaymentState.AUTHORIZED : PaymentState.COMPLETED, external(r), clock.instant())));
  }

  @Override
  public Payment cancelByCustomer(String paymentId) {
    Payment cancelled = tx.inTransaction(() -> {
      Payment p = lockCheckout(paymentId);
      if (p.state() == PaymentState.PENDING && p.method() == PaymentMethod.BANKTRANSFER) {
        // The customer has the bank details and may have paid: the bank's answer settles it.
        throw new DomainException.Conflict("transfer_awaited",
            "The bank transfer is awaited; the payment can no longer be cancelled here");
      }
      if (unanswered(p)) {
        // The card was sent to the acquirer, which may have charged it: its answer settles it.
        throw new DomainException.Conflict("payment_in_progress",
            "The card payment is being processed; it can no longer be cancelled here");
      }
      // after the shop's checkout timeout (from the checkout's start, or the challenge's) the time
      // ran out before the customer pressed Cancel: cancelled 1.04, as the expiry job would have
      Payment timedOut = p.state() == PaymentState.CHECKOUT || p.state() == PaymentState.PENDING
          ? cancelledIfTimedOut(p) : null;
      if (timedOut != null) {
        return timedOut;
      }
      return writer.update(p.apply(OperationType.CANCEL, PaymentState.CANCELLED,
          Outcome.error(ErrorCode.E2_00_CANCELLED_BY_CUSTOMER), clock.instant()));
    });
    securityCodes.forget(cancelled.shopId(), cancelled.id());
    return cancelled;
  }

  // ---- background jobs --------------------------------------------------------------------

  @Override
  public void stopTakingUp() {
    stopping = true;
  }

  @Override
  public Batch processPayouts(int batch) {
    return eachDueInSteps(DueWork.PAYOUTS, clock.instant(), batch, p -> {
      if (p.type() == PaymentType.WITHDRAWAL) {
        return payOut(p);
      }
      // Locked before the refund's final step takes a balance slot: completing the refund adds
      // its amount to the deposit's row (V26's trigger), and a new refund of the deposit locks
      // that row first and a slot after it. Taking the slot first would deadlock with it.
      Payment parent = payments.findForUpdate(p.parentPaymentId()).orElseThrow();
      if (p.terminalName() == null) {
        // not sent yet: back through the deposit's terminal when it takes refunds, which is
        // committed before it is asked, as a payout's terminal is
        Payment refund = p.withRouting(p.amount(), p.customerAmount(), parent.terminalId(), parent.terminalName());
        Optional<ReferenceData.Terminal> refuses = terminalOf(parent)
            .filter(t -> !t.supports(PaymentType.REFUND.name()));
        if (refuses.isPresent()) {
          writer.update(refund.apply(OperationType.REFUND, PaymentState.DECLINED,
              Outcome.error(ErrorCode.E1_05_TERMINAL_NOT_FOUND).withDetails("terminal " + refuses.get().name()
                  + " of the deposit does not take REFUND payments (its API types: "
                  + String.join(", ", refuses.get().apiTypes()) + ")"), clock.instant()));
          return Stepped.MOVED;
        }
        if (refund.terminalName() != null) {
          return Stepped.routedThen(writer.route(null, new Payment.Transition(p, refund, null)));
        }
        p = refund; // a deposit stored with no terminal: sent as it always was
      }
      // Sent there, or about to be: asked there until it answers, whatever the terminal's API
      // types say now. The acquirer may have paid it back already (its answer PENDING, or lost
      // with a worker cut short), and declined unasked it would give the amount back to the
      // balance and leave the deposit to be refunded again.
      return recordFinal(p, OperationType.REFUND,
          processor.refund(p.id(), parent.id(), sentTo(p), parent.externalId(), p.amount()), null)
          ? Stepped.MOVED : Stepped.STAYED;
    });
  }

  /**
   * The terminal a payment was routed or sent to, as the processor is told it: by its id, or,
   * for a payment stored before terminals were recorded by id (V28), with the id of the
   * merchant's terminal of its name (unique per merchant since V27), so that an implementation
   * fronting several acquirers never has to go by a name alone. The id stays null for the
   * processor's default terminal, and for a name no terminal of the merchant has any more.
   */
  private Terminal sentTo(Payment p) {
    if (p.terminalId() != null) {
      return Terminal.of(p);
    }
    return terminalOf(p).map(t -> new Terminal(t.id(), p.terminalName())).orElseGet(() -> Terminal.of(p));
  }

  /**
   * The terminal a deposit was made on, read afresh: by its id, or, for a deposit stored before
   * terminals were recorded by id (V28), by its name among the merchant's terminals, unique per
   * merchant since V27. None for the processor's default terminal of a shop without connectors,
   * which takes every type of payment.
   */
  private Optional<ReferenceData.Terminal> terminalOf(Payment deposit) {
    if (deposit.terminalId() != null) {
      return reference.terminal(deposit.terminalId());
    }
    if (deposit.terminalName() == null || deposit.terminalName().equals(processor.terminalName())) {
      return Optional.empty();
    }
    return shops.find(deposit.shopId()).flatMap(s -> reference.terminal(s.merchantId(), deposit.terminalName()));
  }

  /**
   * A step of a withdrawal, in the worker's transaction for it: first anti-fraud and routing,
   * whose terminal is committed before it is asked; then one terminal's attempt. A decline
   * whose code cascades is stored with the CASCADING step, which names the next terminal, and
   * committed before that terminal is asked, in a transaction of its own. A worker that stops
   * in between takes the payout up again at that same terminal: never again at one that already
   * declined it, and never at another that would pay it a second time. Within one attempt the
   * processor call and its record share the transaction, as for every payout, so an attempt cut
   * short is made again at the same terminal, which de-duplicates on the payment id.
   */
  private Stepped payOut(Payment due) {
    CardNumber pan = fromVault(due);
    // a PENDING withdrawal names a terminal once it was routed, before it was sent there
    if (due.terminalName() == null) {
      Screened screened = screen(due, pan);
      Payment p = screened.payment();
      if (p.state().isFinal()) {
        return Stepped.MOVED;
      }
      Routing.Plan plan = routing.plan(p).checking(funds(p));
      Optional<Routing.Routed> taker = plan.next();
      if (taker.isEmpty()) {
        writer.update(screened.held(), p.apply(OperationType.WITHDRAWAL, PaymentState.DECLINED, plan.refusal(),
            clock.instant()));
        return Stepped.MOVED;
      }
      // Committed before the terminal is asked, as a cascade's next terminal is: a worker that
      // stops while the terminal pays takes the payout up again at that terminal, even when the
      // operator has changed connectors, rates or API types in between, and never at another.
      return Stepped.andThen(writer.route(screened.held(), routedTo(p, taker.get(), plan)));
    }
    List<PaymentOperation> sent = payments.operations(due.id()).stream()
        .filter(o -> o.operation() == OperationType.WITHDRAWAL).toList();
    Routing.Plan plan = routing.resume(due, sent).checking(funds(due));
    int attempt = sent.size() + 1;
    Routing.Routed routed = plan.next().orElseThrow();
    Payment payout = routed.applyTo(due);
    Result r = payout.method() == PaymentMethod.BANKTRANSFER
        ? processor.bankPayout(payout.id(), sentTo(payout), payout.amount(), payout.customer())
        : payout.card() == null || payout.card().cardToken() == null
        ? Result.declined(ErrorCode.E3_02_INVALID_REQUEST_FORMAT_OR_MISSING_REQUIRED_PARAMETERS, null, "NO_CARD")
        : processor.payout(charge(payout, attempt, pan, null));
    Optional<Routing.Routed> next = r.status() == Result.Status.DECLINED
        ? plan.cascade(routed, declined(r).errorCode()) : Optional.empty();
    if (next.isEmpty()) {
      return recordFinal(payout, OperationType.WITHDRAWAL, r, "payout" + routed.via() + plan.passedOver())
          ? Stepped.MOVED : Stepped.STAYED;
    }
    Payment declined = writer.update(payout.apply(OperationType.WITHDRAWAL, PaymentState.PENDING,
        external(r).withDetails("payout; terminal " + routed.terminalName() + " declined " + describe(r)
            + plan.passedOver()), clock.instant()).declinedStep(declined(r).errorCode()));
    Payment.Transition cascading = declined.apply(OperationType.CASCADING, PaymentState.PENDING,
        Outcome.NONE.withDetails(describe(r) + " is in the cascading group of terminal " + routed.terminalName()
            + "; moving on to " + next.get().terminalName()), clock.instant());
    // the step is the declining terminal's; the payment leaves it routed to the next one
    return Stepped.andThen(writer.update(new Payment.Transition(cascading.before(),
        next.get().applyTo(cascading.after()), cascading.operation())));
  }

  /**
   * The step that routes a payout to the terminal that will pay it: none of its own when the
   * terminal is the first the payout could go to; a CASCADING step that says why the connectors
   * before it were passed over otherwise (their limits, no rate, too little balance), as a
   * deposit's operation does. The payout's own operation is written later, by the worker that
   * takes it up at that terminal, which no longer knows why.
   */
  private Payment.Transition routedTo(Payment p, Routing.Routed taker, Routing.Plan plan) {
    String passedOver = plan.passedOver();
    if (passedOver.isEmpty()) {
      return new Payment.Transition(p, taker.applyTo(p), null);
    }
    Payment.Transition past = p.apply(OperationType.CASCADING, PaymentState.PENDING,
        Outcome.NONE.withDetails("routed" + taker.via() + passedOver), clock.instant());
    return new Payment.Transition(past.before(), taker.applyTo(past.after()), past.operation());
  }

  /**
   * The balance check of a payout's routing, for a shop that checks its withdrawals' balance
   * (null for one that does not): what the payout holds was checked when it was created, in the
   * currency it was asked in; a connector that would pay it in another currency, or more of
   * it, is checked against the available balance there, which the step routing it there then
   * takes it from; one that would pay it as it is held, against a balance the hold overdrew (a
   * refund since taking what it left, or the shop checking nothing when it was created): a
   * checking shop never pays out of a balance below zero. A payout that holds nothing until
   * routed (its check at creation passed over, the shop paying out only converted then) is
   * checked for all of it wherever it would be paid. The balance stays locked, with the shop's
   * transfer lock taken before it, until the step is stored, so that two payouts can never both
   * pass on the same money.
   */
  private Routing.Funds funds(Payment payout) {
    if (!shops.findCurrent(payout.shopId()).map(Shop::checkWithdrawalBalance).orElse(false)) {
      return null;
    }
    return (held, routed) -> {
      balances.lockTransfers(payout.shopId());
      // the rows there are, none added: a currency only checked is no currency the shop holds
      BigDecimal available = balances.lockHeld(payout.shopId(), routed.currency()).available();
      boolean more = held != null && held.currency().equals(routed.currency());
      BigDecimal needed = more ? routed.amount().subtract(held.amount()) : routed.amount();
      if (available.compareTo(needed) >= 0) {
        return null;
      }
      if (needed.signum() <= 0) {
        // paid as it is held: the hold itself overdrew the balance
        return "Check Withdrawal Balance: " + available.toPlainString() + " " + routed.currency()
            + " available with this payout held";
      }
      return "Check Withdrawal Balance: " + available.toPlainString() + " " + routed.currency() + " available, "
          + needed.toPlainString() + " " + routed.currency() + (more ? " more" : "") + " to pay out";
    };
  }

  @Override
  public Batch settleBankTransfers(int batch) {
    return eachDue(DueWork.BANK_TRANSFERS, clock.instant().minus(bankTransferDelay), batch, p -> {
      Result r = processor.bankTransferStatus(p.id(), sentTo(p), p.externalId(), p.amount(),
          p.additionalParameters());
      if (r.status() == Result.Status.PENDING) {
        payments.checked(p.id(), clock.instant());
        return false;
      }
      Outcome outcome = r.status() == Result.Status.APPROVED ? external(r) : declined(r);
      if (r.settledAmount() != null) {
        outcome = outcome.withAmount(r.settledAmount()).withDetails("the bank received " + r.settledAmount()
            + " instead of " + p.amount());
      }
      writer.update(p.apply(OperationType.DEPOSIT,
          r.status() == Result.Status.APPROVED ? PaymentState.COMPLETED : PaymentState.DECLINED, outcome, clock.instant()));
      return true;
    });
  }

  @Override
  public long overdueUnansweredPayments() {
    return payments.countUnanswered(clock.instant().minus(UNANSWERED_FOR));
  }

  /**
   * Card deposits sent to a terminal whose answer was never stored, because the request that
   * sent them was cut short (the service stopped, the database went away) and not made again,
   * or because their terminal had not decided yet: asked again of the same terminal, which
   * de-duplicates on the payment id, once a terminal's answer is overdue. A decline that
   * cascades moves on as it would have in the request.
   */
  @Override
  public Batch resumeUnansweredDeposits(int batch) {
    return eachDueInSteps(DueWork.UNANSWERED_DEPOSITS, clock.instant().minus(UNANSWERED_FOR), batch, p -> {
      OperationType last = unansweredAfter(p);
      if (last == null) {
        return Stepped.STAYED;
      }
      if (last == OperationType.CONFIRMATION) {
        boolean passed = !CHALLENGE_FAILED.equals(payments.operations(p.id()).get(0).details());
        Decided told = confirm(p, challengedAttempt(p), fromVault(p), passed);
        if (told.sending() != null) {
          // the next terminal is asked in a step of its own, once its routing is committed
          return Stepped.andThen(told.sending().payment());
        }
        return told.done().version() == p.version() ? Stepped.STAYED : Stepped.MOVED;
      }
      List<PaymentOperation> newestFirst = payments.operations(p.id());
      boolean afterChallenge = newestFirst.size() > 1 && last == OperationType.CASCADING
          && newestFirst.get(1).operation() == OperationType.CONFIRMATION;
      Attempt a = attempt(resume(p, fromVault(p), afterChallenge ? "after a 3-D Secure challenge"
          : "taken up again after its request was cut short"));
      if (a.next() != null) {
        return Stepped.andThen(a.next().payment());
      }
      return a.done().version() == p.version() ? Stepped.STAYED : Stepped.MOVED;
    });
  }

  /**
   * Captures and voids committed as asked of a pre-authorization's terminal whose answer was
   * never stored (their request was cut short, or their terminal had not answered or failed):
   * asked again of the same terminal, which de-duplicates on the payment id, once its answer is
   * overdue, and its answer stored as the request would have stored it.
   */
  @Override
  public Batch resumeUnansweredCapturesAndVoids(int batch) {
    return eachDue(DueWork.UNANSWERED_CAPTURES_AND_VOIDS, clock.instant().minus(UNANSWERED_FOR), batch, p -> {
      Optional<PaymentRepository.Asked> asked = payments.asked(p.id());
      Instant now = clock.instant();
      // as found now, not as the batch found it minutes ago: a step answered since, and one
      // asked after it, is not due yet, nor one another instance has just asked again
      if (asked.isEmpty() || !overdue(asked.get(), now)) {
        return false;
      }
      Result r = call(p, asked.get());
      answered(p, asked.get(), r, true);
      return r.status() != Result.Status.PENDING;
    });
  }

  /**
   * Whether the terminal's answer to the step is overdue, as the job's query has it: asked over
   * {@link #UNANSWERED_FOR} ago, and, once a look left it unanswered, as long and a tenth of the
   * time since it was asked after that look.
   */
  private static boolean overdue(PaymentRepository.Asked asked, Instant now) {
    Instant due = asked.since().plus(UNANSWERED_FOR);
    if (asked.looked() != null) {
      Instant again = asked.looked().plus(Duration.between(asked.since(), asked.looked()).dividedBy(10))
          .plus(UNANSWERED_FOR);
      due = again.isAfter(due) ? again : due;
    }
    return due.isBefore(now);
  }

  @Override
  public Batch expireCheckouts(int batch) {
    return eachDueInSteps(DueWork.EXPIRED_CHECKOUTS, clock.instant(), batch, p -> {
      cancelTimedOut(p);
      // once the cancel is committed: a cancel rolled back leaves the deposit open, to be paid with its code
      return Stepped.movedThen(() -> securityCodes.forget(p.shopId(), p.id()));
    });
  }

  @Override
  public int forgetUnusedCards(Duration retention, int batch) {
    return cardVault.forgetUnusedSince(clock.instant().minus(retention), batch);
  }

  private Payment cancelTimedOut(Payment p) {
    return writer.update(p.apply(OperationType.CANCEL, PaymentState.CANCELLED, timedOutOutcome(), clock.instant()));
  }

  private static Outcome timedOutOutcome() {
    return Outcome.error(ErrorCode.E1_04_CANCELLED_BY_TIMEOUT)
        .withDetails("no answer from the customer within the checkout timeout");
  }

  /** Whether the customer's time to answer, from the checkout's start or the challenge's, is up. */
  private boolean pastDeadline(Payment p, Duration timeout) {
    return deadline(p, timeout).isBefore(clock.instant());
  }

  /** When the customer's time to answer ends: the timeout from the checkout's start, or from the challenge's. */
  private static Instant deadline(Payment p, Duration timeout) {
    Instant since = p.state() == PaymentState.CHECKOUT ? p.created() : p.updated();
    return since.plus(timeout);
  }

  /**
   * The checkout cancelled 1.04, as the expiry job would leave it, when the customer answers
   * after the shop's checkout timeout (from the checkout's start, or from the 3-D Secure
   * challenge's); null while there is time. The job runs after the payouts on one thread and
   * can be minutes late while terminals are slow: a card sent then was charged, for an order
   * the merchant had been told would be cancelled.
   */
  private Payment cancelledIfTimedOut(Payment p) {
    return pastDeadline(p, checkoutTimeout(p.shopId())) ? cancelTimedOut(p) : null;
  }

  /** The shop's checkout timeout, as the shop repository last read it (at most ten seconds ago). */
  private Duration checkoutTimeout(ShopId shop) {
    return recentShops.checkoutTimeout(shop);
  }

  /**
   * Runs {@code step} on each due payment in a transaction of its own, with the payment locked
   * and unchanged since it was found. One payment that fails (a card that cannot be read, a
   * write the database refuses) fails alone: in one transaction for the batch it undid the
   * others' work, processor calls included (a payout made and then rolled back is made again),
   * and, found first again on every run, it stopped the job for every shop.
   *
   * @return how many due payments there were, and how many of them the step moved on
   * @throws IllegalStateException after the others, naming the payments that failed
   */
  private Batch eachDue(DueWork work, Instant before, int batch, java.util.function.Predicate<Payment> step) {
    return eachDueInSteps(work, before, batch, p -> step.test(p) ? Stepped.MOVED : Stepped.STAYED);
  }

  /**
   * What a job's step did with a payment: whether it moved it on, and the payment to take the
   * next step from, in a transaction of its own, when there is one (a payout moved on to the
   * next terminal).
   */
  private record Stepped(boolean moved, Payment then, Runnable committed) {
    static final Stepped MOVED = new Stepped(true, null, null);
    static final Stepped STAYED = new Stepped(false, null, null);

    static Stepped andThen(Payment then) {
      return new Stepped(true, then, null);
    }

    /** Routed only, to be sent in the next step, which says whether the payment moved on. */
    static Stepped routedThen(Payment then) {
      return new Stepped(false, then, null);
    }

    /** Moved on; {@code committed} runs once the step's transaction has committed. */
    static Stepped movedThen(Runnable committed) {
      return new Stepped(true, null, committed);
    }
  }

  /** {@link #eachDue} with steps that may call for another step of the same payment. */
  private Batch eachDueInSteps(DueWork work, Instant before, int batch,
      java.util.function.Function<Payment, Stepped> step) {
    // a snapshot: outside a transaction the statement's locks end with it
    List<Due> candidates = payments.lockDue(work, before, batch);
    int moved = 0;
    List<String> failed = new ArrayList<>();
    List<RuntimeException> causes = new ArrayList<>();
    for (Due candidate : candidates) {
      if (stopping) {
        break;
      }
      try {
        boolean movedOn = false;
        Due from = candidate;
        while (from != null) {
          Due locking = from;
          Stepped stepped = tx.inTransaction(() -> payments.lockIfUnchanged(locking).map(step)
              .orElse(Stepped.STAYED));
          movedOn |= stepped.moved();
          if (stepped.committed() != null) {
            stepped.committed().run();
          }
          // a step that calls for another left no look of its own: last looked at as found
          from = stepped.then() == null ? null
              : new Due(stepped.then().id(), stepped.then().version(), locking.checked());
        }
        if (movedOn) {
          moved++;
        }
      } catch (RuntimeException e) {
        failed.add(candidate.id().value() + " (" + e.getClass().getSimpleName() + ")");
        if (causes.size() < 3) {
          causes.add(e);
        }
        try {
          // behind the others next time, so that payments whose step keeps failing cannot
          // hold up the ones after them
          payments.checked(candidate.id(), clock.instant());
        } catch (RuntimeException unrecorded) {
          // the database that failed the step may refuse this too: the payment keeps its place
        }
      }
    }
    if (!failed.isEmpty()) {
      // what went wrong goes with it, for the log: the first few failures whole
      IllegalStateException stayDue = new IllegalStateException(failed.size() + " of " + candidates.size()
          + " due payments failed and stay due: " + String.join(", ", failed.subList(0, Math.min(5, failed.size()))));
      causes.forEach(stayDue::addSuppressed);
      throw stayDue;
    }
    return new Batch(candidates.size(), moved);
  }

  // ---- balances ---------------------------------------------------------------------------

  @Override
  public List<BalanceAccount> balances(ShopId shop) {
    return balances.accounts(shop);
  }

  @Override
  public List<Money> availableForWithdrawal(ShopId shop) {
    // what a withdrawal may ask: a remainder below the smallest amount (a currency with more
    // decimals than that) is the shop's, in its balances, but no withdrawal can take it
    return balances.balances(shop).stream()
        .filter(b -> b.available().compareTo(PaymentRequestRules.MIN_AMOUNT) >= 0)
        .map(b -> new Money(b.available(), b.currency()))
        .toList();
  }

  // ---- the steps --------------------------------------------------------------------------

  /**
   * Anti-fraud, the first connector that can take the bank transfer (or the default terminal
   * of a shop without connectors), then the bank's instructions (PENDING).
   */
  private Payment openBankTransfer(Payment p, String details) {
    Screened screen = screen(p, fromVault(p));
    Payment screened = screen.payment();
    if (screened.state().isFinal()) {
      return screened;
    }
    Routing.Plan plan = routing.plan(screened);
    Optional<Routing.Routed> taker = plan.next();
    if (taker.isEmpty()) {
      return writer.update(screen.held(), screened.apply(OperationType.DEPOSIT, PaymentState.DECLINED, plan.refusal(),
          clock.instant()));
    }
    Routing.Routed current = taker.get();
    Payment routed = current.applyTo(screened);
    // A terminal that would not open the transfer, with a code its connector cascades on, moved
    // no money: the next connector's terminal is asked, and the steps of those that declined are
    // stored with the last one's answer, as one write and one change of state.
    List<Payment.Transition> passed = new ArrayList<>();
    while (true) {
      Result r = processor.startBankTransfer(routed.id(), Terminal.of(routed), routed.amount(),
          routed.additionalParameters());
      Optional<Routing.Routed> next = r.status() == Result.Status.DECLINED
          ? plan.cascade(current, declined(r).errorCode()) : Optional.empty();
      if (next.isEmpty()) {
        return record(screen.held(), passed, routed, OperationType.DEPOSIT, r,
            details + current.via() + plan.passedOver());
      }
      Payment.Transition tried = routed.apply(OperationType.DEPOSIT, PaymentState.PENDING, external(r).withDetails(
          details + current.via() + "; terminal " + current.terminalName() + " declined " + describe(r)),
          clock.instant()).declinedStep(declined(r).errorCode());
      Payment.Transition cascading = tried.after().apply(OperationType.CASCADING, PaymentState.PENDING,
          Outcome.NONE.withDetails(describe(r) + " is in the cascading group of terminal " + current.terminalName()
              + "; moving on to " + next.get().terminalName()), clock.instant());
      passed.add(tried);
      passed.add(cascading);
      current = next.get();
      routed = current.applyTo(cascading.after());
    }
  }

  /**
   * Anti-fraud, then the shop's connectors in routing order, passing over those that cannot
   * take the payment; a shop without connectors goes straight to the default processor, and one
   * whose connectors can none take the payment declines it. In the caller's transaction: a card
   * deposit to be sent leaves it PENDING and routed to its first terminal, with the screen's
   * step, so that it is committed before the terminal is asked ({@link #send}).
   *
   * @param browser the customer's browser, which the terminals it is sent to are told; null
   *     where the request does not have it
   */
  private Decided decide(Payment p, CardNumber pan, String details, BrowserInfo browser) {
    Screened screened = screen(p, pan);
    Payment current = screened.payment();
    if (current.state().isFinal()) {
      return Decided.done(current);
    }
    Routing.Plan plan = routing.plan(current);
    Optional<Routing.Routed> taker = plan.next();
    if (taker.isEmpty()) {
      return Decided.done(writer.update(screened.held(), current.apply(OperationType.DEPOSIT, PaymentState.DECLINED,
          plan.refusal(), clock.instant())));
    }
    // a host-to-host deposit leaves CHECKOUT here, as one from the checkout page did with its card
    Payment.Transition sending = current.state() == PaymentState.PENDING ? new Payment.Transition(current, current, null)
        : current.apply(OperationType.CHECKOUT, PaymentState.PENDING, Outcome.NONE.withDetails(details),
            clock.instant());
    Payment routed = writer.route(screened.held(), new Payment.Transition(current,
        taker.get().applyTo(sending.after()), sending.operation()));
    return Decided.send(new Sending(routed, plan, taker.get(), 1, pan, details, browser));
  }

  /**
   * A card deposit decided in its transaction: {@code done}, or committed as routed to the
   * terminal it is to be sent to once that transaction has ended ({@code sending}).
   */
  private record Decided(Payment done, Sending sending) {
    static Decided done(Payment p) {
      return new Decided(p, null);
    }

    static Decided send(Sending s) {
      return new Decided(null, s);
    }
  }

  /**
   * A card deposit committed as routed to {@code routed}, which is to be asked for the
   * {@code attempt}th time (1 for the first terminal, 2 after one cascade, ...), with the
   * customer's browser where the request has it (else null).
   */
  private record Sending(Payment payment, Routing.Plan plan, Routing.Routed routed, int attempt, CardNumber pan,
      String details, BrowserInfo browser) {}

  /**
   * {@link #send}, then forgets the security code held for the payment, unless the deposit now
   * waits on the customer's 3-D Secure challenge: the terminal that asked for it, and any
   * terminal a cascade moves on to after it, is sent the code with the answer. It is forgotten
   * too when the charge fails on the way: the job that asks the terminal again, by the payment's
   * id and attempt, goes without it.
   */
  private Payment sendKeepingCodeForChallenge(Decided decided) {
    Payment decidedFor = decided.sending() != null ? decided.sending().payment() : decided.done();
    String code = decided.sending() != null ? decided.sending().pan().securityCode() : null;
    Payment done = null;
    try {
      done = send(decided);
      return done;
    } finally {
      if (done != null && code != null && awaitsChallenge(done)) {
        // held (again) from now, for as long as the customer has to answer: the checkout timeout
        Duration answerWithin = checkoutTimeout(done.shopId());
        securityCodes.hold(decidedFor.shopId(), decidedFor.id(), code, answerWithin.plusMinutes(1));
      } else {
        securityCodes.forget(decidedFor.shopId(), decidedFor.id());
      }
    }
  }

  /** Whether the card deposit waits on the customer's answer to a 3-D Secure challenge. */
  private boolean awaitsChallenge(Payment p) {
    return p.type() == PaymentType.DEPOSIT && p.state() == PaymentState.PENDING
        && p.method() == PaymentMethod.BASIC_CARD && !unanswered(p);
  }

  /**
   * Sends a deposit decided in a transaction that has ended, so that the terminal it is routed
   * to is committed before it is asked: a request cut short while the terminal charges (the
   * service stopped, the database went away) leaves the deposit PENDING at that terminal, where
   * the job for unanswered deposits takes it up ({@link #resumeUnansweredDeposits}), never at
   * another terminal that would charge the card a second time; it is never cancelled as a
   * checkout left alone. The same request made again meanwhile is refused, as for any PENDING
   * deposit: it cannot tell a request cut short from one still waiting on its terminal. Each
   * answer is stored in a write of its own, only if the deposit is still as this request left
   * it; a decline that cascades is committed with the next terminal before that one is asked.
   */
  private Payment send(Decided decided) {
    Sending at = decided.sending();
    if (at == null) {
      return decided.done();
    }
    try {
      while (true) {
        Attempt attempt = attempt(at);
        if (attempt.next() == null) {
          return attempt.done();
        }
        at = attempt.next();
      }
    } catch (DomainException.Conflict e) {
      if (!"concurrent_modification".equals(e.code())) {
        throw e;
      }
      // the job took the deposit up, this request being slower than any terminal may be, and
      // stored the answer first
      return payments.find(at.payment().id()).orElseThrow();
    }
  }

  /** One terminal's answer to a deposit, stored: the deposit done, or the next terminal's sending. */
  private record Attempt(Payment done, Sending next) {}

  private Attempt attempt(Sending at) {
    Payment sent = at.payment();
    Routing.Routed routed = at.routed();
    Result r = processor.authorize(charge(sent, at.attempt(), at.pan(), at.browser()));
    Optional<Routing.Routed> next = r.status() == Result.Status.DECLINED
        ? at.plan().cascade(routed, declined(r).errorCode()) : Optional.empty();
    if (next.isEmpty()) {
      return new Attempt(record(null, sent, OperationType.DEPOSIT, r,
          at.details() + routed.via() + at.plan().passedOver()), null);
    }
    Payment moved = moveOn(sent, OperationType.DEPOSIT, r, at.details(), routed, next.get());
    return new Attempt(null, new Sending(moved, at.plan(), next.get(), at.attempt() + 1, at.pan(), at.details(),
        at.browser()));
  }

  /**
   * A deposit's decline that cascades, stored in one transaction with the CASCADING step that
   * routes it to {@code next}: committed before that terminal is asked.
   *
   * @param step the step that stores the declining terminal's answer (its DEPOSIT, or the
   *     CONFIRMATION of a 3-D Secure challenge)
   */
  private Payment moveOn(Payment sent, OperationType step, Result r, String details, Routing.Routed routed,
      Routing.Routed next) {
    return tx.inTransaction(() -> {
      Payment tried = writer.update(sent.apply(step, PaymentState.PENDING, external(r).withDetails(
          details + "; terminal " + routed.terminalName() + " declined " + describe(r)), clock.instant())
          .declinedStep(declined(r).errorCode()));
      Payment.Transition cascading = tried.apply(OperationType.CASCADING, PaymentState.PENDING, Outcome.NONE.withDetails(
          describe(r) + " is in the cascading group of terminal " + routed.terminalName() + "; moving on to "
              + next.terminalName()), clock.instant());
      // the step is the declining terminal's; the deposit leaves it routed to the next one
      return writer.update(new Payment.Transition(cascading.before(), next.applyTo(cascading.after()),
          cascading.operation()));
    });
  }

  /**
   * Whether a deposit was sent to its terminal, or is about to be, with no answer stored: a
   * PENDING card deposit whose last step is not a terminal's answer (the 3-D Secure challenge a
   * deposit waits on is one).
   */
  private boolean unanswered(Payment p) {
    return unansweredAfter(p) != null;
  }

  /** The last step of an {@link #unanswered} deposit; null for any other payment. */
  private OperationType unansweredAfter(Payment p) {
    if (p.type() != PaymentType.DEPOSIT || p.state() != PaymentState.PENDING || p.method() != PaymentMethod.BASIC_CARD) {
      return null;
    }
    return unansweredAfter(p, payments.operations(p.id()));
  }

  /** As {@link #unansweredAfter(Payment)}, with the payment's steps, newest first, as already read. */
  private static OperationType unansweredAfter(Payment p, List<PaymentOperation> newestFirst) {
    if (p.type() != PaymentType.DEPOSIT || p.state() != PaymentState.PENDING || p.method() != PaymentMethod.BASIC_CARD) {
      return null;
    }
    OperationType last = newestFirst.isEmpty() ? null : newestFirst.get(0).operation();
    return PaymentRepository.UNANSWERED_AFTER.contains(last) ? last : null;
  }

  /**
   * An unanswered deposit taken up again, in the transaction that locked it: at the terminal it
   * was committed as routed to, with the attempt number it was sent with, then the shop's other
   * connectors whose terminals have not answered it.
   */
  private Sending resume(Payment p, CardNumber pan, String details) {
    List<PaymentOperation> answered = payments.operations(p.id()).stream()
        .filter(o -> o.operation() == OperationType.DEPOSIT).toList();
    Routing.Plan plan = routing.resume(p, answered);
    Routing.Routed routed = plan.next().orElseThrow();
    return new Sending(routed.applyTo(p), plan, routed, answered.size() + 1, pan, details, null);
  }

  private static String describe(Result r) {
    return r.errorCode() == null ? String.valueOf(r.externalResultCode()) : r.errorCode().describe();
  }

  /** A payment after its anti-fraud screen; {@code held} is the screen's step when it found nothing. */
  private record Screened(Payment payment, PaymentWriter.Held held) {}

  /**
   * DETECT_FRAUD when the shop has an anti-fraud profile: declined (and stored) on a hit;
   * otherwise the state is unchanged and the step is held, to be stored with the next one.
   */
  private Screened screen(Payment p, CardNumber pan) {
    Optional<FraudScreen.Verdict> found = fraud.screen(p, pan::digits);
    if (found.isEmpty()) {
      return new Screened(p, null);
    }
    FraudScreen.Verdict v = found.get();
    if (v.hit() != null) {
      return new Screened(writer.update(p.apply(OperationType.DETECT_FRAUD, PaymentState.DECLINED,
          Outcome.error(v.hit()).withDetails(v.details()), clock.instant())), null);
    }
    PaymentWriter.Held held = writer.hold(p.apply(OperationType.DETECT_FRAUD, p.state(),
        Outcome.NONE.withDetails(v.details()), clock.instant()));
    return new Screened(held.payment(), held);
  }

  /**
   * Records the processor's answer to a deposit step: final, or PENDING for 3DS and bank
   * transfers. A card charge answered PENDING is not decided yet: nothing is recorded
   * ({@link #notDecidedYet}), and the deposit stays unanswered for the job to ask again.
   */
  private Payment record(PaymentWriter.Held held, Payment p, OperationType op, Result r, String details) {
    return record(held, List.of(), p, op, r, details);
  }

  /** As above, with {@code passed}: steps that led to {@code p} in memory only, stored with its answer. */
  private Payment record(PaymentWriter.Held held, List<Payment.Transition> passed, Payment p, OperationType op,
      Result r, String details) {
    Instant now = clock.instant();
    if (r.status() == Result.Status.PENDING && p.method() == PaymentMethod.BASIC_CARD && held == null) {
      return notDecidedYet(p);
    }
    return writer.update(held, passed, switch (r.status()) {
      case APPROVED -> p.apply(op, p.preAuth() ? PaymentState.AUTHORIZED : PaymentState.COMPLETED,
          external(r).withDetails(details), now);
      case DECLINED -> p.apply(op, PaymentState.DECLINED, declined(r).withDetails(details), now);
      case CHALLENGE -> p.apply(op, PaymentState.PENDING,
          external(r).withDetails(details + "; 3-D Secure challenge required"), now);
      case PENDING -> p.apply(op, PaymentState.PENDING,
          external(r).withExternalRefs(r.externalRefs()).withDetails(details + "; waiting for the bank transfer"), now);
    });
  }

  /**
   * A terminal that has not decided yet (it answered PENDING: an acquirer still waiting on the
   * issuer or the bank) leaves the payment as it was sent, PENDING at that terminal with its
   * amount reserved, and no step recorded: the job asks the same terminal again, with the same
   * payment id and attempt, which the processor de-duplicates, so asking again is asking for its
   * answer. It is asked less and less often, as a step that failed is.
   */
  private Payment notDecidedYet(Payment p) {
    payments.checked(p.id(), clock.instant());
    return p;
  }

  /**
   * Records the processor's final answer to a payout or refund; {@code details} may be null.
   * One answered PENDING is not decided yet: nothing is recorded ({@link #notDecidedYet}), its
   * amount stays reserved, and the worker asks the same terminal again.
   *
   * @return whether an answer was recorded
   */
  private boolean recordFinal(Payment p, OperationType op, Result r, String details) {
    if (r.status() == Result.Status.PENDING) {
      notDecidedYet(p);
      return false;
    }
    Outcome outcome = r.status() == Result.Status.APPROVED ? external(r) : declined(r);
    writer.update(p.apply(op, r.status() == Result.Status.APPROVED ? PaymentState.COMPLETED : PaymentState.DECLINED,
        details == null ? outcome : outcome.withDetails(details), clock.instant()));
    return true;
  }

  /**
   * The charge of the payment's card. A card the vault no longer has fails the step, which
   * leaves the payment as it is (PENDING at its terminal, asked again later): once a terminal
   * may have been asked, nothing but its answer may end the payment. The vault keeps the card of
   * every payment in flight ({@link CardVault#forgetUnusedSince}), so that takes a card removed
   * by hand.
   */
  private CardCharge charge(Payment p, int attempt, CardNumber pan, BrowserInfo browser) {
    String digits = pan.digits();
    if (digits == null) {
      throw new IllegalStateException("card token of payment " + p.id() + " is missing from the vault");
    }
    return new CardCharge(p.id(), p.amount(), digits, p.card().expiryMonth(), p.card().expiryYear(),
        p.card().cardholderName(), pan.securityCode(), !p.preAuth(), sentTo(p), attempt, browser);
  }

  /**
   * A payment's card number, taken from its source on first use and at most once per request:
   * the anti-fraud screen and every connector tried share it. It lives only as long as the
   * request's call and is never logged.
   */
  private static final class CardNumber {
    private Supplier<String> source;
    private String digits;
    /** The security code the customer gave, while this instance holds it; else null. */
    private final String securityCode;

    private CardNumber(Supplier<String> source, String securityCode) {
      this.source = source;
      this.securityCode = securityCode;
    }

    String securityCode() {
      return securityCode;
    }

    String digits() {
      if (source != null) {
        digits = source.get();
        source = null;
      }
      return digits;
    }
  }

  /** The card of a payment read without its ciphertext: the vault is asked on first use. */
  private CardNumber fromVault(Payment p) {
    return new CardNumber(() -> p.card() == null || p.card().cardToken() == null ? null
        : cardVault.reveal(p.shopId(), p.card().cardToken()).orElse(null), null);
  }

  /**
   * The card of a payment locked with its ciphertext (none: the vault has no such card), with
   * the security code this instance holds for it, if any.
   */
  private CardNumber fromLock(PaymentRepository.Locked locked, String securityCode) {
    byte[] ciphertext = locked.cardCiphertext();
    return new CardNumber(() -> ciphertext == null ? null : cardVault.open(ciphertext), securityCode);
  }

  /** A card number and security code the request itself gave. */
  private static CardNumber typed(String digits, String securityCode) {
    return new CardNumber(() -> digits, securityCode);
  }

  private static Outcome external(Result r) {
    return Outcome.NONE.withExternal(r.externalId(), r.externalResultCode());
  }

  private static Outcome declined(Result r) {
    ErrorCode code = r.errorCode() == null ? ErrorCode.E3_00_DECLINED_BY_ACQUIRER : r.errorCode();
    return Outcome.error(code).withExternal(r.externalId(), r.externalResultCode());
  }

  private Payment lockOwn(ShopId shop, String paymentId) {
    return payments.findForUpdate(wellFormed(paymentId)).filter(p -> p.shopId().equals(shop))
        .orElseThrow(ProcessingService::notFound);
  }

  private PaymentRepository.Locked lockOwnWithCard(ShopId shop, String paymentId, boolean lockCard) {
    return payments.findForUpdateWithCard(wellFormed(paymentId), lockCard)
        .filter(l -> l.payment().shopId().equals(shop))
        .orElseThrow(ProcessingService::notFound);
  }

  /**
   * Before a deposit with this card is screened and decided, when the screen will count the
   * card's deposits: waits while another deposit of the card in the shop is being screened and
   * routed, so that each counts the one before, sent or finished ({@link PaymentRepository#lockCard}).
   */
  private void lockCardIfCounted(ShopId shop, String cardToken) {
    if (cardToken != null && fraud.countsCardDeposits(shop)) {
      payments.lockCard(shop, cardToken);
    }
  }

  private Payment lockCheckout(String paymentId) {
    return payments.findForUpdate(wellFormed(paymentId)).filter(p -> p.type() == PaymentType.DEPOSIT)
        .orElseThrow(ProcessingService::notFound);
  }

  private PaymentRepository.Locked lockCheckoutWithCard(String paymentId) {
    return payments.findForUpdateWithCard(wellFormed(paymentId)).filter(l -> l.payment().type() == PaymentType.DEPOSIT)
        .orElseThrow(ProcessingService::notFound);
  }

  private Payment findAny(String paymentId) {
    return payments.find(wellFormed(paymentId)).orElseThrow(ProcessingService::notFound);
  }

  /** An id that cannot be a payment's is answered like an unknown one, without a query. */
  private static PaymentId wellFormed(String paymentId) {
    PaymentId id = PaymentId.parse(paymentId);
    if (id == null) {
      throw notFound();
    }
    return id;
  }

  private static DomainException.NotFound notFound() {
    return new DomainException.NotFound("Payment not found");
  }

  private String validCheckoutCard(CardInput card) {
    Checks checks = new Checks();
    String digits = card.cardNumber() == null ? "" : card.cardNumber().replaceAll("[ -]", "");
    if (!digits.matches("^[0-9]{12,19}$")) {
      checks.add("cardNumber", "Enter the 12 to 19 digits of the card number", null);
    } else if (!io.tollgate.domain.group.Pan.luhnValid(digits)) {
      // a typo, told on the form: sent on, the terminal's decline (4.13) would end the payment
      checks.add("cardNumber", "This is not a valid card number: check it and enter it again", null);
    }
    if (card.cardholderName() != null && Checks.longerThan(card.cardholderName(), 128)) {
      checks.add("cardholderName", "Use at most 128 characters", null);
    } else if (card.cardholderName() != null && PaymentRequestRules.holdsCardNumber(card.cardholderName())) {
      checks.add("cardholderName", "Enter the name on the card, not its number", null);
    } else if (card.cardholderName() != null && card.cardholderName().chars().anyMatch(c -> c < 0x20 || c == 0x7f
        || Character.isSurrogate((char) c))) {
      checks.add("cardholderName", "Use letters, spaces and punctuation only", null);
    }
    boolean monthOk = card.expiryMonth() != null && card.expiryMonth().matches("^(0[1-9]|1[0-2])$");
    boolean yearOk = card.expiryYear() != null && card.expiryYear().matches("^20[0-9]{2}$");
    if (!monthOk) {
      checks.add("expiryMonth", "Enter the month as on the card, 01 to 12", null);
    }
    boolean fourDigits = card.expiryYear() != null && card.expiryYear().matches("^[0-9]{4}$");
    if (!fourDigits) {
      checks.add("expiryYear", "Enter the year as on the card, such as 2030 or 30", null);
    } else if (Integer.parseInt(card.expiryYear()) < 2000) {
      checks.add("expiryYear", "Check the year: it is the one printed on the card", null);
    } else if (!yearOk || !PaymentRequestRules.plausibleExpiryYear(Integer.parseInt(card.expiryYear()), clock)) {
      checks.add("expiryYear", "This expiry date is too far in the future", null);
    }
    if (monthOk && yearOk && java.time.YearMonth.of(Integer.parseInt(card.expiryYear()),
        Integer.parseInt(card.expiryMonth())).isBefore(java.time.YearMonth.now(clock))) {
      // likewise: a card expired, or a date mistyped, is for the customer to correct or replace
      checks.add("expiryDate", "This expiry date has passed: check it, or use another card", null);
    }
    if (card.cardSecurityCode() == null || !card.cardSecurityCode().matches("^[0-9]{3,4}$")) {
      // on the back of most cards, on the front of American Express
      checks.add("cardSecurityCode", "Enter the 3 or 4 digits of the card's security code", null);
    }
    checks.throwIfAny("Please check the card details");
    return digits;
  }


  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
