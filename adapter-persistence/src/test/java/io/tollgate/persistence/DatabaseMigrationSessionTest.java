package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The pool's sessions end a transaction left idle for two minutes, so that a dead instance's
 * locks are freed; migrations run in sessions of their own without that limit, since Flyway
 * keeps its lock in an idle transaction for as long as a migration (an index on a large table)
 * takes, and a migration cut short at two minutes would fail at every start.
 */
class DatabaseMigrationSessionTest {

  @Test
  void migrations_run_in_sessions_without_the_pools_idle_limit_and_the_pool_has_it() throws Exception {
    String url = TestDatabase.empty();
    Database.migrate(url, TestDatabase.user(), TestDatabase.password(), "classpath:db/session-check");

    try (Database db = Database.start(new DatabaseSettings(TestDatabase.empty(), TestDatabase.user(),
        TestDatabase.password(), null, 2))) {
      String pooled = db.jdbi().withHandle(h -> h.createQuery("SHOW idle_in_transaction_session_timeout")
          .mapTo(String.class).one());
      assertThat(pooled).isEqualTo(Database.IDLE_IN_TRANSACTION);
    }
  }
}
