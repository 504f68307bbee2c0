package io.tollgate.persistence;

import io.tollgate.application.port.out.IdempotencyRepository;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * The claim is an upsert on the (shop, key) primary key: PostgreSQL makes a second transaction
 * inserting the same key wait until the first commits or rolls back, so concurrent duplicates
 * are serialized without an explicit lock. A claim committed before its request acts (an
 * action's) is told apart from a later one of the same key by its time, {@code created}.
 */
final class JdbiIdempotencyRepository implements IdempotencyRepository {

  private final Jdbi jdbi;

  JdbiIdempotencyRepository(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public Optional<PriorUse> claim(ShopId shop, String key, String fingerprint, Instant now, Instant expiredBefore) {
    return jdbi.inTransaction(h -> {
      boolean ours = h.createQuery("""
              INSERT INTO idempotency_keys (shop_id, idempotency_key, fingerprint, payment_id, created)
              VALUES (:shop, :key, :fingerprint, NULL, :now)
              ON CONFLICT (shop_id, idempotency_key) DO UPDATE
                  SET fingerprint = excluded.fingerprint, payment_id = NULL, answer = NULL, created = excluded.created,
                      acted = false
                  WHERE idempotency_keys.created < :expiredBefore
              RETURNING true
              """)
          .bind("shop", shop.value()).bind("key", key).bind("fingerprint", fingerprint)
          .bind("now", now).bind("expiredBefore", expiredBefore)
          .mapTo(Boolean.class).findOne().isPresent();
      if (ours) {
        return Optional.<PriorUse>empty();
      }
      return h.createQuery("""
              SELECT fingerprint, payment_id, created FROM idempotency_keys
              WHERE shop_id = :shop AND idempotency_key = :key
              """)
          .bind("shop", shop.value()).bind("key", key)
          .map((rs, ctx) -> new PriorUse(rs.getString("fingerprint"),
              rs.getString("payment_id") == null ? null : new PaymentId(rs.getString("payment_id")),
              rs.getObject("created", java.time.OffsetDateTime.class).toInstant()))
          .findOne();
    });
  }

  @Override
  public boolean takeOver(ShopId shop, String key, Instant claimed, Instant now) {
    return jdbi.withHandle(h -> h.createUpdate("""
            UPDATE idempotency_keys SET created = :now
            WHERE shop_id = :shop AND idempotency_key = :key AND created = :claimed AND payment_id IS NULL
            """)
        .bind("shop", shop.value()).bind("key", key).bind("claimed", claimed).bind("now", now).execute()) == 1;
  }

  @Override
  public void release(ShopId shop, String key, Instant claimed) {
    jdbi.useHandle(h -> h.createUpdate("""
            DELETE FROM idempotency_keys
            WHERE shop_id = :shop AND idempotency_key = :key AND created = :claimed AND payment_id IS NULL
            """)
        .bind("shop", shop.value()).bind("key", key).bind("claimed", claimed).execute());
  }

  @Override
  public void recordActed(ShopId shop, String key) {
    jdbi.useHandle(h -> h.createUpdate("""
            UPDATE idempotency_keys SET acted = true
            WHERE shop_id = :shop AND idempotency_key = :key AND payment_id IS NULL AND NOT acted
            """)
        .bind("shop", shop.value()).bind("key", key).execute());
  }

  @Override
  public boolean acted(ShopId shop, String key) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT acted OR payment_id IS NOT NULL FROM idempotency_keys
            WHERE shop_id = :shop AND idempotency_key = :key
            """)
        .bind("shop", shop.value()).bind("key", key).mapTo(Boolean.class).findOne().orElse(false));
  }

  @Override
  public int forgetClaimedBefore(Instant before, int limit) {
    // By key, with the time condition again: a key chosen here that a new request claims (used
    // again past its time, which updates its row) before the delete reaches it is checked again
    // as that request left it, and kept; deleted, its retry would make a second payment. (By
    // ctid, PostgreSQL releases before the 2025 fix to the recheck of TID scans deleted it.)
    return jdbi.withHandle(h -> h.createUpdate("""
            DELETE FROM idempotency_keys k USING (
              SELECT shop_id, idempotency_key FROM idempotency_keys WHERE created < :before
              ORDER BY created LIMIT :limit) expired
            WHERE k.shop_id = expired.shop_id AND k.idempotency_key = expired.idempotency_key
              AND k.created < :before
            """)
        .bind("before", before).bind("limit", limit).execute());
  }

  @Override
  public void complete(ShopId shop, String key, PaymentId payment) {
    jdbi.useHandle(h -> h.createUpdate("""
            UPDATE idempotency_keys
               SET payment_id = :payment, answer = (SELECT to_jsonb(p) FROM payments p WHERE p.id = :payment)
            WHERE shop_id = :shop AND idempotency_key = :key AND payment_id IS NULL
            """)
        .bind("payment", payment.value()).bind("shop", shop.value()).bind("key", key).execute());
  }

  @Override
  public void completeUnanswered(ShopId shop, String key, PaymentId payment) {
    jdbi.useHandle(h -> h.createUpdate("""
            UPDATE idempotency_keys SET payment_id = :payment
            WHERE shop_id = :shop AND idempotency_key = :key AND payment_id IS NULL
            """)
        .bind("payment", payment.value()).bind("shop", shop.value()).bind("key", key).execute());
  }
}
