package io.tollgate.persistence.testing;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fresh, migrated database for each caller, on one PostgreSQL server per test JVM: the one
 * named by {@code TOLLGATE_DB_URL} (with {@code TOLLGATE_DB_USER}/{@code TOLLGATE_DB_PASSWORD}),
 * or an embedded server in a throwaway directory.
 */
public final class TestDatabase {

  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static Server server;

  private record Server(String adminUrl, String user, String password, EmbeddedPostgres embedded) {
    String urlOf(String database) {
      return adminUrl.replaceFirst("/[^/?]*(\\?|$)", "/" + database + "$1");
    }
  }

  private TestDatabase() {}

  public static Database fresh() {
    return Database.start(new DatabaseSettings(empty(), user(), password(), null, 20));
  }

  /** The JDBC URL of a new database with nothing in it, for a test that migrates it step by step. */
  public static String empty() {
    Server s = server();
    String name = "tollgate_test_" + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
    try (Connection c = java.sql.DriverManager.getConnection(s.adminUrl(), s.user(), s.password());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create test database " + name, e);
    }
    return s.urlOf(name);
  }

  public static String user() {
    return server().user();
  }

  public static String password() {
    return server().password();
  }

  private static synchronized Server server() {
    if (server == null) {
      String url = System.getenv("TOLLGATE_DB_URL");
      if (url != null && !url.isBlank()) {
        String user = System.getenv().getOrDefault("TOLLGATE_DB_USER", "postgres");
        String password = System.getenv().getOrDefault("TOLLGATE_DB_PASSWORD", "");
        server = new Server(url, user, password, null);
      } else {
        try {
          EmbeddedPostgres pg = EmbeddedPostgres.builder()
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .setServerConfig("full_page_writes", "off")
              .setServerConfig("max_connections", "500")
              .start();
          server = new Server(pg.getJdbcUrl("postgres", "postgres"), "postgres", "", pg);
          Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
              pg.close();
            } catch (IOException ignored) {
              // the JVM is going away
            }
          }));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot start the embedded PostgreSQL for tests", e);
        }
      }
    }
    return server;
  }
}
