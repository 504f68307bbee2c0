package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Terminals that exist when routing starts to read their API types keep taking every payment
 * type they were sent before V24, whatever types they were created with; their BALANCE stays
 * as it was. A terminal written without types afterwards takes every payment type.
 */
class TerminalApiTypesMigrationTest {

  @Test
  void terminals_created_before_v24_take_every_payment_type() {
    BeforeMigration db = BeforeMigration.of("24");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Old terminals', now())");
      h.execute("""
          INSERT INTO terminals (id, merchant_id, name, provider_name, api_code, api_name, api_types, created) VALUES
            (1, 1, 'Deposits and balance', 'P', 'SANDBOX', 'Sandbox', '{DEPOSIT,BALANCE}', now()),
            (2, 1, 'Command line default', 'P', 'SANDBOX', 'Sandbox', '{DEPOSIT,WITHDRAWAL,REFUND}', now()),
            (3, 1, 'No types', 'P', 'SANDBOX', 'Sandbox', '{}', now())""");
    });

    db.migrateTheRest();

    jdbi.useHandle(h -> h.execute("""
        INSERT INTO terminals (id, merchant_id, name, provider_name, api_code, api_name, created)
        VALUES (4, 1, 'Written without types', 'P', 'SANDBOX', 'Sandbox', now())"""));
    List<String> rows = jdbi.withHandle(h -> h.createQuery(
        "SELECT name || ': ' || array_to_string(api_types, ',') FROM terminals ORDER BY id").mapTo(String.class).list());
    assertThat(rows).containsExactly(
        "Deposits and balance: DEPOSIT,BALANCE,WITHDRAWAL,REFUND",
        "Command line default: DEPOSIT,WITHDRAWAL,REFUND",
        "No types: DEPOSIT,WITHDRAWAL,REFUND",
        "Written without types: DEPOSIT,WITHDRAWAL,REFUND");
  }
}
