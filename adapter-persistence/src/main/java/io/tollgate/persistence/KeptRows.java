package io.tollgate.persistence;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Rarely changed rows read on every payment, kept a while: a change made through this process
 * is seen by every read that starts after it, one made elsewhere (another instance, the command
 * line on a shared database) within the time rows are kept.
 *
 * <p>Dropping the kept rows when a change is made is not enough: a read that began before the
 * change committed, and keeps what it read after the drop, would keep the old rows. So each
 * change is counted once it is visible ({@link #changed}), each row is kept with the count
 * seen before it was read, and a row kept before the latest change is read again.
 */
final class KeptRows<K, V> {

  private record Counted<V>(long changes, V value) {}

  private final Cache<K, Counted<V>> rows;
  private final AtomicLong changes = new AtomicLong();

  KeptRows(Duration kept, long maximumSize) {
    this.rows = Caffeine.newBuilder().expireAfterWrite(kept).maximumSize(maximumSize).build();
  }

  /** The rows of {@code key}: those kept since the latest change, or read with {@code read} and kept unless null. */
  V get(K key, Function<K, V> read) {
    long seen = changes.get();
    Counted<V> kept = rows.getIfPresent(key);
    if (kept != null && kept.changes() == seen) {
      return kept.value();
    }
    V value = read.apply(key);
    if (value != null) {
      rows.put(key, new Counted<>(seen, value));
    }
    return value;
  }

  /** After a change is visible (committed): every row read before it is read again. */
  void changed() {
    changes.incrementAndGet();
    rows.invalidateAll();
  }
}
