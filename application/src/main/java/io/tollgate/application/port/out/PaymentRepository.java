package io.tollgate.application.port.out;

import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** Stores payments and their operations. Implementations must join the caller's transaction. */
public interface PaymentRepository {

  /** Stores a new payment with its CREATE_PAYMENT operation; returns it at version 1. */
  default Payment insert(Payment.Transition creation) {
    return insert(creation, stored -> Effects.NONE);
  }

  /**
   * Stores a new payment, its CREATE_PAYMENT operation and what the stored payment causes, as
   * one write: all of it or none.
   */
  Payment insert(Payment.Transition creation, Function<Payment, Effects> effects);

  /**
   * Stores a step: the new payment row and its operation (none when the step's operation is
   * null: a change that is no step of its own, such as where a payout is about to be sent),
   * only if the row is still at the version the step was computed from.
   *
   * @return the payment at its new version
   * @throws io.tollgate.domain.DomainException.Conflict when another writer got there first
   */
  default Payment update(Payment.Transition step) {
    return update(step, stored -> Effects.NONE);
  }

  /**
   * Stores a step as {@link #update(Payment.Transition)} does, together with what the stored
   * payment causes (its webhook event, its ledger entry), as one write: all of it or none.
   */
  default Payment update(Payment.Transition step, Function<Payment, Effects> effects) {
    return update(step, java.util.List.of(), effects);
  }

  /**
   * Stores a step as {@link #update(Payment.Transition, Function)} does, with operations the
   * same request recorded before it (steps that changed nothing else about the payment),
   * stored first: one write instead of one per step.
   */
  Payment update(Payment.Transition step, java.util.List<io.tollgate.domain.payment.PaymentOperation> earlier,
      Function<Payment, Effects> effects);

  /**
   * What storing a payment causes besides its row and operation; any may be null: the
   * webhook event of a state the merchant hears about (a new outbox row), the ledger entry
   * of a state that moves money (an entry row, and the shop's balance moved by it), the
   * customer a new payment names by its reference id (added to the shop's customers, or the
   * fields it gives written over the ones stored before), and the card number behind a new
   * payment's card token (stored in the vault unless the shop has it: when the shop's stored
   * token differs, the payment is stored and returned with that one). The customer and card only with
   * {@link #insert}; and a payout's transfer of what it holds to the amount and currency routing
   * changed it to (its two ledger entries, written after the shop's
   * {@link BalanceRepository#lockTransfers transfer lock} and the balances in the order of their
   * currency codes), only with {@link #update}.
   */
  record Effects(WebhookOutbox.NewEvent event, BalanceRepository.LedgerEntry entry,
      io.tollgate.domain.payment.Customer customer, CardVault.Sealed card, BalanceRepository.Transfer transfer) {
    public static final Effects NONE = new Effects(null, null, null, null, null);

    public Effects(WebhookOutbox.NewEvent event, BalanceRepository.LedgerEntry entry) {
      this(event, entry, null, null, null);
    }

    public Effects(WebhookOutbox.NewEvent event, BalanceRepository.LedgerEntry entry,
        io.tollgate.domain.payment.Customer customer, CardVault.Sealed card) {
      this(event, entry, customer, card, null);
    }

    /** A step that moves what a payout holds, and tells the merchant nothing. */
    public static Effects moving(BalanceRepository.Transfer transfer) {
      return new Effects(null, null, null, null, transfer);
    }

    /** The ledger entries written, in their order: the entry, then a transfer's release and hold. */
    public List<BalanceRepository.LedgerEntry> entries() {
      List<BalanceRepository.LedgerEntry> all = new java.util.ArrayList<>(3);
      if (entry != null) {
        all.add(entry);
      }
      if (transfer != null) {
        all.add(transfer.release());
        all.add(transfer.hold());
      }
      return all;
    }
  }

  Optional<Payment> find(PaymentId id);

