package io.tollgate.persistence;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Rarely edited reference rows read on every payment (a shop's connectors and anti-fraud
 * profile): kept for a few seconds so that a burst of payments does not read them again each
 * time. Edits made through this process clear it at once; edits from elsewhere (another
 * instance, the command line on a shared database) are seen within {@code ttl}.
 */
final class ShortLivedCache<K, V> {

  private static final int MAX_ENTRIES = 10_000;

  private record Entry<V>(V value, long expiresAt) {}

  private final Map<K, Entry<V>> entries = new ConcurrentHashMap<>();
  private final long ttlNanos;

  ShortLivedCache(Duration ttl) {
    this.ttlNanos = ttl.toNanos();
  }

  V get(K key, Function<K, V> load) {
    long now = System.nanoTime();
    Entry<V> e = entries.get(key);
    if (e != null && now - e.expiresAt() < 0) {
      return e.value();
    }
    V value = load.apply(key);
    if (entries.size() >= MAX_ENTRIES) {
      entries.clear();
    }
    entries.put(key, new Entry<>(value, now + ttlNanos));
    return value;
  }

  void clear() {
    entries.clear();
  }
}
