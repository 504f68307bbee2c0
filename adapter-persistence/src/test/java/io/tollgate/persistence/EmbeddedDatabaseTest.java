package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedDatabaseTest {

  @Test
  void the_embedded_database_keeps_its_data_across_restarts(@TempDir Path data) throws Exception {
    Path dir = data.resolve("postgres");
    ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(Database.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    log.addAppender(lines);
    try (Database first = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      // an operator sees the schema's version, and that the migrations ran
      assertThat(lines.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
          .anySatisfy(line -> assertThat(line).matches("database schema migrated from version none to \\d+ \\(\\d+ migrations\\)"));
      assertThat(first.isEmbedded()).isTrue();
      // durable: an acknowledged commit is flushed to disk first
      String fsync = first.jdbi().withHandle(h -> h.createQuery("SHOW fsync").mapTo(String.class).one());
      String synchronousCommit = first.jdbi().withHandle(h -> h.createQuery("SHOW synchronous_commit")
          .mapTo(String.class).one());
      assertThat(fsync).isEqualTo("on");
      assertThat(synchronousCommit).isEqualTo("on");
      // a dead instance's transaction, and its locks, end within two minutes
      String idleInTransaction = first.jdbi().withHandle(h -> h.createQuery("SHOW idle_in_transaction_session_timeout")
          .mapTo(String.class).one());
      assertThat(idleInTransaction).isEqualTo("2min");
      first.jdbi().useHandle(h -> h.execute("INSERT INTO merchants (name, created) VALUES ('Kept', now())"));
    }
    try (Database second = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      assertThat(lines.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
          .anySatisfy(line -> assertThat(line).matches("database schema at version \\d+"));
      log.detachAppender(lines);
      String name = second.jdbi().withHandle(h -> h.createQuery("SELECT name FROM merchants").mapTo(String.class).one());
      assertThat(name).isEqualTo("Kept");
      Integer migrations = second.jdbi().withHandle(h -> h.createQuery(
          "SELECT count(*) FROM flyway_schema_history WHERE success").mapTo(Integer.class).one());
      assertThat(migrations).isGreaterThanOrEqualTo(1);
    }
  }

  /**
   * The embedded server listens on a loopback port that every user of the machine can reach: a
   * connection without its superuser's password, kept readable by the service's user only in the
   * data directory, is refused. A cluster an older Tollgate created, trusting every connection
   * and with no password kept, is given one when it starts.
   */
  @Test
  void the_embedded_server_takes_only_connections_with_its_password(@TempDir Path data) throws Exception {
    Path dir = data.resolve("postgres");
    String url;
    try (Database first = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      url = first.jdbcUrl();
      assertRefusedWithout(url);
    }
    Path passwordFile = dir.resolve(Database.PASSWORD_FILE);
    assertThat(java.nio.file.Files.getPosixFilePermissions(passwordFile))
        .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    String firstPassword = java.nio.file.Files.readString(passwordFile);

    // as an older Tollgate left it
    java.nio.file.Files.delete(passwordFile);
    Path hba = dir.resolve("pg_hba.conf");
    java.nio.file.Files.writeString(hba, java.nio.file.Files.readString(hba).replace("scram-sha-256", "trust"));
    try (Database upgraded = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      Integer one = upgraded.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one());
      assertThat(one).isEqualTo(1);
      assertRefusedWithout(upgraded.jdbcUrl());
    }
    assertThat(java.nio.file.Files.readString(passwordFile)).isNotEqualTo(firstPassword);

    // a start cut short after the password was kept, before the server was told to ask for it
    java.nio.file.Files.writeString(hba, java.nio.file.Files.readString(hba).replace("scram-sha-256", "trust"));
    try (Database resumed = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      assertRefusedWithout(resumed.jdbcUrl());
    }
    // an empty file (a disk that filled up) is no password: a new one is given
    java.nio.file.Files.writeString(passwordFile, "");
    try (Database renewed = Database.start(new DatabaseSettings(null, null, null, dir, 2))) {
      assertRefusedWithout(renewed.jdbcUrl());
    }
    assertThat(java.nio.file.Files.readString(passwordFile)).hasSize(32);
  }

  private static void assertRefusedWithout(String url) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> java.sql.DriverManager.getConnection(url, "postgres", "")
        .close()).isInstanceOf(java.sql.SQLException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> java.sql.DriverManager.getConnection(url, "postgres",
        "guess").close()).isInstanceOf(java.sql.SQLException.class).hasMessageContaining("password authentication failed");
  }

  /**
   * Two processes on one data directory: the second is told at once that the directory is in
   * use, instead of waiting a minute for a server that cannot start; once the first has stopped,
   * it starts.
   */
  @Test
  void a_data_directory_in_use_is_refused_at_once_and_free_again_after_close(@TempDir Path data) {
    Path dir = data.resolve("postgres");
    DatabaseSettings settings = new DatabaseSettings(null, null, null, dir, 2);
    try (Database first = Database.start(settings)) {
      long started = System.nanoTime();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> Database.start(settings))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("in use by another Tollgate process");
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - started))
          .as("well within the minute a server start is waited for").isLessThan(java.time.Duration.ofSeconds(20));
      assertThat(DataDirectoryLock.leftBehindServer(dir)).as("the first's server runs on").isPresent();
    }
    assertThat(DataDirectoryLock.leftBehindServer(dir)).as("stopped with its service").isEmpty();
    try (Database again = Database.start(settings)) {
      assertThat(again.isEmbedded()).isTrue();
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

  /**
   * A database that answers but takes no writes (read-only, or a standby after a failover) is
   * not ready: payments, jobs and webhooks cannot work on it.
   */
  @Test
  void a_database_that_takes_no_writes_is_not_healthy() throws Exception {
    Database db = io.tollgate.persistence.testing.TestDatabase.fresh();
    assertThat(db.health().reachable()).isTrue();
    try (java.sql.Connection admin = java.sql.DriverManager.getConnection(db.jdbcUrl(),
        io.tollgate.persistence.testing.TestDatabase.user(), io.tollgate.persistence.testing.TestDatabase.password());
        java.sql.Statement s = admin.createStatement()) {
      s.execute("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$");
      s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
          + " WHERE datname = current_database() AND pid <> pg_backend_pid()");
      // the pool finds its terminated connections out one by one, then opens read-only ones
      Database.Health readOnly = db.health();
      for (int i = 0; i < 50 && (readOnly.problem() == null || !readOnly.problem().contains("takes no writes")); i++) {
        Thread.sleep(100);
        readOnly = db.health();
      }
      s.execute("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I RESET default_transaction_read_only', current_database()); END $$");
      assertThat(readOnly.reachable()).isFalse();
      assertThat(readOnly.problem()).contains("takes no writes");
    }
  }

  /**
   * A check whose database stops answering in the middle (as over a connection whose peer a
   * network partition took away; here a lock on the migration history holds the answer back)
   * ends within the network timeout instead of waiting on the socket for hours.
   */
  @Test
  void a_check_whose_answer_does_not_come_ends_within_the_network_timeout() throws Exception {
    Database db = io.tollgate.persistence.testing.TestDatabase.fresh();
    try (java.sql.Connection admin = java.sql.DriverManager.getConnection(db.jdbcUrl(),
        io.tollgate.persistence.testing.TestDatabase.user(), io.tollgate.persistence.testing.TestDatabase.password());
        java.sql.Statement s = admin.createStatement()) {
      admin.setAutoCommit(false);
      s.execute("LOCK TABLE flyway_schema_history IN ACCESS EXCLUSIVE MODE");
      long started = System.nanoTime();
      java.util.concurrent.CompletableFuture<Database.Health> check =
          java.util.concurrent.CompletableFuture.supplyAsync(db::health);
      try {
        Database.Health health = check.get(Database.HEALTH_NETWORK_TIMEOUT_MILLIS + 10_000L,
            java.util.concurrent.TimeUnit.MILLISECONDS);
        assertThat(health.reachable()).isTrue();
        assertThat(health.migrated()).isFalse();
        assertThat(health.problem()).startsWith("cannot read the migration history");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - started))
            .isGreaterThanOrEqualTo(java.time.Duration.ofMillis(Database.HEALTH_NETWORK_TIMEOUT_MILLIS));
      } finally {
        admin.rollback();
      }
      assertThat(db.health()).as("the pool's connections are whole again")
          .isEqualTo(new Database.Health(true, true, null));
    } finally {
      db.close();
    }
  }
}
