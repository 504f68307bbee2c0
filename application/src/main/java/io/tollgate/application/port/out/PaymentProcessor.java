package io.tollgate.application.port.out;

import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import java.util.Map;

/**
 * An acquirer or bank behind a terminal: the port a team implements to connect Tollgate to a
 * real processor. Implementations must answer within a bounded time, never hang, and must be
 * safe to call again for the same payment id (processors de-duplicate on it): a call cut short
 * is made again, and a call made again answers what the first one did, or its outcome since.
 *
 * <p>What an answer means to the money: APPROVED moves it. DECLINED must mean the acquirer did
 * not and will not act, because a decline releases what a payout or refund reserved and may
 * move the payment on to the next terminal (cascading): 3.04 is for an acquirer that answered
 * that it timed out without acting. When an implementation cannot tell whether the acquirer
 * acted (its own call timed out, the connection broke after the request went out), it throws,
 * or answers PENDING; so does an acquirer still waiting on the issuer or the bank. Tollgate then
 * keeps the payment as it was sent, PENDING at that terminal with its amount reserved, records
 * no answer, and asks the same terminal again later, with the same payment id and attempt
 * number, less and less often, until it is APPROVED or DECLINED; a card deposit so left is asked
 * again two minutes after it was sent, and the checkout page and the expiry job leave it alone.
 * So does a pre-authorization whose {@link #capture} or {@link #voidAuthorization} was answered
 * PENDING or threw: AUTHORIZED, with that step asked, and asked again with the same amount until
 * it is answered; DECLINED leaves it AUTHORIZED, to capture or void again.
 *
 * <p>Tollgate calls it while it holds the payment's row lock, so one payment is not sent twice at once,
 * except for a card deposit's {@link #authorize} and {@link #completeChallenge} and a merchant's
 * capture or void: the terminal a deposit goes to, the challenge's answer, or the step asked of
 * it, is committed first, and the call is made after that commit, without the lock; a deposit,
 * capture or void whose answer is not stored two minutes
 * later is sent to that terminal again (a deposit with the same attempt number) by a background
 * job, so an implementation must answer well within that time.
 *
 * <p>Every call names the {@link Terminal} it goes through, by id and name, so that an
 * implementation fronting several acquirers can dispatch each call to the one that holds the
 * payment: terminal names are unique per merchant only, never across merchants.
 *
 * <p>Every answer carries the processor's own id and result code, which Tollgate shows the
 * merchant as {@code externalId} and {@code externalResultCode}, next to our error code.
 */
public interface PaymentProcessor {

  /** The terminal name shown on payments this processor handled. */
  String terminalName();

  /**
   * Authorizes a card deposit. With {@code capture} true the funds are taken at once; with
   * false (pre-auth) they are only held until {@link #capture} or {@link #voidAuthorization}.
   * Answers {@link Result.Status#CHALLENGE} when the issuer wants 3-D Secure first.
   */
  Result authorize(CardCharge charge);

  /** Finishes a deposit after the customer answered the 3-D Secure challenge. */
  Result completeChallenge(CardCharge charge, boolean customerPassed);

  /**
   * Takes (part of) a held amount.
   *
   * @param terminal the terminal that authorized the deposit, which holds the amount
   */
  Result capture(PaymentId payment, Terminal terminal, String externalId, Money amount);

  /**
   * Releases a held amount.
   *
   * @param terminal the terminal that authorized the deposit, which holds the amount
   */
  Result voidAuthorization(PaymentId payment, Terminal terminal, String externalId);

  /** Pays out to a card, through the terminal the payout was routed to ({@link CardCharge#terminal}). */
  Result payout(CardCharge payout);

  /**
   * Pays out by bank transfer to the account the customer's account fields name.
   *
   * @param terminal the terminal the payout was routed to
   */
  Result bankPayout(PaymentId payout, Terminal terminal, Money amount, io.tollgate.domain.payment.Customer account);

  /**
   * Returns (part of) a completed deposit to its card.
   *
   * @param terminal the deposit's terminal, which took the money: a refund is not routed, and
   *     goes back there whatever the shop's connectors are now
   */
  Result refund(PaymentId refund, PaymentId deposit, Terminal terminal, String depositExternalId, Money amount);

