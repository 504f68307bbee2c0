package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Terminals of one merchant that share a name, whatever its case, when V27 makes names unique
 * per merchant: the oldest keeps it, the later ones are renamed with their id appended, again
 * where that name is taken too, and the upgrade goes through. Other merchants' names are theirs.
 */
class TerminalNamesMigrationTest {

  @Test
  void later_terminals_of_a_name_taken_in_their_merchant_are_renamed_with_their_id() {
    BeforeMigration db = BeforeMigration.of("27");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Twins', now()), (2, 'Other', now())");
      h.execute("""
          INSERT INTO terminals (id, merchant_id, name, provider_name, api_code, api_name, created) VALUES
            (1, 1, 'Acquirer', 'P', 'SANDBOX', 'Sandbox', now()),
            (2, 1, 'ACQUIRER', 'P', 'SANDBOX', 'Sandbox', now()),
            (3, 1, 'Acquirer', 'P', 'SANDBOX', 'Sandbox', now()),
            (4, 1, 'Bank', 'P', 'SANDBOX', 'Sandbox', now()),
            (5, 1, 'Bank #6', 'P', 'SANDBOX', 'Sandbox', now()),
            (6, 1, 'bank', 'P', 'SANDBOX', 'Sandbox', now()),
            (7, 2, 'Acquirer', 'P', 'SANDBOX', 'Sandbox', now())""");
    });

    db.migrateTheRest();

    List<String> names = jdbi.withHandle(h -> h.createQuery(
        "SELECT id || ' ' || merchant_id || ' ' || name FROM terminals ORDER BY id").mapTo(String.class).list());
    assertThat(names).containsExactly(
        "1 1 Acquirer",
        "2 1 ACQUIRER #2",
        "3 1 Acquirer #3",
        "4 1 Bank",
        "5 1 Bank #6",
        "6 1 bank #6 #6",
        "7 2 Acquirer");
    assertThatThrownBy(() -> jdbi.useHandle(h -> h.execute("""
        INSERT INTO terminals (id, merchant_id, name, provider_name, api_code, api_name, created)
        VALUES (8, 1, 'acquirer', 'P', 'SANDBOX', 'Sandbox', now())""")))
        .hasMessageContaining("terminals_merchant_name");
  }
}
