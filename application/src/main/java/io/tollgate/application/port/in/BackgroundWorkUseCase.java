package io.tollgate.application.port.in;

/**
 * The jobs that move payments without a request. Each handles a batch and returns how many
 * payments it moved; every instance of the service may run them at once.
 */
public interface BackgroundWorkUseCase {

  /** Pays out PENDING withdrawals and refunds. */
  int processPayouts(int batch);

  /** Settles bank-transfer deposits whose transfer has arrived. */
  int settleBankTransfers(int batch);

  /**
   * Asks again the terminal of each card deposit sent there whose answer was never stored (its
   * request was cut short), once that answer is overdue.
   */
  int resumeUnansweredDeposits(int batch);

  /**
   * Asks again the terminal of each pre-authorization whose capture or void was asked of it and
   * whose answer was never stored (its request was cut short, or the terminal had not answered),
   * once that answer is overdue.
   */
  int resumeUnansweredCapturesAndVoids(int batch);

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
  int expireCheckouts(int batch);

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
