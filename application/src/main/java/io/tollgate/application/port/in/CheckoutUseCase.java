package io.tollgate.application.port.in;

import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.shop.Shop;
import java.time.Instant;

/** What the customer does on the hosted checkout page; the payment id is the only credential. */
public interface CheckoutUseCase {

  /**
   * The payment and its shop, for showing the page; a checkout or 3-D Secure challenge past the
   * shop's checkout timeout is cancelled first (1.04), as the expiry job would cancel it.
   */
  CheckoutView view(String paymentId);

  /**
   * The customer entered a card: CHECKOUT, then processing (or the 3-D Secure step). A card the
   * checks refuse is {@link io.tollgate.domain.DomainException.Invalid}, each violation named by
   * the {@link CardInput} field to correct, or {@code expiryDate} for a month and year that are
   * each well formed but together already past. A deposit whose card came with the request
   * takes no other (a conflict).
   */
  Payment submitCard(String paymentId, CardInput card);

  /**
   * A card given with the request (StS mode): processing starts without the card form. The
   * customer's own act (the page's form, which its script sends at once), never a look at the
   * page, which a link preview or a mail scanner may take first.
   */
  Payment processCardOnFile(String paymentId);

  /** The customer chose to pay a BANKTRANSFER deposit: PENDING with the bank details in {@code externalRefs}. */
  Payment startBankTransfer(String paymentId);

  /** The customer answered the issuer's 3-D Secure challenge, whichever it is now. */
  default Payment completeChallenge(String paymentId, boolean passed) {
    return completeChallenge(paymentId, passed, null);
  }

  /**
   * The customer answered the 3-D Secure challenge of that attempt ({@link CheckoutView#challengeAttempt}):
   * an answer to an earlier challenge, the form sent again after a cascade brought another
   * terminal's, is refused (a conflict, {@code challenge_replaced}; the page then shows the
   * challenge of now) and changes nothing.
   */
  Payment completeChallenge(String paymentId, boolean passed, Integer attempt);

  /**
   * The customer cancelled: CANCELLED with 2.00; after the shop's checkout timeout, CANCELLED with
   * 1.04, as the expiry job would cancel it: the time ran out before the customer did.
   */
  Payment cancelByCustomer(String paymentId);

  /**
   * @param unanswered the card was sent to its terminal and its answer is not stored yet: the
   *     payment is being processed, and waits on no challenge
   * @param challengeAttempt the attempt whose 3-D Secure challenge the payment waits on; 0 when none
   * @param payBy when the customer's time to answer (the card form, the choice of a transfer, the
   *     challenge) ends and the payment is cancelled 1.04: the shop's checkout timeout from the
   *     checkout's start or the challenge's; null when the payment waits on nothing of theirs
   * @param movedBy the form of the customer's whose act the payment's newest step is: the act's own
   *     step or one that follows it (the screen, the terminals' answers, a cascade); null when it is
   *     another's, such as the bank's answer to a transfer or a cancel for the timeout
   */
  record CheckoutView(Payment payment, Shop shop, boolean unanswered, int challengeAttempt, Instant payBy,
      Form movedBy) {}

  /** The page's forms that move a payment, by what they do. */
  enum Form {
    /** A card sent: typed into the card form, or the one that came with the payment. */
    CARD,
    /** The 3-D Secure challenge answered. */
    CHALLENGE,
    /** A bank transfer opened: the bank details asked for. */
    BANK_TRANSFER,
    /** Cancelled by the customer. */
    CANCEL
  }
}
