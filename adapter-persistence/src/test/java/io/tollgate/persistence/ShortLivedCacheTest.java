package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ShortLivedCacheTest {

  @Test
  void a_value_is_loaded_once_until_it_expires_or_the_cache_is_cleared() throws InterruptedException {
    AtomicInteger loads = new AtomicInteger();
    ShortLivedCache<Long, String> cache = new ShortLivedCache<>(Duration.ofMillis(200));
    assertThat(cache.get(1L, k -> "v" + loads.incrementAndGet())).isEqualTo("v1");
    assertThat(cache.get(1L, k -> "v" + loads.incrementAndGet())).isEqualTo("v1");
    assertThat(cache.get(2L, k -> "v" + loads.incrementAndGet())).isEqualTo("v2");

    cache.clear();
    assertThat(cache.get(1L, k -> "v" + loads.incrementAndGet())).isEqualTo("v3");

    Thread.sleep(250);
    assertThat(cache.get(1L, k -> "v" + loads.incrementAndGet())).isEqualTo("v4");
    assertThat(loads).hasValue(4);
  }
}
