package io.tollgate.application.port.in;

/**
 * The jobs that move payments without a request. Each takes up a batch of the payments due to
 * it and answers what it did with them; every instance of the service may run them at once.
 */
public interface BackgroundWorkUseCase {

  /**
   * What a job did with a batch: how many due payments it found, and how many of those it moved
   * on. One that found as many as the batch holds may have left more due, however few it moved:
   * the others were taken by another instance that found them too, or left as they were (a
   * terminal that has not decided, a transfer still awaited) and are not due again at once.
   */
  record Batch(int found, int moved) {}

  /** Pays out PENDING withdrawals and refunds. */
  Batch processPayouts(int batch);

  /** Settles bank-transfer deposits whose transfer has arrived. */
  Batch settleBankTransfers(int batch);

  /**
   * Asks again the terminal of each card deposit sent there whose answer was never stored (its
   * request was cut short), once that answer is overdue.
   */
  Batch resumeUnansweredDeposits(int batch);

  /**
   * Asks again the terminal of each pre-authorization whose capture or void was asked of it and
   * whose answer was never stored (its request was cut short, or the terminal had not answered),
   * once that answer is overdue.
   */
  Batch resumeUnansweredCapturesAndVoids(int batch);

  /**
   * How many payments sent to a terminal have had no answer stored for longer than
   * {@link #resumeUnansweredDeposits} waits before asking again: card deposits, withdrawals
   * and refunds whose terminal has not decided or whose step failed, and captures and voids. Each is being taken up
   * again, or its terminal keeps not deciding, or its step keeps failing (a processor that keeps
   * throwing, a card the vault cannot read) and it stays PENDING, its amount reserved, with no
   * webhook until someone looks. For the operators' alerts.
   */
  long overdueUnansweredPayments();

  /** Cancels with 1.04 deposits the customer left alone past the shop's checkout timeout. */
  Batch expireCheckouts(int batch);

  /**
   * Forgets a batch of the card numbers no payment has used for {@code retention}, keeping those
   * a payment in flight still needs, and answers how many it forgot. Their tokens are unknown
   * from then on; a payment that names one is refused, and the card given again is kept anew.
   */
  int forgetUnusedCards(java.time.Duration retention, int batch);

  /**
   * Takes up no more payments, for a service that is stopping: a batch in hand ends with the
   * payment being taken up, and leaves the rest due, for another instance or the next start,
   * rather than sending them to their terminals to have the stop cut them off midway.
   */
  void stopTakingUp();
}
