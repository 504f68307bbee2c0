package io.tollgate.persistence;

import io.tollgate.persistence.testing.TestDatabase;
import java.util.Arrays;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.jdbi.v3.core.Jdbi;

/**
 * A fresh database migrated up to the last migration before one under test, whatever its
 * number, for a test to store what an older Tollgate stored and then run the rest.
 */
final class BeforeMigration {

  private final Flyway all;
  private final Jdbi jdbi;

  private BeforeMigration(Flyway all, Jdbi jdbi) {
    this.all = all;
    this.jdbi = jdbi;
  }

  static BeforeMigration of(String version) {
    String url = TestDatabase.empty();
    Flyway all = Flyway.configure().dataSource(url, TestDatabase.user(), TestDatabase.password())
        .locations("classpath:db/migration").load();
    String before = Arrays.stream(all.info().all()).map(MigrationInfo::getVersion)
        .filter(v -> v.compareTo(MigrationVersion.fromVersion(version)) < 0).max(MigrationVersion::compareTo)
        .orElseThrow().getVersion();
    Flyway.configure().dataSource(url, TestDatabase.user(), TestDatabase.password())
        .locations("classpath:db/migration").target(before).load().migrate();
    return new BeforeMigration(all, Jdbi.create(url, TestDatabase.user(), TestDatabase.password()));
  }

  Jdbi jdbi() {
    return jdbi;
  }

  /** Runs the migration under test and every one after it. */
  void migrateTheRest() {
    all.migrate();
  }
}
