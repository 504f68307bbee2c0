package io.tollgate.persistence;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the database is.
 *
 * @param url JDBC URL of an external PostgreSQL; null starts an embedded one
 * @param embeddedDataDirectory where the embedded server keeps its data; null for a throwaway
 *     directory that is removed on close
 * @param startWait how long to keep trying to connect at start before giving up: the service
 *     waits for a server that starts beside it ({@link #SERVICE_START_WAIT}); an operator's
 *     command is told at once ({@link #COMMAND_START_WAIT})
 */
public record DatabaseSettings(
    String url, String user, String password, Path embeddedDataDirectory, int maxPoolSize, Duration startWait) {

  /** A service started beside its database (a compose file, a boot) waits for it this long. */
  public static final Duration SERVICE_START_WAIT = Duration.ofSeconds(30);
  /** An operator at a prompt learns this soon that the database cannot be reached. */
  public static final Duration COMMAND_START_WAIT = Duration.ofSeconds(2);

  /** Settings of a service, which waits {@link #SERVICE_START_WAIT} for its database. */
  public DatabaseSettings(String url, String user, String password, Path embeddedDataDirectory, int maxPoolSize) {
    this(url, user, password, embeddedDataDirectory, maxPoolSize, SERVICE_START_WAIT);
  }
}
