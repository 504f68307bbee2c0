package io.tollgate.application.port.out;

import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.Optional;

/**
 * Remembers which request an {@code Idempotency-Key} was first used for.
 *
 * <p>{@link #claim} must block while another open transaction holds the same key (a unique
 * index does this in PostgreSQL), so that two concurrent requests with one key see each other.
 */
public interface IdempotencyRepository {

  /**
   * Claims the key for this request in the current transaction.
   *
   * @param expiredBefore a use of the key before this has expired, and the key is claimed anew
   * @return empty when the key is new (or expired) and is now ours; otherwise the earlier use,
   *     whose payment is null while its request has not recorded one ({@link #complete})
   */
  Optional<PriorUse> claim(ShopId shop, String key, String fingerprint, Instant now, Instant expiredBefore);

  /**
   * Takes over a claim whose request never recorded its payment and is taken to have been cut
   * short: only if it is still the claim made at {@code claimed}, so that of several retries one
   * takes it over.
   *
   * @return whether the key is now this request's, claimed at {@code now}
   */
  boolean takeOver(ShopId shop, String key, Instant claimed, Instant now);

  /**
   * Gives up the claim made at {@code claimed}, whose request failed and recorded no payment, so
   * that the key is free for a retry; a key another request has claimed since, or whose request
   * completed, is left as it is.
   */
  void release(ShopId shop, String key, Instant claimed);

  /**
   * Records the payment the claimed key created or acted on, as it stands now: what the first
   * request is answered, and every replay after it. A key whose payment is recorded already (by
   * an earlier request with it that was taken to be cut short, and finished after all) keeps it.
   */
  void complete(ShopId shop, String key, PaymentId payment);

  /**
   * Records the payment of a claimed key whose request failed, or was cut short, after it changed
   * the payment ({@link #acted}), and no answer: that request answered none, so every replay is
   * answered with the payment as it stands at the replay ({@link PaymentRepository#findAsAnswered}
   * finds nothing), not as it stood when the request stopped. A key whose payment is recorded
   * already keeps it, and its answer.
   */
  void completeUnanswered(ShopId shop, String key, PaymentId payment);

  /**
   * Records, in the transaction that stores a change of the key's payment, that the request
   * holding the key made it (a step it stored, or the terminal's answer to a capture or void it
   * asked): of a request that failed or was cut short, only such a change is its answer, not one
   * another request made meanwhile. A key not claimed, or completed, is left as it is.
   */
  void recordActed(ShopId shop, String key);

  /** Whether the request holding the key changed its payment ({@link #recordActed}) or recorded its answer. */
  boolean acted(ShopId shop, String key);

  /**
   * Forgets up to {@code limit} keys claimed before {@code before}, which {@link #claim} would
   * take as expired anyway.
   *
   * @return how many were forgotten
   */
  int forgetClaimedBefore(Instant before, int limit);

  /**
   * @param claimed when the request that holds the key claimed it (for {@link #takeOver})
   */
  record PriorUse(String fingerprint, PaymentId paymentId, Instant claimed) {}
}
