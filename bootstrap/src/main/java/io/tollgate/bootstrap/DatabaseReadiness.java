package io.tollgate.bootstrap;

import io.tollgate.persistence.Database;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The database's part of the readiness check, answered within a bound. Asking the database
 * waits for a pooled connection, up to the pool's timeout (5 s), and the readiness answer asked
 * twice (reachable, migrated): during an outage it took 10 s, longer than a load balancer's or
 * Kubernetes' probe waits (1 s by default), so a probe saw a timeout and never the reason. One
 * check now runs at a time in the background; every probe meanwhile waits for that one, until
 * {@code bound} after it started, and a result is reused for a second, so both parts of one
 * answer come from one check. A check still running {@link #ABANDON_AFTER} after it started is
 * left to itself and a new one started: one stuck on a connection a network partition cut
 * without a word kept every later probe waiting on it, and readiness down, for hours after the
 * database was back.
 */
final class DatabaseReadiness {

  private static final long REUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** Well past what a check takes while the database answers: up to 5 s for a connection, then a few statements. */
  static final Duration ABANDON_AFTER = Duration.ofSeconds(10);

  private final Supplier<Database.Health> health;
  private final Duration bound;
  private final long abandonNanos;
  private final LongSupplier nanoTime;
  private final Executor checks;
  private CompletableFuture<Database.Health> check;
  private long startedAt;
  private long checkedAt;

  DatabaseReadiness(Database database, Duration bound) {
    this(database::health, bound, ABANDON_AFTER, System::nanoTime);
  }

  DatabaseReadiness(Supplier<Database.Health> health, Duration bound, Duration abandonAfter, LongSupplier nanoTime) {
    this.health = health;
    this.bound = bound;
    this.abandonNanos = abandonAfter.toNanos();
    this.nanoTime = nanoTime;
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
      waitNanos = Math.max(0, bound.toNanos() - (nanoTime.getAsLong() - startedAt));
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
    long now = nanoTime.getAsLong();
    boolean stale = check != null && check.isDone() && now - checkedAt > REUSE_NANOS;
    boolean stuck = check != null && !check.isDone() && now - startedAt > abandonNanos;
    if (check == null || stale || stuck) {
      startedAt = now;
      CompletableFuture<Database.Health> started = CompletableFuture.supplyAsync(health, checks);
      check = started;
      started.whenComplete((result, failure) -> finished(started));
    }
    return check;
  }

  private synchronized void finished(CompletableFuture<Database.Health> which) {
    // an abandoned check that ends at last says nothing of the one that replaced it
    if (which == check) {
      checkedAt = nanoTime.getAsLong();
    }
  }
}
