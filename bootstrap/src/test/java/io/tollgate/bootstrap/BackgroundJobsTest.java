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
    BackgroundWorkUseCase work = new BackgroundWorkUseCase() {
      @Override
      public int processPayouts(int batch) {
        if (payoutRuns.incrementAndGet() == 1) {
          throw new NoClassDefFoundError("io/tollgate/Replaced");
        }
        if (payoutRuns.get() == 2) {
          throw new IllegalStateException("the database went away");
        }
        return 0;
      }

      @Override
      public int settleBankTransfers(int batch) {
        return 0;
      }

      @Override
      public int resumeUnansweredDeposits(int batch) {
        return 0;
      }

      @Override
      public long overdueUnansweredPayments() {
        return 0;
      }

      @Override
      public int expireCheckouts(int batch) {
        expiriesAfterTheError.countDown();
        return 0;
      }
    };
    try (BackgroundJobs jobs = new BackgroundJobs(work, batch -> 0, Duration.ofMillis(10))) {
      assertThat(expiriesAfterTheError.await(5, TimeUnit.SECONDS)).as("the jobs after the failing one ran").isTrue();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (payoutRuns.get() < 4 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(payoutRuns.get()).as("the failing job ran again after its error and its exception").isGreaterThanOrEqualTo(4);
    }
  }
}
