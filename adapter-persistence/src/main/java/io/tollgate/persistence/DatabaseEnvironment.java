package io.tollgate.persistence;

import io.tollgate.domain.shop.Environment;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * The environment this database serves (migration V47). Payments, balances, the webhook outbox
 * and the background jobs' queues are not kept apart by environment, so a database serves one:
 * the first server to start on it records its own ({@link #claim}), and a server or command of
 * the other environment is refused.
 */
public final class DatabaseEnvironment {

  private final Jdbi jdbi;

  public DatabaseEnvironment(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** The environment recorded; empty while no server has started on this database. */
  public Optional<Environment> recorded() {
    return jdbi.withHandle(h -> h.createQuery("SELECT environment FROM database_environment")
        .mapTo(String.class).findOne().map(Environment::valueOf));
  }

  /**
   * Records {@code environment} unless one is recorded already, and returns the one recorded:
   * {@code environment}, or the other one when that was recorded first (by an earlier server, or
   * by one starting at the same moment, whose record this waits for).
   */
  public Environment claim(Environment environment) {
    // every start after the first only reads
    return recorded().orElseGet(() -> jdbi.withHandle(h -> {
      // read by a statement of its own: the insert's snapshot would not hold a record committed
      // while it waited on the conflict
      h.createUpdate("""
              INSERT INTO database_environment (environment, recorded) VALUES (:environment, now())
              ON CONFLICT (only_row) DO NOTHING""")
          .bind("environment", environment.name()).execute();
      return Environment.valueOf(h.createQuery("SELECT environment FROM database_environment")
          .mapTo(String.class).one());
    }));
  }
}