  /**
   * Adds the shop's customer of this reference, or refreshes it as a new payment naming it
   * does, in a statement of its own, and holds its row lock until the transaction ends: for a
   * creation that then writes a balance, so that every transaction takes a customer's lock
   * before a balance's, never the other way round.
   */
  void lockCustomer(ShopId shop, io.tollgate.domain.payment.Customer customer, java.time.Instant at);

  /**
   * The card as the shop's most recently created deposit with this token that an acquirer took
   * (COMPLETED or AUTHORIZED) gave it: what a payment with the token alone is charged with.
   */
  Optional<io.tollgate.domain.payment.CardDetails> lastCardWithExpiry(ShopId shop, String cardToken);

  /** Reads the payment and locks its row until the transaction ends. */
  Optional<Payment> findForUpdate(PaymentId id);

  /**
   * The payment as the first request with the shop's idempotency key was answered (see
   * {@link IdempotencyRepository#complete}); empty when the key has no such record.
   */
  Optional<Payment> findAsAnswered(ShopId shop, String idempotencyKey);

  /**
   * {@link #findForUpdate} with, in the same round trip, the vault's ciphertext of the
   * payment's card number, for a step that will charge or screen the card.
   */
  default Optional<Locked> findForUpdateWithCard(PaymentId id) {
    return findForUpdateWithCard(id, false);
  }

  /**
   * {@link #findForUpdateWithCard(PaymentId)} that, when {@code lockCard} and the payment has
   * a card token, then takes the lock of that card in the payment's shop ({@link #lockCard}),
   * after the row's and in the same round trip.
   */
  Optional<Locked> findForUpdateWithCard(PaymentId id, boolean lockCard);

  /**
   * Locks a card of a shop until the transaction ends, waiting while another transaction holds
   * that lock. A step that counts the card's deposits for a velocity rule and then decides a
   * deposit with it takes the lock first, so that deposits of one card are counted and decided
   * one after the other, never from the same count: each counts the one before it as it was
   * committed, sent to its terminal (PENDING, which both limits count) or finished. It must be
   * taken by an earlier statement than the count: at READ COMMITTED a statement sees only what
   * was committed before it began.
   */
  void lockCard(ShopId shop, String cardToken);

  /**
   * A locked payment and the ciphertext of its card number as the vault of its shop holds it
   * (see {@link CardVault#open}); null when the payment has no card token or the vault has no
   * such card.
   */
  record Locked(Payment payment, byte[] cardCiphertext) {}

  Page<Payment> list(PaymentFilter filter, int offset, int limit);

  /** The payment's operations, most recent first. */
  List<PaymentOperation> operations(PaymentId id);

  /**
   * What the refunds of {@code parent} that are not DECLINED or CANCELLED take back.
   *
   * @param charged the deposit's currency, which every refund takes back
   * @param asked the currency the deposit was asked in before routing converted it, or null
   */
  Refunded refunded(PaymentId parent, io.tollgate.domain.money.Currency charged,
      io.tollgate.domain.money.Currency asked);

  /**
   * The refunds of a deposit: {@code total}, all they take back in the deposit's currency;
   * {@code askedFor}, what those asked in the currency the deposit was asked in asked for (zero
   * without one); {@code rest}, what the others take back in the deposit's currency.
   */
  record Refunded(Money total, Money askedFor, Money rest) {}

  /**
   * Up to {@code limit} due payments of a background job's kind that no other transaction
   * holds ({@code FOR UPDATE SKIP LOCKED}): locked, inside a transaction; outside one, the
   * candidates a job then locks one by one ({@link #lockIfUnchanged}), so that any number of
   * service instances can run the job at once without processing a payment twice. Only each
   * payment's id, version and last look: the job reads the payment whole when it locks it, so
   * that a row this build cannot read (a method or state a newer build wrote, before a
   * rollback) fails that one payment's step, not the whole batch and every batch after it.
   */
  List<Due> lockDue(DueWork work, Instant now, int limit);