  /**
   * Opens a bank transfer: answers {@link Result.Status#PENDING} with the instructions the
   * customer needs ({@code externalRefs}); the outcome arrives later through
   * {@link #bankTransferStatus}.
   *
   * @param terminal the terminal the deposit was routed to, which is to receive the transfer
   */
  Result startBankTransfer(PaymentId payment, Terminal terminal, Money amount,
      Map<String, String> additionalParameters);

  /**
   * Whether the transfer has arrived: PENDING while waiting, else its final result with the
   * amount actually received as {@link Result#settledAmount}, which may differ from the one
   * requested.
   *
   * @param terminal the terminal the transfer was opened on ({@link #startBankTransfer})
   */
  Result bankTransferStatus(PaymentId payment, Terminal terminal, String externalId, Money expected,
      Map<String, String> additionalParameters);

  /**
   * The terminal a call goes through.
   *
   * @param id the terminal's id in Tollgate; null for the processor's default terminal of a shop
   *     without connectors ({@link #terminalName}), and for payments stored before terminals were
   *     recorded by id (migration V28), which only have a name
   * @param name the terminal's name as it was when the payment was sent to it; unique per
   *     merchant only, so the id, when there is one, is what tells terminals apart
   */
  record Terminal(Long id, String name) {

    /** The terminal the payment is routed to, or was last sent to. */
    public static Terminal of(Payment p) {
      return new Terminal(p.terminalId(), p.terminalName());
    }
  }

  /**
   * A card operation: the card number in clear is only ever passed here, never stored.
   *
   * @param terminal the terminal the payment was routed to for this attempt (after a cascade,
   *     the next one), or for a 3-D Secure answer the one that asked for the challenge
   * @param attempt 1 for the first terminal tried, 2 after one cascade, ...
   * @param securityCode the card's security code when this instance still holds the one the
   *     customer gave (it is never stored), else null
   * @param browser the customer's browser, for 3-D Secure, where the request that makes the
   *     charge has it ({@link BrowserInfo}), else null
   */
  record CardCharge(
      PaymentId payment,
      Money amount,
      String cardNumber,
      String expiryMonth,
      String expiryYear,
      String cardholderName,
      String securityCode,
      boolean capture,
      Terminal terminal,
      int attempt,
      BrowserInfo browser) {

    @Override
    public String toString() {
      return "CardCharge[payment=" + payment + ", amount=" + amount + ", capture=" + capture + ", terminal="
          + terminal + ", attempt=" + attempt + "]";
    }
  }

  /**
   * The customer's browser, which an acquirer passes on to the issuer for 3-D Secure: the fields
   * of the host-to-host execution ({@code PATCH /payments/{id}}) of the same names
   * ({@code customerUserAgent}, {@code browserLanguage}, {@code browserJavaEnabled}, ...), as the
   * merchant sent them, each null where it left the field out. They are not stored: only the
   * charges that PATCH makes (the first terminal's, and the next ones' when a decline cascades)
   * carry them. A charge made where no browser is known has none ({@link CardCharge#browser} is
   * null): a deposit paid on the checkout page, the answer to a 3-D Secure challenge, a deposit
   * taken up again by the job for unanswered deposits (after a request cut short or a terminal
   * that had not answered), and a card payout.
   */
  record BrowserInfo(
      String userAgent,
      String language,
      Boolean javaEnabled,
      Integer screenColorDepth,
      Integer screenWidth,
      Integer screenHeight,
      Integer windowWidth,
      Integer windowHeight,
      Integer timezoneOffset) {}

  /**
   * What the processor said.
   *
   * @param errorCode our catalogue's code for a decline (null when approved)
   * @param settledAmount the amount actually moved, when it differs from the requested one
   */
  record Result(
      Status status,
      io.tollgate.domain.error.ErrorCode errorCode,
      String externalId,
      String externalResultCode,
      Map<String, String> externalRefs,
      Money settledAmount) {

    public enum Status {
      APPROVED,
      DECLINED,
      CHALLENGE,
      PENDING
    }

    public static Result approved(String externalId, String resultCode) {
      return new Result(Status.APPROVED, null, externalId, resultCode, Map.of(), null);
    }

    public static Result declined(io.tollgate.domain.error.ErrorCode code, String externalId, String resultCode) {
      return new Result(Status.DECLINED, code, externalId, resultCode, Map.of(), null);
    }
  }
}
