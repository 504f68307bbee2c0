package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Rows kept are read again after a change, also when a read of the old rows ends after it. */
class KeptRowsTest {

  private final KeptRows<Long, String> kept = new KeptRows<>(Duration.ofMinutes(1), 100);
  private final AtomicInteger reads = new AtomicInteger();
  private String row = "connector A";

  private String read(long shop) {
    reads.incrementAndGet();
    return row;
  }

  @Test
  void rows_are_kept_until_a_change() {
    assertThat(kept.get(1L, this::read)).isEqualTo("connector A");
    assertThat(kept.get(1L, this::read)).isEqualTo("connector A");
    assertThat(reads).hasValue(1);

    row = "connector B";
    kept.changed();
    assertThat(kept.get(1L, this::read)).isEqualTo("connector B");
    assertThat(reads).hasValue(2);
  }

  /**
   * A payment routed while a connector was being added read the old rows before the change
   * committed and kept them after the change dropped the kept rows: the next payment was
   * routed by them for the rest of the time rows are kept.
   */
  @Test
  void a_read_that_began_before_a_change_is_not_kept_past_it() {
    String readBefore = kept.get(1L, shop -> {
      String old = read(shop);
      row = "connector B"; // the change commits while this read is under way
      kept.changed();
      return old;
    });

    assertThat(readBefore).isEqualTo("connector A");
    assertThat(kept.get(1L, this::read)).isEqualTo("connector B");
  }

  @Test
  void nothing_read_is_not_kept() {
    assertThat(kept.get(2L, shop -> null)).isNull();
    assertThat(kept.get(2L, this::read)).isEqualTo("connector A");
  }
}
