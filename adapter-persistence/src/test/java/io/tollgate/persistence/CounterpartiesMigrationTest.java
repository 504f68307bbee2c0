package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * V32 on counterparties stored before it: the copies that importing a file again made become
 * one, the first, with what the latest copy says; counterparties that share only an empty code
 * (a JSON export's "uniqueCode": "") are different ones and all stay (the review of V32 found
 * them deleted).
 */
class CounterpartiesMigrationTest {

  @Test
  void v32_joins_imported_copies_and_keeps_counterparties_that_share_only_an_empty_code() {
    BeforeMigration db = BeforeMigration.of("32");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Importer', now()), (2, 'Other', now())");
      h.execute("""
          INSERT INTO counterparties (id, merchant_id, name, affiliate_id, unique_code, created) VALUES
            (1, 1, 'Alpha Ltd', NULL, '', now()),
            (2, 1, 'Beta GmbH', NULL, '', now()),
            (3, 1, 'Gamma SA', NULL, ' ', now()),
            (4, 1, 'Partner Ltd', 'A-1', 'U1', now()),
            (5, 1, 'Partner Limited', 'A-2', 'U1', now()),
            (6, 1, 'No Code Ltd', 'A-3', NULL, now()),
            (7, 1, 'No Code Ltd', 'A-4', NULL, now()),
            (8, 2, 'Partner Ltd', 'B-1', 'U1', now()),
            (9, 2, 'Tabbed Ltd', NULL, '\t', now()),
            (10, 2, 'Trailing Ltd', NULL, 'U2\n', now())""");
    });

    db.migrateTheRest();

    List<String> rows = jdbi.withHandle(h -> h.createQuery("""
            SELECT id || ' ' || merchant_id || ' ' || name || ' ' || coalesce(affiliate_id, '-') || ' '
                || coalesce(unique_code, '-') FROM counterparties ORDER BY id
            """).mapTo(String.class).list());
    assertThat(rows).containsExactly("1 1 Alpha Ltd - -", "2 1 Beta GmbH - -", "3 1 Gamma SA - -",
        "4 1 Partner Limited A-2 U1", "6 1 No Code Ltd A-4 -", "8 2 Partner Ltd B-1 U1",
        "9 2 Tabbed Ltd - -", "10 2 Trailing Ltd - U2");
  }
}
