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

  /**
   * Which schemas a start brings up to this release's. An upgrade is the service's: the upgrade
   * notes ask for the older release's instances to be stopped before the first new one starts,
   * and an operator's command from the new release's jar, run beside the instances still at
   * work, upgraded their database under them.
   */
  public enum Upgrade {
    /** Any: the service's start. */
    ANY,
    /**
     * Only a database with no schema yet (one being provisioned before its first server starts);
     * one at an older release's version is refused as it is, naming the version it is at and the
     * one this release needs.
     */
    ONLY_A_NEW_DATABASE
  }

  /** Starts on the database of {@code settings}, its schema migrated to this release's. */
  public static Database start(DatabaseSettings settings) {
    return start(settings, Upgrade.ANY);
  }

  /** Starts on the database of {@code settings}, its schema migrated to this release's as {@code upgrade} allows. */
  public static Database start(DatabaseSettings settings, Upgrade upgrade) {
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
        Embedded started = startEmbedded(settings.embeddedDataDirectory());
        embedded = started.server();
        url = embedded.getJdbcUrl("postgres", "postgres");
        user = "postgres";
        password = started.password();
      }
      HikariDataSource pool = pool(url, user, password, settings.maxPoolSize(), settings.startWait());
      try {
        migrate(url, user, password, upgrade, MIGRATIONS);
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

  /** An embedded server, and the password its superuser takes. */
  private record Embedded(EmbeddedPostgres server, String password) {}

  /**
   * The file in the embedded server's data directory that holds its superuser's password,
   * readable by the service's own user only, as the directory is.
   */
  static final String PASSWORD_FILE = "tollgate-password";

  /**
   * Starts the embedded server. It listens on a loopback port, where every user of the machine
   * can reach it, and its cluster is created trusting every connection: a superuser session,
   * which can read files and run programs as the database's user (the master key beside it
   * among them). So its superuser is given a random password on first start, kept in the data
   * directory, and the server then asks every connection for it (scram-sha-256). A cluster
   * without the file (created by an older Tollgate, or the file lost) is opened once more as
   * created and given a new password.
   */
  private static Embedded startEmbedded(Path dataDirectory) {
    try {
      Path passwordFile = dataDirectory == null ? null : dataDirectory.resolve(PASSWORD_FILE);
      String password = passwordFile != null && Files.exists(passwordFile) ? Files.readString(passwordFile).strip() : "";
      boolean newPassword = password.isEmpty();
      Path hba = dataDirectory == null ? null : dataDirectory.resolve("pg_hba.conf");
      if (hba != null && Files.exists(hba)) {
        // With its password kept, the cluster asks for it whatever a start cut short left in the
        // file; without it (an older Tollgate's cluster, or the file lost or empty), it is opened
        // once more as created, to be given one.
        authenticateWith(hba, newPassword ? "trust" : "scram-sha-256");
      }
      if (newPassword) {
        password = randomPassword();
      }
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
          .setConnectConfig("password", password)
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
      EmbeddedPostgres server = builder.start();
      if (newPassword) {
        try {
          requirePassword(server, password, passwordFile);
        } catch (IOException | java.sql.SQLException | RuntimeException e) {
          closeQuietly(server);
          throw e instanceof IOException io ? io : new IOException("cannot give the embedded PostgreSQL a password", e);
        }
      }
      return new Embedded(server, password);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
    }
  }

  private static void requirePassword(EmbeddedPostgres server, String password, Path passwordFile)
      throws IOException, java.sql.SQLException {
    Path hba;
    try (java.sql.Connection c = server.getPostgresDatabase().getConnection();
        java.sql.Statement s = c.createStatement()) {
      // the password is letters and digits only: nothing in it to quote
      s.execute("ALTER ROLE postgres PASSWORD '" + password + "'");
      try (java.sql.ResultSet r = s.executeQuery("SHOW hba_file")) {
        r.next();
        hba = Path.of(r.getString(1));
      }
      // kept before the server asks for it, whole or not at all, so that a stop in between
      // leaves the password to give (the next start then asks for it) or none (and a new one)
      if (passwordFile != null) {
        Path written = passwordFile.resolveSibling(PASSWORD_FILE + ".new");
        Files.deleteIfExists(written);
        Files.createFile(written, ownerOnlyAttribute());
        try (java.nio.channels.FileChannel out = java.nio.channels.FileChannel.open(written,
            java.nio.file.StandardOpenOption.WRITE)) {
          out.write(java.nio.ByteBuffer.wrap(password.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
          out.force(true);
        }
        Files.move(written, passwordFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
      authenticateWith(hba, "scram-sha-256");
      s.execute("SELECT pg_reload_conf()");
    }
  }

  /** Rewrites every rule of a pg_hba.conf to authenticate with {@code method}. */
  private static void authenticateWith(Path hba, String method) throws IOException {
    StringBuilder out = new StringBuilder();
    for (String line : Files.readAllLines(hba)) {
      String rule = line.strip();
      if (!rule.isEmpty() && !rule.startsWith("#") && (rule.startsWith("local") || rule.startsWith("host"))) {
        line = line.replaceFirst("\\S+\\s*$", method);
      }
      out.append(line).append('\n');
    }
    Files.writeString(hba, out);
  }

  /** Read and write for the owner only, where the file system knows POSIX permissions. */
  private static java.nio.file.attribute.FileAttribute<?>[] ownerOnlyAttribute() {
    if (!java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      // the data directory's own permissions guard it
      return new java.nio.file.attribute.FileAttribute<?>[0];
    }
    return new java.nio.file.attribute.FileAttribute<?>[] {java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"))};
  }

  private static String randomPassword() {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    java.security.SecureRandom random = new java.security.SecureRandom();
    StringBuilder password = new StringBuilder(32);
    for (int i = 0; i < 32; i++) {
      password.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return password.toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static HikariDataSource pool(String url, String user, String password, int maxPoolSize,
      java.time.Duration startWait) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(maxPoolSize);
    config.setMinimumIdle(Math.min(2, maxPoolSize));
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(2_000);
    config.setInitializationFailTimeout(Math.max(1, startWait.toMillis()));
    config.setPoolName("tollgate-db");
    // An instance whose host dies, or is cut off, inside a transaction leaves its session, and
    // the row locks it holds, on the server until TCP notices, hours later: every job of every
    // other instance that reaches one of those payments would wait on it. A transaction is never
    // idle longer than a processor call, which must answer well within two minutes.
    config.setConnectionInitSql("SET idle_in_transaction_session_timeout = '" + IDLE_IN_TRANSACTION + "'");
    config.addDataSourceProperty("tcpKeepAlive", "true");
    return new HikariDataSource(config);
  }

  /** Where the schema's migrations are. */
  static final String MIGRATIONS = "classpath:db/migration";

  /**
   * Migrates the schema through connections of its own, not the pool's: Flyway holds its lock
   * in a transaction left idle while a migration runs, which the pool's sessions end after
   * {@link #IDLE_IN_TRANSACTION}, and a migration may take longer (an index on a large table),
   * which would then fail at every start.
   */
  static void migrate(String url, String user, String password, String... locations) {
    migrate(url, user, password, Upgrade.ANY, locations);
  }

  private static void migrate(String url, String user, String password, Upgrade upgrade, String... locations) {
    Flyway flyway = Flyway.configure()
        .dataSource(url, user, password)
        .locations(locations)
        .load();
    if (upgrade == Upgrade.ONLY_A_NEW_DATABASE) {
      refuseAnUpgrade(flyway.info());
    }
    org.flywaydb.core.api.output.MigrateResult result = flyway.migrate();
    // an operator upgrading sees which migrations ran (Flyway's own lines are kept to warnings)
    if (result.migrationsExecuted > 0) {
      LOG.info("database schema migrated from version {} to {} ({} migration{})",
          result.initialSchemaVersion == null ? "none" : result.initialSchemaVersion, result.targetSchemaVersion,
          result.migrationsExecuted, result.migrationsExecuted == 1 ? "" : "s");
    } else {
      LOG.info("database schema at version {}", result.initialSchemaVersion);
    }
  }

  /**
   * Refuses a schema that has migrations applied and lacks some of this release's: the older
   * release's instances may still run on it.
   */
  private static void refuseAnUpgrade(org.flywaydb.core.api.MigrationInfoService info) {
    org.flywaydb.core.api.MigrationInfo[] pending = info.pending();
    if (info.applied().length == 0 || pending.length == 0) {
      return;
    }
    throw new IllegalStateException("this database's schema is at version " + info.current().getVersion()
        + " and this release needs version " + pending[pending.length - 1].getVersion() + ": a command does not "
        + "upgrade a database that instances of an older release may still run on; stop them and start this "
        + "release's service, which upgrades it, then run the command again");
  }

  public Jdbi jdbi() {
    return jdbi;
  }

  /**
   * The currency codes payments were recorded in when written (what they were charged in, and
   * asked in), and those balances are kept in: a symbol among them that the process does not know
   * could not be read back. Reads the record, not the payments. A code recorded by an update that
   * then found the payment changed by another (and so wrote no row) stays in it:
   * {@link #currenciesInUse} tells.
   */
  public java.util.Set<String> currenciesRecorded() {
    return jdbi.withHandle(h -> java.util.Set.copyOf(h.createQuery("""
            SELECT code FROM currencies_in_use UNION SELECT currency FROM balances""").mapTo(String.class).list()));
  }

  /**
   * Which of {@code codes} stored payments (what they were charged in, and asked in) and balances
   * are kept in: one pass over the payments, for the rare start that does not know a recorded code.
   * (A payment written by a version from before the record, started on this database after it,
   * is not recorded.)
   */
  public java.util.Set<String> currenciesInUse(java.util.Collection<String> codes) {
    return jdbi.withHandle(h -> java.util.Set.copyOf(h.createQuery("""
            SELECT DISTINCT code FROM payments, LATERAL (VALUES (currency), (customer_currency)) kept(code)
            WHERE code = ANY(:codes)
            UNION SELECT currency FROM balances WHERE currency = ANY(:codes)""")
        .bindArray("codes", String.class, java.util.List.copyOf(codes)).mapTo(String.class).list()));
  }

  /**
   * The decimals each currency in use was held to when last recorded, by its first payment or by
   * the start that last checked them ({@link #recordDecimals}): a start that gives a symbol no
   * fewer need not read the amounts kept in it. A currency recorded by an older version, which
   * kept no decimals, is not in the map.
   */
  public java.util.Map<String, Integer> decimalsRecorded() {
    return jdbi.withHandle(h -> h.createQuery("SELECT code, decimals FROM currencies_in_use WHERE decimals IS NOT NULL")
        .reduceRows(new java.util.HashMap<String, Integer>(), (found, row) -> {
          found.put(row.getColumn("code", String.class), row.getColumn("decimals", Integer.class));
          return found;
        }));
  }

  /**
   * Records the decimals of these crypto symbols in use, as a start that found every amount kept
   * in them fits (a symbol only balances are kept in is recorded as in use with it).
   */
  public void recordDecimals(java.util.Map<String, Integer> decimals) {
    jdbi.useHandle(h -> {
      var upsert = h.prepareBatch("""
          INSERT INTO currencies_in_use (code, decimals) VALUES (:code, :decimals)
          ON CONFLICT (code) DO UPDATE SET decimals = excluded.decimals""");
      decimals.forEach((code, places) -> upsert.bind("code", code).bind("decimals", places).add());
      upsert.execute();
    });
  }

  /**
   * The most decimals an amount kept in each of {@code codes} has, for the codes any is kept in:
   * payments' amounts as charged and as asked, what was refunded of them or asked to be captured,
   * and balances (the ledger's entries are written, never read back). One pass over the payments,
   * for the rare start that gives a symbol fewer decimals than it had.
   */
  public java.util.Map<String, Integer> decimalsKept(java.util.Collection<String> codes) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT kept.code, max(scale(trim_scale(kept.amount))) AS decimals
              FROM payments p
             CROSS JOIN LATERAL (VALUES (p.currency, p.amount), (p.currency, p.refunded_amount),
                   (p.currency, p.asked_amount), (p.customer_currency, p.customer_amount),
                   (p.customer_currency, p.asked_customer_amount)) kept(code, amount)
             WHERE (p.currency = ANY(:codes) OR p.customer_currency = ANY(:codes)) AND kept.code = ANY(:codes)
               AND kept.amount IS NOT NULL
             GROUP BY kept.code
            UNION ALL
            SELECT currency, max(greatest(scale(trim_scale(available)), scale(trim_scale(reserved))))
              FROM balances WHERE currency = ANY(:codes) GROUP BY currency""")
        .bindArray("codes", String.class, java.util.List.copyOf(codes))
        .reduceRows(new java.util.HashMap<String, Integer>(), (found, row) -> {
          found.merge(row.getColumn("code", String.class), row.getColumn("decimals", Integer.class), Math::max);
          return found;
        }));
  }

  /** What the readiness check needs to know about the database. */
  public record Health(boolean reachable, boolean migrated, String problem) {}

  /**
   * How long the readiness check waits for any one answer of the database. Without a bound, a
   * check whose connection lost its peer without a word (a network partition, a host gone) waited
   * until TCP gave up, hours later, and readiness with it; the pool's connections have none, as a
   * payment's statement may rightly wait on a lock.
   */
  static final int HEALTH_NETWORK_TIMEOUT_MILLIS = 5_000;

  /**
   * Whether a connection can be had within two seconds, the database takes writes (not a
   * standby after a failover, not read-only), and every migration is applied. No answer of the
   * database is waited for longer than {@link #HEALTH_NETWORK_TIMEOUT_MILLIS}.
   */
  public Health health() {
    DataSource bounded = withNetworkTimeout(dataSource, HEALTH_NETWORK_TIMEOUT_MILLIS);
    try (java.sql.Connection c = bounded.getConnection()) {
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
      int pending = Flyway.configure().dataSource(bounded).locations("classpath:db/migration").load()
          .info().pending().length;
      return pending == 0 ? new Health(true, true, null)
          : new Health(true, false, pending + " migrations are not applied");
    } catch (RuntimeException e) {
      return new Health(true, false, "cannot read the migration history: " + e.getMessage());
    }
  }

  /**
   * {@code pool}, handing out connections that wait at most {@code millis} for each answer; the
   * pool puts a connection's own timeout back when it is returned.
   */
  private static DataSource withNetworkTimeout(DataSource pool, int millis) {
    return (DataSource) java.lang.reflect.Proxy.newProxyInstance(Database.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(pool, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
          if (result instanceof java.sql.Connection connection) {
            try {
              // the driver does not use the executor: it sets the socket's read timeout
              connection.setNetworkTimeout(Runnable::run, millis);
            } catch (java.sql.SQLException | RuntimeException e) {
              connection.close();
              throw e;
            }
          }
          return result;
        });
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
