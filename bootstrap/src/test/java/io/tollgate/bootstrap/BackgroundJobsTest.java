package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.in.BackgroundWorkUseCase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The jobs keep running whatever one of them throws: a timer whose task throws never runs it
 * again, so payouts, transfers, unanswered deposits and expiries would all stop for good,
 * with the service still answering as healthy.
 */
class BackgroundJobsTest {

  @Test
  void a_job_that_fails_with_an_error_runs_again_and_so_do_the_jobs_after_it() throws Exception {
    AtomicInteger payoutRuns = new AtomicInteger();
    CountDownLatch expiriesAfterTheError = new CountDownLatch(2);
    BackgroundWorkUseCase work = work(batch -> {
      if (payoutRuns.incrementAndGet() == 1) {
        throw new NoClassDefFoundError("io/tollgate/Replaced");
      }
      if (payoutRuns.get() == 2) {
        throw new IllegalStateException("the database went away");
      }
      return 0;
    }, expiriesAfterTheError::countDown);
    try (BackgroundJobs jobs = new BackgroundJobs(work, batch -> 0, batch -> 0, batch -> 0, Duration.ofMillis(10))) {
      assertThat(expiriesAfterTheError.await(5, TimeUnit.SECONDS)).as("the jobs after the failing one ran").isTrue();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (payoutRuns.get() < 4 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(payoutRuns.get()).as("the failing job ran again after its error and its exception").isGreaterThanOrEqualTo(4);
    }
  }

  /**
   * A job that fails at every round on something it cannot get past (a row it cannot read)
   * still ends its batches, so the progress gauge stays at 0; its failures are counted for the
   * metrics, per job, so that an alert can see it.
   */
  @Test
  void a_job_that_fails_at_every_round_is_counted_by_name() throws Exception {
    AtomicInteger rounds = new AtomicInteger();
    BackgroundWorkUseCase work = work(batch -> {
      rounds.incrementAndGet();
      throw new IllegalArgumentException("unknown currency: DOGE");
    }, () -> { });
    try (BackgroundJobs jobs = new BackgroundJobs(work, batch -> 0, batch -> 0, batch -> 0, Duration.ofMillis(10))) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (jobs.failures("payouts") < 3 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(jobs.failures("payouts")).isGreaterThanOrEqualTo(3);
      assertThat(jobs.failures("checkout timeouts")).as("the others ran without failing").isZero();
      assertThat(BackgroundJobs.JOBS).contains("payouts", "checkout timeouts");
    }
  }

  /** Why a payment stays due is in the log: the job's exception with its stack and its causes. */
  @Test
  void a_failed_job_is_logged_with_what_went_wrong() throws Exception {
    ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(BackgroundJobs.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> captured = OperabilityTest.capturing();
    captured.start();
    log.addAppender(captured);
    CountDownLatch failed = new CountDownLatch(1);
    BackgroundWorkUseCase work = work(batch -> {
      IllegalStateException stayDue = new IllegalStateException("1 of 1 due payments failed and stay due: p1 (IllegalStateException)");
      stayDue.addSuppressed(new IllegalStateException("acquirer A refused the connection"));
      failed.countDown();
      throw stayDue;
    }, () -> { });
    try (BackgroundJobs jobs = new BackgroundJobs(work, batch -> 0, batch -> 0, batch -> 0, Duration.ofMillis(10))) {
      assertThat(failed.await(5, TimeUnit.SECONDS)).isTrue();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      ch.qos.logback.classic.spi.IThrowableProxy logged = null;
      while (logged == null && System.nanoTime() < deadline) {
        synchronized (captured) {
          logged = captured.list.stream().filter(e -> e.getThrowableProxy() != null).findFirst()
              .map(ch.qos.logback.classic.spi.ILoggingEvent::getThrowableProxy).orElse(null);
        }
        Thread.sleep(10);
      }
      assertThat(logged).as("a warning with the exception").isNotNull();
      assertThat(logged.getMessage()).contains("stay due: p1");
      assertThat(logged.getSuppressed()).extracting(ch.qos.logback.classic.spi.IThrowableProxy::getMessage)
          .containsExactly("acquirer A refused the connection");
    } finally {
      log.detachAppender(captured);
    }
  }

  /**
   * A job that waits on something that never comes back (a row lock, a processor without a
   * timeout) stops every job behind it; the gauge shows how long, and drops once they move.
   */
  @Test
  void the_gauge_shows_how_long_the_jobs_have_waited_on_one_batch_until_they_move_again() throws Exception {
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(1_000);
    CountDownLatch stuck = new CountDownLatch(1);
    CountDownLatch released = new CountDownLatch(1);
    AtomicInteger expiries = new AtomicInteger();
    BackgroundWorkUseCase work = work(batch -> {
      if (released.getCount() > 0) {
        stuck.countDown();
        try {
          released.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return 0;
    }, expiries::incrementAndGet);
    try (BackgroundJobs jobs = new BackgroundJobs(work, batch -> 0, batch -> 0, batch -> 0, Duration.ofMillis(10), nanos::get)) {
      assertThat(stuck.await(5, TimeUnit.SECONDS)).isTrue();
      nanos.addAndGet(Duration.ofMinutes(6).toNanos());
      assertThat(jobs.secondsSinceProgress()).as("six minutes on one batch").isEqualTo(360.0);

      released.countDown();
      int before = expiries.get();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (expiries.get() <= before + 1 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(jobs.secondsSinceProgress()).as("moving again").isLessThan(1.0);
    }
  }

  /** A timer that no longer runs the jobs at all shows as a round ever later. */
  @Test
  void jobs_that_no_longer_run_at_all_show_as_ever_later() {
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(1_000);
    BackgroundJobs jobs = new BackgroundJobs(work(batch -> 0, () -> { }), batch -> 0, batch -> 0, batch -> 0, Duration.ofSeconds(1), nanos::get);
    jobs.close();
    nanos.addAndGet(Duration.ofMinutes(6).toNanos());
    assertThat(jobs.secondsSinceProgress()).isEqualTo(359.0);
  }

  /** Waiting for the next round of a long interval is no wait at all (the review of the first gauge found it read so). */
  @Test
  void waiting_for_the_next_round_of_a_long_interval_shows_as_nothing() {
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(1_000);
    try (BackgroundJobs jobs = new BackgroundJobs(work(batch -> 0, () -> { }), batch -> 0, batch -> 0, batch -> 0, Duration.ofMinutes(10),
        nanos::get)) {
      nanos.addAndGet(Duration.ofMinutes(6).toNanos());
      assertThat(jobs.secondsSinceProgress()).isZero();
    }
  }

  /**
   * A job that found a full batch due runs again at once, however few of those it moved: with
   * several instances sharing the due payments, each moves only some of those it finds, and
   * payments whose terminal has not decided are found and left as they were. Before, a job
   * ran again only after moving a full batch, so every instance stopped after one batch and a
   * backlog drained the slower the more instances there were.
   */
  @Test
  void a_job_that_found_a_full_batch_runs_again_at_once_however_few_it_moved() throws Exception {
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger inTheFirstRound = new AtomicInteger(-1);
    CountDownLatch firstRound = new CountDownLatch(1);
    BackgroundWorkUseCase work = work(batch -> batches.incrementAndGet() <= 3 ? batch : 0, () -> {
      inTheFirstRound.compareAndSet(-1, batches.get());
      firstRound.countDown();
    });
    try (BackgroundJobs jobs = new BackgroundJobs(work, batch -> 0, batch -> 0, batch -> 0, Duration.ofMillis(10))) {
      assertThat(firstRound.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(inTheFirstRound.get()).as("three full batches found, then one that found none").isEqualTo(4);
    }
  }

  /**
   * A stop takes up no more work: the service is told at once to take up no more payments, and
   * the round under way takes no further batch, however full the last one was, and starts no
   * further job. Before, a stopping service drained up to a hundred more batches of every job,
   * sending payouts to terminals for the stop to cut off midway.
   */
  @Test
  void a_stop_takes_no_further_batch_and_starts_no_further_job() throws Exception {
    CountDownLatch inBatch = new CountDownLatch(1);
    CountDownLatch told = new CountDownLatch(1);
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger expiries = new AtomicInteger();
    BackgroundWorkUseCase base = work(batch -> {
      batches.incrementAndGet();
      inBatch.countDown();
      try {
        told.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return batch; // a full batch: there may be more
    }, expiries::incrementAndGet);
    BackgroundWorkUseCase work = (BackgroundWorkUseCase) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {BackgroundWorkUseCase.class}, (proxy, method, args) -> {
          if (method.getName().equals("stopTakingUp")) {
            told.countDown();
          }
          return method.invoke(base, args);
        });
    BackgroundJobs jobs = new BackgroundJobs(work, batch -> 0, batch -> 0, batch -> 0, Duration.ofMillis(10));
    assertThat(inBatch.await(5, TimeUnit.SECONDS)).isTrue();
    jobs.close();
    assertThat(told.getCount()).as("the service was told to take up no more payments").isZero();
    assertThat(batches.get()).as("no batch after the full one in hand").isEqualTo(1);
    assertThat(expiries.get()).as("no job after it").isZero();
  }

  /**
   * A batch of work whose payouts find as many due payments as {@code payouts} answers and move
   * none of them (another instance moved them, or their terminals have not decided), and whose
   * checkout expiries do {@code expiries}; the rest find nothing.
   */
  static BackgroundWorkUseCase work(java.util.function.IntUnaryOperator payouts, Runnable expiries) {
    return new BackgroundWorkUseCase() {
      @Override
      public Batch processPayouts(int batch) {
        return new Batch(payouts.applyAsInt(batch), 0);
      }

      @Override
      public Batch settleBankTransfers(int batch) {
        return new Batch(0, 0);
      }

      @Override
      public Batch resumeUnansweredDeposits(int batch) {
        return new Batch(0, 0);
      }

      @Override
      public Batch resumeUnansweredCapturesAndVoids(int batch) {
        return new Batch(0, 0);
      }

      @Override
      public long overdueUnansweredPayments() {
        return 0;
      }

      @Override
      public Batch expireCheckouts(int batch) {
        expiries.run();
        return new Batch(0, 0);
      }

      @Override
      public int forgetUnusedCards(Duration retention, int batch) {
        return 0;
      }

      @Override
      public void stopTakingUp() {
      }
    };
  }
}