  /**
   * A payment a background job is due to take up, at the version it was found at, and when a
   * job last looked at it and left it as it was ({@link #checked}; null if none has since it
   * was made).
   */
  record Due(PaymentId id, long version, Instant checked) {
  }

  /**
   * How many payments last changed before {@code before} were sent to their terminal with no
   * answer stored, whether or not a job is due to take them up now: PENDING card deposits with
   * one of {@link #UNANSWERED_AFTER} as their last step, PENDING withdrawals and refunds a
   * job has looked at and left as they were ({@link #checked}: their terminal has not decided, or
   * their step failed), and payments with a capture or void {@link #ask}ed.
   */
  long countUnanswered(Instant before);

  /**
   * Records that a payment was looked at {@code at} and left as it was (a bank transfer still
   * awaited, a terminal that has not decided yet, a step that failed): {@link #lockDue} then
   * takes it after the payments not looked at since, and only once its next look is due: a
   * tenth of the time it has waited later (at least a second for payouts and refunds). Changes
   * nothing a merchant sees; not a step of the payment.
   */
  void checked(PaymentId id, Instant at);

  /**
   * A capture or void of a pre-authorization, asked of its terminal with no answer stored yet:
   * the amount to capture in the payment's currency and, for a payment asked for in another
   * currency, in that one (null otherwise; both null for a void, and for a capture of the whole
   * amount authorized, which names none); {@code key}, the Idempotency-Key of
   * the request that asked it, if it had one, whose change the answer is, whoever stores it. As
   * read back, {@code since} is when it was asked and {@code looked} when its terminal last left
   * it unanswered ({@link #checked}), null when it has not since; both null in one to {@link #ask}.
   */
  record Asked(io.tollgate.domain.payment.OperationType operation, java.math.BigDecimal amount,
      java.math.BigDecimal customerAmount, String key, Instant since, Instant looked) {

    public Asked(io.tollgate.domain.payment.OperationType operation, java.math.BigDecimal amount,
        java.math.BigDecimal customerAmount) {
      this(operation, amount, customerAmount, null, null, null);
    }

    /** This step, asked by the request with that key (null: one without). */
    public Asked by(String key) {
      return new Asked(operation, amount, customerAmount, key, since, looked);
    }

    /** The same step for the same amounts, however many trailing zeros each was written with. */
    public boolean sameAs(Asked other) {
      return operation == other.operation && same(amount, other.amount) && same(customerAmount, other.customerAmount);
    }

    private static boolean same(java.math.BigDecimal a, java.math.BigDecimal b) {
      return a == null ? b == null : b != null && a.compareTo(b) == 0;
    }
  }

  /**
   * Records, in the transaction that holds the payment's lock, that {@code asked} is being
   * asked of its terminal from {@code at}; null: that its answer is stored. Changes nothing a
   * merchant sees.
   */
  void ask(PaymentId id, Asked asked, Instant at);

  /** The capture or void asked of the payment's terminal with no answer stored; empty when none. */
  Optional<Asked> asked(PaymentId id);

  /**
   * Locks the payment in the current transaction if no other transaction holds it and it is
   * still as {@code due} found it: at its version, and last {@link #checked} when it was then;
   * empty otherwise (another instance has it, has moved it on, or has just looked at it and
   * left it as it was, so that its next look is not due yet).
   */
  Optional<Payment> lockIfUnchanged(Due due);

  /**
   * The steps after which a PENDING card deposit has been sent to its terminal (or is about to
   * be) with no answer stored: its checkout (the card entered on the page, or the host-to-host
   * execution), its anti-fraud screen, a cascade to the next terminal, or the customer's answer
   * to the 3-D Secure challenge (a CONFIRMATION that leaves it PENDING, told to the terminal after
   * it is stored). Any other last step is a terminal's answer, such as the challenge the deposit
   * then waits on.
   */
  Set<io.tollgate.domain.payment.OperationType> UNANSWERED_AFTER = Set.of(
      io.tollgate.domain.payment.OperationType.CHECKOUT, io.tollgate.domain.payment.OperationType.DETECT_FRAUD,
      io.tollgate.domain.payment.OperationType.CASCADING, io.tollgate.domain.payment.OperationType.CONFIRMATION);

