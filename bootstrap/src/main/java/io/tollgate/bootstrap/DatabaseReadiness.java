package io.tollgate.bootstrap;

import io.tollgate.persistence.Database;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The database's part of the readiness check, answered within a bound. Asking the database
 * waits for a pooled connection, up to the pool's timeout (5 s), and the readiness answer asked
 * twice (reachable, migrated): during an outage it took 10 s, longer than a load balancer's or
 * Kubernetes' probe waits (1 s by default), so a probe saw a timeout and never the reason. One
 * check now runs at a time in the background; every probe meanwhile waits for that one, until
 * {@code bound} after it started, and a result is reused for a second, so both parts of one
 * answer come from one check.
 */
final class DatabaseReadiness {

  private static final long REUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Database database;
  private final Duration bound;
  private final Executor checks;
  private CompletableFuture<Database.Health> check;
  private long startedAt;
  private long checkedAt;

  DatabaseReadiness(Database database, Duration bound) {
    this.database = database;
    this.bound = bound;
    this.checks = task -> {
      Thread t = new Thread(task, "readiness-check");
      t.setDaemon(true);
      t.start();
    };
  }

  Database.Health health() {
    CompletableFuture<Database.Health> current;
    long waitNanos;
    synchronized (this) {
      current = current();
      waitNanos = Math.max(0, bound.toNanos() - (System.nanoTime() - startedAt));
    }
    try {
      return current.get(waitNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return new Database.Health(false, false, "the database did not answer within " + bound.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Database.Health(false, false, "interrupted");
    } catch (ExecutionException e) {
      return new Database.Health(false, false, "the check failed: " + e.getCause());
    }
  }

  private synchronized CompletableFuture<Database.Health> current() {
    long now = System.nanoTime();
    if (check == null || (check.isDone() && now - checkedAt > REUSE_NANOS)) {
      startedAt = now;
      check = CompletableFuture.supplyAsync(database::health, checks);
      check.whenComplete((health, failure) -> finished());
    }
    return check;
  }

  private synchronized void finished() {
    checkedAt = System.nanoTime();
  }
}
