package io.tollgate.bootstrap;

import io.tollgate.application.port.in.BackgroundWorkUseCase;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the background jobs on a timer. A job that filled its batch runs again at once, so a
 * backlog drains at full speed; an error is logged and the job tries again next tick. Each
 * batch that ends, however it ends, is progress; {@link #stall} tells readiness and the metrics
 * when there has been none for long (a statement waiting on a lock, a processor that never
 * answers, a timer that stopped).
 */
final class BackgroundJobs implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BackgroundJobs.class);
  private static final int BATCH = 50;
  /** Longer than any batch should take: 50 processor calls, or a statement's lock waits. */
  static final Duration STALL = Duration.ofMinutes(5);

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "jobs");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param forgetExpiredKeys forgets a batch of Idempotency-Keys past their time, answering how
   *     many it forgot
   */
  private final java.util.function.LongSupplier nanoTime;
  private volatile long progressed;
  /** The job running now, or null between rounds. */
  private volatile String running;

  BackgroundJobs(BackgroundWorkUseCase work, IntUnaryOperator forgetExpiredKeys, Duration interval) {
    this(work, forgetExpiredKeys, interval, System::nanoTime);
  }

  BackgroundJobs(BackgroundWorkUseCase work, IntUnaryOperator forgetExpiredKeys, Duration interval,
      java.util.function.LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.progressed = nanoTime.getAsLong();
    long millis = interval.toMillis();
    timer.scheduleWithFixedDelay(() -> {
      drain("payouts", work::processPayouts);
      drain("bank transfers", work::settleBankTransfers);
      drain("unanswered card deposits", work::resumeUnansweredDeposits);
      drain("checkout timeouts", work::expireCheckouts);
      drain("expired idempotency keys", forgetExpiredKeys);
      running = null;
      progressed = nanoTime.getAsLong();
    }, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * What is wrong when no batch has ended for {@code limit}, or null: the jobs wait on
   * something that does not come back, or no longer run at all.
   */
  String stall(Duration limit) {
    long idle = nanoTime.getAsLong() - progressed;
    if (idle <= limit.toNanos()) {
      return null;
    }
    String job = running;
    return "the background jobs have made no progress for " + TimeUnit.NANOSECONDS.toSeconds(idle) + " s"
        + (job == null ? " (none is running)" : " (stuck in '" + job + "')");
  }

  /** Seconds since a batch of any job last ended. */
  double secondsSinceProgress() {
    return (nanoTime.getAsLong() - progressed) / 1e9;
  }

  /**
   * Runs a job until it finds no full batch. Nothing it throws reaches the timer, which would
   * never run any job again after it, silently: an Error too (a class the jar replaced under a
   * running service cannot load, memory ran out for a moment) is logged and the jobs go on.
   */
  private void drain(String name, IntUnaryOperator job) {
    running = name;
    try {
      int rounds = 0;
      while (batch(job) == BATCH && ++rounds < 100) {
        // a full batch: there may be more
      }
    } catch (RuntimeException e) {
      LOG.warn("background job '{}' failed; it runs again shortly: {}", name, e.toString());
    } catch (Error e) {
      LOG.error("background job '{}' failed with an error; it runs again shortly", name, e);
    }
  }

  private int batch(IntUnaryOperator job) {
    try {
      return job.applyAsInt(BATCH);
    } finally {
      progressed = nanoTime.getAsLong();
    }
  }

  @Override
  public void close() {
    timer.shutdown();
    try {
      if (!timer.awaitTermination(10, TimeUnit.SECONDS)) {
        timer.shutdownNow();
        // a job between its statements stops at the interrupt; give it the moment it takes,
        // so that the database is not closed under it
        timer.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      timer.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
