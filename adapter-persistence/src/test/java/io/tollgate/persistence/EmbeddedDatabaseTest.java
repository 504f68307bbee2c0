package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedDatabaseTest {

  @Test
  void the_embedded_database_keeps_its_data_across_restarts(@TempDir Path dir) throws Exception {
    try (Database first = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      assertThat(first.isEmbedded()).isTrue();
      // durable: an acknowledged commit is flushed to disk first
      String fsync = first.jdbi().withHandle(h -> h.createQuery("SHOW fsync").mapTo(String.class).one());
      String synchronousCommit = first.jdbi().withHandle(h -> h.createQuery("SHOW synchronous_commit")
          .mapTo(String.class).one());
      assertThat(fsync).isEqualTo("on");
      assertThat(synchronousCommit).isEqualTo("on");
      first.jdbi().useHandle(h -> h.execute("INSERT INTO merchants (name, created) VALUES ('Kept', now())"));
    }
    try (Database second = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      String name = second.jdbi().withHandle(h -> h.createQuery("SELECT name FROM merchants").mapTo(String.class).one());
      assertThat(name).isEqualTo("Kept");
      Integer migrations = second.jdbi().withHandle(h -> h.createQuery(
          "SELECT count(*) FROM flyway_schema_history WHERE success").mapTo(Integer.class).one());
      assertThat(migrations).isGreaterThanOrEqualTo(1);
    }
  }

  /** What a failed statement says is logged: the statement, never the customer data bound to it. */
  @Test
  void a_failed_statement_names_its_statement_but_not_its_arguments() {
    Database db = io.tollgate.persistence.testing.TestDatabase.fresh();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> db.jdbi().useHandle(h -> h.createQuery(
                "SELECT 1 / 0 FROM merchants WHERE name <> :secret OR true")
            .bind("secret", "DE89370400440532013000 ann@example.com").mapTo(Integer.class).list()))
        .isInstanceOf(org.jdbi.v3.core.statement.StatementException.class)
        .hasMessageContaining("division by zero")
        .hasMessageContaining("[statement: \"SELECT 1 / 0 FROM merchants")
        .hasMessageNotContaining("DE89370400440532013000")
        .hasMessageNotContaining("ann@example.com");
  }
}
