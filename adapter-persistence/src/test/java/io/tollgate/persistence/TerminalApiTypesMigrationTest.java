package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.testing.TestDatabase;
import java.util.Arrays;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
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
    String url = TestDatabase.empty();
    Flyway all = Flyway.configure().dataSource(url, TestDatabase.user(), TestDatabase.password())
        .locations("classpath:db/migration").load();
    // the last migration before V24, whatever its number
    String before = Arrays.stream(all.info().all()).map(MigrationInfo::getVersion)
        .filter(v -> v.compareTo(MigrationVersion.fromVersion("24")) < 0).max(MigrationVersion::compareTo)
        .orElseThrow().getVersion();
    Flyway.configure().dataSource(url, TestDatabase.user(), TestDatabase.password())
        .locations("classpath:db/migration").target(before).load().migrate();
    Jdbi jdbi = Jdbi.create(url, TestDatabase.user(), TestDatabase.password());
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Old terminals', now())");
      h.execute("""
          INSERT INTO terminals (id, merchant_id, name, provider_name, api_code, api_name, api_types, created) VALUES
            (1, 1, 'Deposits and balance', 'P', 'SANDBOX', 'Sandbox', '{DEPOSIT,BALANCE}', now()),
            (2, 1, 'Command line default', 'P', 'SANDBOX', 'Sandbox', '{DEPOSIT,WITHDRAWAL,REFUND}', now()),
            (3, 1, 'No types', 'P', 'SANDBOX', 'Sandbox', '{}', now())""");
    });

    all.migrate();

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
