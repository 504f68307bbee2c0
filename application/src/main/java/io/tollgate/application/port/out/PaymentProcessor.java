package io.tollgate.application.port.out;

import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.PaymentId;
import java.util.Map;

/**
 * An acquirer or bank behind a terminal: the port a team implements to connect Tollgate to a
 * real processor. Tollgate calls it while it holds the payment's row lock, so one payment is
 * never sent twice at once; implementations must therefore answer within a bounded time
 * (a timeout is a {@link Result#declined decline} with 3.04, never a hang) and must be safe to
 * call again for the same payment id (processors de-duplicate on it).
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

  /** Takes (part of) a held amount. */
  Result capture(PaymentId payment, String externalId, Money amount);

  /** Releases a held amount. */
  Result voidAuthorization(PaymentId payment, String externalId);

  /** Pays out to a card. */
  Result payout(CardCharge payout);

  /** Pays out by bank transfer to the account the customer's account fields name. */
  Result bankPayout(PaymentId payout, Money amount, io.tollgate.domain.payment.Customer account);

  /** Returns (part of) a completed deposit to its card. */
  Result refund(PaymentId refund, PaymentId deposit, String depositExternalId, Money amount);

  /**
   * Opens a bank transfer: answers {@link Result.Status#PENDING} with the instructions the
   * customer needs ({@code externalRefs}); the outcome arrives later through
   * {@link #bankTransferStatus}.
   */
  Result startBankTransfer(PaymentId payment, Money amount, Map<String, String> additionalParameters);

  /**
   * Whether the transfer has arrived: PENDING while waiting, else its final result with the
   * amount actually received as {@link Result#settledAmount}, which may differ from the one
   * requested.
   */
  Result bankTransferStatus(PaymentId payment, String externalId, Money expected,
      Map<String, String> additionalParameters);

  /**
   * A card operation: the card number in clear is only ever passed here, never stored.
   *
   * @param terminal the terminal the charge goes through; an implementation fronting several
   *     acquirers dispatches on it
   * @param attempt 1 for the first terminal tried, 2 after one cascade, ...
   */
  record CardCharge(
      PaymentId payment,
      Money amount,
      String cardNumber,
      String expiryMonth,
      String expiryYear,
      String cardholderName,
      boolean capture,
      String terminal,
      int attempt) {

    @Override
    public String toString() {
      return "CardCharge[payment=" + payment + ", amount=" + amount + ", capture=" + capture + ", terminal="
          + terminal + ", attempt=" + attempt + "]";
    }
  }

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
