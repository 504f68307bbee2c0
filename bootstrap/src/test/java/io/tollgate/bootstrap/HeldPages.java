package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import java.time.Duration;
import org.jdbi.v3.core.Handle;

/**
 * Merchant-API pages held in the database, for the tests of what a page holds while it is read:
 * a transaction locks the shop groups' members, which a page of one shop group's records waits
 * for. The queries waiting on the lock are watched on a connection of the test's own, outside the
 * lock's transaction (which would see the activity as it was when first asked).
 */
final class HeldPages {

  /** The held pages' queries, waiting on the lock. */
  private static final String WAITING = "wait_event_type = 'Lock' AND query LIKE '%shop_group_members%'";

  private HeldPages() {}

  /** A transaction holding the shop groups' members; closing it without a commit lets the pages go. */
  static Handle lockShopGroups(Database database) {
    Handle lock = database.jdbi().open();
    lock.begin();
    lock.execute("LOCK TABLE shop_group_members IN ACCESS EXCLUSIVE MODE");
    return lock;
  }

  /** How many held pages' queries wait on the lock. */
  static int waiting(Handle watch) {
    return watch.createQuery("SELECT count(*) FROM pg_stat_activity WHERE " + WAITING).mapTo(Integer.class).one();
  }

  /** Waits (at most 10 s) until {@code pages} queries wait on the lock: their requests hold what they took. */
  static void awaitWaiting(Handle watch, int pages) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (waiting(watch) < pages) {
      assertThat(System.nanoTime()).as("the held pages wait on the lock").isLessThan(end);
      Thread.sleep(20);
    }
  }

  /** Cancels the held pages' queries, as a database that fails them would. */
  static void cancelWaiting(Handle watch) {
    watch.execute("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE " + WAITING);
  }
}
