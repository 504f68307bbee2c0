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
}
