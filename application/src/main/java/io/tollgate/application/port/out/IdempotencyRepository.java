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
   * @param unfinishedBefore a claim before this whose request never recorded its payment
   *     ({@link #complete}) was cut short, and the key is claimed anew
   * @return empty when the key is new (or expired, or left unfinished) and is now ours;
   *     otherwise the earlier use, whose payment is null while its request is still running
   */
  Optional<PriorUse> claim(ShopId shop, String key, String fingerprint, Instant now, Instant expiredBefore,
      Instant unfinishedBefore);

  /**
   * Gives up a claim whose request failed and recorded no payment, so that the key is free for
   * a retry; a key whose request completed, or that another request holds, is left as it is.
   */
  void release(ShopId shop, String key, String fingerprint);

  /**
   * Records the payment the claimed key created or acted on, as it stands now in this
   * transaction: what the first request is answered, and every replay after it.
   */
  void complete(ShopId shop, String key, PaymentId payment);

  record PriorUse(String fingerprint, PaymentId paymentId) {}
}