  /** The kinds of background work. */
  enum DueWork {
    /** PENDING withdrawals and refunds, oldest first, each once its next look is due ({@link #checked}). */
    PAYOUTS,
    /** PENDING bank-transfer deposits whose transfer had time to arrive. */
    BANK_TRANSFERS,
    /** Deposits still waiting for the customer (CHECKOUT, or PENDING on 3-D Secure) past the shop's timeout. */
    EXPIRED_CHECKOUTS,
    /**
     * PENDING card deposits last changed before the time given, whose last step is one of
     * {@link #UNANSWERED_AFTER}: sent to their terminal by a request cut short before it stored
     * the answer.
     */
    UNANSWERED_DEPOSITS,
    /**
     * AUTHORIZED payments last changed before the time given with a capture or void
     * {@link #ask}ed of their terminal and no answer stored.
     */
    UNANSWERED_CAPTURES_AND_VOIDS
  }

  /** {@link #listForMerchant(MerchantId, Instant, Instant, Set, int, int)} across all the merchant's shops. */
  default Page<PaymentWithRefunds> listForMerchant(MerchantId merchant, Instant createdFrom, Instant createdBefore,
      int offset, int limit) {
    return listForMerchant(merchant, createdFrom, createdBefore, Set.of(), offset, limit);
  }

  /**
   * A merchant's payments across its shops, newest first, each deposit with what its refunds
   * paid back. The refunds are summed for the page's rows only, never for the rows an offset
   * skips.
   *
   * @param inShopGroups only payments of shops that are in every one of these shop groups at the
   *     time of the query; empty: every shop of the merchant
   */
  Page<PaymentWithRefunds> listForMerchant(MerchantId merchant, Instant createdFrom, Instant createdBefore,
      Set<Long> inShopGroups, int offset, int limit);

  /**
   * A payment and, for a deposit, the sum of its COMPLETED refunds in the deposit's currency
   * (zero when none); null for a withdrawal or a refund.
   */
  record PaymentWithRefunds(Payment payment, Money refunded) {}

  /** {@link #operationsForMerchant(MerchantId, Instant, Instant, Set, Set, Set, int, int)} across all the merchant's shops. */
  default Page<OperationWithPayment> operationsForMerchant(MerchantId merchant, Instant completedFrom,
      Instant completedBefore, Set<io.tollgate.domain.payment.OperationType> operations,
      Set<io.tollgate.domain.payment.PaymentState> paymentStates, int offset, int limit) {
    return operationsForMerchant(merchant, completedFrom, completedBefore, operations, paymentStates, Set.of(), offset,
        limit);
  }

  /**
   * A merchant's operations across its shops, most recently completed first, each with its
   * payment as it is now. Empty sets do not filter; {@code inShopGroups} as for
   * {@link #listForMerchant(MerchantId, Instant, Instant, Set, int, int)}.
   */
  Page<OperationWithPayment> operationsForMerchant(MerchantId merchant, Instant completedFrom, Instant completedBefore,
      Set<io.tollgate.domain.payment.OperationType> operations,
      Set<io.tollgate.domain.payment.PaymentState> paymentStates, Set<Long> inShopGroups, int offset, int limit);

  record OperationWithPayment(PaymentOperation operation, Payment payment) {}

  /** Filters of a shop's payment list; null fields do not filter. Newest first. */
  record PaymentFilter(
      ShopId shopId,
      Instant createdFrom,
      Instant createdBefore,
      Instant updatedFrom,
      Instant updatedBefore,
      String referenceId) {}
}
