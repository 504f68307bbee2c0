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
 * Runs the background jobs on a timer. A job that found a full batch due runs again at once,
 * however many of those it moved (instances sharing the due payments each move only some), so
 * a backlog drains at full speed; an error is logged and the job tries again next tick. Each
 * batch that ends, however it ends, is progress; {@link #secondsSinceProgress} tells the
 * metrics how long there has been none (a statement waiting on a lock, a processor that never
 * answers, a timer that stopped). It is no readiness check: the jobs do not serve requests, and
 * a cause every instance shares (a terminal that never answers) would take them all out of
 * service at once.
 */
final class BackgroundJobs implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BackgroundJobs.class);
  private static final int BATCH = 50;

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "jobs");
    t.setDaemon(true);
    return t;
  });

  /** The jobs, in the order each round runs them; the names the log and the metrics give them. */
  static final java.util.List<String> JOBS = java.util.List.of("payouts", "bank transfers",
      "unanswered card deposits", "unanswered captures and voids", "checkout timeouts", "expired idempotency keys",
      "old webhook deliveries", "unused cards");

  private final java.util.Map<String, java.util.concurrent.atomic.LongAdder> failures =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.function.LongSupplier nanoTime;
  private final long intervalNanos;
  private volatile long progressed;
  /** The job running now, or null between rounds. */
  private volatile String running;
  /** Set by {@link #close}: no job starts, and none takes another batch, after it. */
  private volatile boolean stopping;
  private final BackgroundWorkUseCase work;

  /**
   * @param forgetExpiredKeys forgets a batch of Idempotency-Keys past their time, answering how
   *     many it forgot
   * @param forgetOldDeliveries forgets a batch of the webhook delivery log past its time,
   *     answering how many rows it went through
   * @param forgetUnusedCards forgets a batch of the card numbers unused past their retention,
   *     answering how many it forgot
   */
  BackgroundJobs(BackgroundWorkUseCase work, IntUnaryOperator forgetExpiredKeys, IntUnaryOperator forgetOldDeliveries,
      IntUnaryOperator forgetUnusedCards, Duration interval) {
    this(work, forgetExpiredKeys, forgetOldDeliveries, forgetUnusedCards, interval, System::nanoTime);
  }

  BackgroundJobs(BackgroundWorkUseCase work, IntUnaryOperator forgetExpiredKeys, IntUnaryOperator forgetOldDeliveries,
      IntUnaryOperator forgetUnusedCards, Duration interval, java.util.function.LongSupplier nanoTime) {
    this.work = work;
    this.nanoTime = nanoTime;
    this.progressed = nanoTime.getAsLong();
    this.intervalNanos = interval.toNanos();
    long millis = interval.toMillis();
    timer.scheduleWithFixedDelay(() -> {
      progressed = nanoTime.getAsLong(); // the round starts on time: the interval was no wait
      drain(JOBS.get(0), batch -> work.processPayouts(batch).found());
      drain(JOBS.get(1), batch -> work.settleBankTransfers(batch).found());
      drain(JOBS.get(2), batch -> work.resumeUnansweredDeposits(batch).found());
      drain(JOBS.get(3), batch -> work.resumeUnansweredCapturesAndVoids(batch).found());
      drain(JOBS.get(4), batch -> work.expireCheckouts(batch).found());
      drain(JOBS.get(5), forgetExpiredKeys);
      drain(JOBS.get(6), forgetOldDeliveries);
      drain(JOBS.get(7), forgetUnusedCards);
      running = null;
      progressed = nanoTime.getAsLong();
    }, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * How long the jobs have waited for progress: during a round, the seconds since a batch last
   * ended (a batch of 50 payouts, each waiting on its terminal, may take minutes); between
   * rounds, how late the next round is. 0 while all is well between rounds, however long the
   * interval.
   */
  double secondsSinceProgress() {
    long waited = nanoTime.getAsLong() - progressed;
    if (running == null) {
      waited -= intervalNanos;
    }
    return Math.max(0, waited) / 1e9;
  }

  /**
   * Runs a job until it finds no full batch ({@code job} answers how many it found). Nothing
   * it throws reaches the timer, which would never run any job again after it, silently: an
   * Error too (a class the jar replaced under a running service cannot load, memory ran out for
   * a moment) is logged and the jobs go on.
   */
  private void drain(String name, IntUnaryOperator job) {
    if (stopping) {
      return;
    }
    running = name;
    try {
      int rounds = 0;
      while (batch(job) == BATCH && ++rounds < 100 && !stopping) {
        // a full batch: there may be more
      }
    } catch (RuntimeException e) {
      failures.computeIfAbsent(name, n -> new java.util.concurrent.atomic.LongAdder()).increment();
      // with its stack and what it carries: why a payment stays due is in there
      LOG.warn("background job '{}' failed; it runs again shortly", name, e);
    } catch (Error e) {
      failures.computeIfAbsent(name, n -> new java.util.concurrent.atomic.LongAdder()).increment();
      LOG.error("background job '{}' failed with an error; it runs again shortly", name, e);
    }
  }

  /**
   * How many rounds of the job failed so far. A batch that fails is still progress for
   * {@link #secondsSinceProgress} (the jobs move on), so a job that fails at every round on
   * something it cannot get past (a row it cannot read) shows here, not there.
   */
  long failures(String job) {
    java.util.concurrent.atomic.LongAdder count = failures.get(job);
    return count == null ? 0 : count.sum();
  }

  private int batch(IntUnaryOperator job) {
    try {
      return job.applyAsInt(BATCH);
    } finally {
      progressed = nanoTime.getAsLong();
    }
  }

  /**
   * Stops: the round under way takes no further batch and starts no further job, and the
   * batch in hand ends with the payment being taken up (the others stay due, for another
   * instance or the next start); waits for that, then cuts off a job still running after 10 s.
   */
  @Override
  public void close() {
    stopping = true;
    work.stopTakingUp();
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
