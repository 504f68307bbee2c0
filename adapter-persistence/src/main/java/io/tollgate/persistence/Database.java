package io.tollgate.persistence;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.TemplateEngine;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL database: an external server, or an embedded one for sandbox use and tests;
 * a connection pool; the schema migrated to the latest version.
 */
public final class Database implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Database.class);

  private final EmbeddedPostgres embedded;
  private final DataDirectoryLock lock;
  private final HikariDataSource dataSource;
  private final Jdbi jdbi;
  private final String jdbcUrl;

  private Database(EmbeddedPostgres embedded, DataDirectoryLock lock, HikariDataSource dataSource, String jdbcUrl) {
    this.embedded = embedded;
    this.lock = lock;
    this.dataSource = dataSource;
    this.jdbcUrl = jdbcUrl;
    this.jdbi = Jdbi.create(dataSource).installPlugin(new PostgresPlugin());
    // Every statement is plain SQL with named parameters; nothing is templated, so Jdbi need not
    // scan each one for <attributes> (about 1% of the CPU of a read by id, in a profile).
    jdbi.setTemplateEngine(TemplateEngine.NOP);
    PreparedArgumentCache.install(jdbi);
    // A failed statement's message names the statement but not its arguments: they are
    // customers' names, e-mail and bank account numbers, card tokens, and the message is logged.
    jdbi.getConfig(org.jdbi.v3.core.statement.StatementExceptions.class).setMessageRendering(Database::withoutArguments);
  }

  static String withoutArguments(org.jdbi.v3.core.statement.StatementException e) {
    var context = e.getStatementContext();
    String sql = context == null || context.getRawSql() == null ? null : context.getRawSql().strip().replaceAll("\\s+", " ");
    return e.getShortMessage() + (sql == null ? "" : " [statement: \"" + (sql.length() > 200 ? sql.substring(0, 200) + "…" : sql)
        + "\"]");
  }

  /** How long the server keeps a session idle inside a transaction before it ends it, locks and all. */
  static final String IDLE_IN_TRANSACTION = "2min";

  public static Database start(DatabaseSettings settings) {
    EmbeddedPostgres embedded = null;
    DataDirectoryLock lock = null;
    String url = settings.url();
    String user = settings.user();
    String password = settings.password();
    try {
      if (url == null) {
        if (settings.embeddedDataDirectory() != null) {
          lock = DataDirectoryLock.take(settings.embeddedDataDirectory());
        }
        embedded = startEmbedded(settings.embeddedDataDirectory());
        url = embedded.getJdbcUrl("postgres", "postgres");
        user = "postgres";
        password = "";
      }
      HikariDataSource pool = pool(url, user, password, settings.maxPoolSize());
      try {
        migrate(pool);
      } catch (RuntimeException e) {
        pool.close();
        throw e;
      }
      return new Database(embedded, lock, pool, url);
    } catch (RuntimeException e) {
      closeQuietly(embedded);
      if (lock != null) {
        lock.release();
      }
      throw e;
    }
  }

  private static EmbeddedPostgres startEmbedded(Path dataDirectory) {
    try {
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
          .setPort(freePort())
          .setPGStartupWait(Duration.ofSeconds(60))
          .setServerConfig("max_connections", "300")
          // A database with a data directory keeps payments: a commit is on disk before the
          // answer that reports it (the embedded server's own default would acknowledge a
          // commit up to a few hundred milliseconds before writing it). A throwaway one skips both.
          .setServerConfig("fsync", dataDirectory == null ? "off" : "on")
          .setServerConfig("synchronous_commit", dataDirectory == null ? "off" : "on");
      if (dataDirectory != null) {
        Files.createDirectories(dataDirectory);
        builder.setDataDirectory(dataDirectory).setCleanDataDirectory(false);
        LOG.info("starting embedded PostgreSQL with data in {}", dataDirectory);
      }
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static HikariDataSource pool(String url, String user, String password, int maxPoolSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(maxPoolSize);
    config.setMinimumIdle(Math.min(2, maxPoolSize));
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(2_000);
    config.setInitializationFailTimeout(30_000);
    config.setPoolName("tollgate-db");
    // An instance whose host dies, or is cut off, inside a transaction leaves its session, and
    // the row locks it holds, on the server until TCP notices, hours later: every job of every
    // other instance that reaches one of those payments would wait on it. A transaction is never
    // idle longer than a processor call, which must answer well within two minutes.
    config.setConnectionInitSql("SET idle_in_transaction_session_timeout = '" + IDLE_IN_TRANSACTION + "'");
    config.addDataSourceProperty("tcpKeepAlive", "true");
    return new HikariDataSource(config);
  }

  private static void migrate(DataSource dataSource) {
    Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration")
        .load()
        .migrate();
  }

  public Jdbi jdbi() {
    return jdbi;
  }

  /**
   * Records, on first use, the digest of the master key this database's secrets are sealed
   * with, and refuses a process that brings another.
   *
   * @param digest a keyed digest of a constant under the process's master key
   * @throws IllegalStateException when the database's secrets are sealed under another key
   */
  public void requireMasterKey(String digest) {
    String recorded = jdbi.withHandle(h -> h.createQuery("""
            INSERT INTO master_key_check (digest, created) VALUES (:digest, now())
            ON CONFLICT (only_row) DO UPDATE SET digest = master_key_check.digest
            RETURNING digest""").bind("digest", digest).mapTo(String.class).one());
    if (!recorded.equals(digest)) {
      throw new IllegalStateException("this database's secrets are sealed with another master key: give this "
          + "process the same TOLLGATE_MASTER_KEY (or the same TOLLGATE_DATA_DIR, whose master.key holds it) as "
          + "the service that created them");
    }
  }

  /** What the readiness check needs to know about the database. */
  public record Health(boolean reachable, boolean migrated, String problem) {}

  /**
   * Whether a connection can be had within two seconds, the database takes writes (not a
   * standby after a failover, not read-only), and every migration is applied.
   */
  public Health health() {
    try (java.sql.Connection c = dataSource.getConnection()) {
      if (!c.isValid(2)) {
        return new Health(false, false, "the database does not answer");
      }
      try (java.sql.Statement s = c.createStatement();
          java.sql.ResultSet rs = s.executeQuery(
              "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'")) {
        if (rs.next() && rs.getBoolean(1)) {
          return new Health(false, false, "the database takes no writes (read-only or a standby)");
        }
      }
    } catch (java.sql.SQLException | RuntimeException e) {
      return new Health(false, false, "no database connection: " + e.getMessage());
    }
    try {
      int pending = Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").load()
          .info().pending().length;
      return pending == 0 ? new Health(true, true, null)
          : new Health(true, false, pending + " migrations are not applied");
    } catch (RuntimeException e) {
      return new Health(true, false, "cannot read the migration history: " + e.getMessage());
    }
  }

  /** Publishes the connection pool's metrics (a Micrometer {@code MeterRegistry}). */
  public void publishPoolMetrics(Object meterRegistry) {
    if (dataSource.getMetricRegistry() == null) {
      dataSource.setMetricRegistry(meterRegistry);
    }
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public String jdbcUrl() {
    return jdbcUrl;
  }

  public boolean isEmbedded() {
    return embedded != null;
  }

  @Override
  public void close() {
    dataSource.close();
    closeQuietly(embedded);
    if (lock != null) {
      lock.release();
    }
  }

  private static void closeQuietly(EmbeddedPostgres embedded) {
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        LOG.warn("error while stopping the embedded PostgreSQL", e);
      }
    }
  }
}
