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
 * backlog drains at full speed; an error is logged and the job tries again next tick.
 */
final class BackgroundJobs implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BackgroundJobs.class);
  private static final int BATCH = 50;

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "jobs");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param forgetExpiredKeys forgets a batch of Idempotency-Keys past their time, answering how
   *     many it forgot
   */
  BackgroundJobs(BackgroundWorkUseCase work, IntUnaryOperator forgetExpiredKeys, Duration interval) {
    long millis = interval.toMillis();
    timer.scheduleWithFixedDelay(() -> {
      drain("payouts", work::processPayouts);
      drain("bank transfers", work::settleBankTransfers);
      drain("unanswered card deposits", work::resumeUnansweredDeposits);
      drain("checkout timeouts", work::expireCheckouts);
      drain("expired idempotency keys", forgetExpiredKeys);
    }, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Runs a job until it finds no full batch. Nothing it throws reaches the timer, which would
   * never run any job again after it, silently: an Error too (a class the jar replaced under a
   * running service cannot load, memory ran out for a moment) is logged and the jobs go on.
   */
  private static void drain(String name, IntUnaryOperator job) {
    try {
      int rounds = 0;
      while (job.applyAsInt(BATCH) == BATCH && ++rounds < 100) {
        // a full batch: there may be more
      }
    } catch (RuntimeException e) {
      LOG.warn("background job '{}' failed; it runs again shortly: {}", name, e.toString());
    } catch (Error e) {
      LOG.error("background job '{}' failed with an error; it runs again shortly", name, e);
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
