package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Masked card-group entries stored before V20 (first 6 digits, a '*' per hidden digit, last 4)
 * are keyed as the screen now matches them and listed as before (of two that become one key,
 * the first added); plain card groups keep their fingerprints.
 */
class MaskedCardKeysMigrationTest {

  @Test
  void masked_entries_stored_before_v20_are_keyed_by_their_leading_and_trailing_digits() {
    BeforeMigration db = BeforeMigration.of("20");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Old entries', now())");
      h.execute("""
          INSERT INTO entry_groups (id, merchant_id, kind, name, masked, created)
          VALUES (1, 1, 'CARD', 'Masked', true, now()), (2, 1, 'CARD', 'Plain', false, now())""");
      h.execute("""
          INSERT INTO group_entries (group_id, value, display, added) VALUES
            (1, '400000******0408', '400000******0408', now()),
            (1, '411111***1111', '411111***1111', now() - interval '1 day'),
            (1, '411111******1111', '411111******1111', now()),
            (1, '555500*********0107', '555500*********0107', now()),
            (2, 'fingerprint-of-a-pan', '400000******0002', now())""");
    });

    db.migrateTheRest();

    List<Map<String, Object>> rows = jdbi.withHandle(h -> h.createQuery(
        "SELECT group_id, value, display FROM group_entries ORDER BY group_id, value").mapToMap().list());
    assertThat(rows).extracting(r -> r.get("group_id") + " " + r.get("value") + " " + r.get("display")).containsExactly(
        "1 400000*0408 400000******0408",
        "1 411111*1111 411111***1111",
        "1 555500*0107 555500*********0107",
        "2 fingerprint-of-a-pan 400000******0002");
  }
}
