package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentState;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class JdbiPaymentRepositoryTest extends AbstractPaymentRepositoryContractTest {

  static Database db;
  static PersistenceAdapters adapters;
  static ShopId shop;
  static ShopId otherShop;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh();
    adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), CURRENCIES);
    shop = TestShops.create(adapters, "one");
    otherShop = TestShops.create(adapters, "two");
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Override
  PaymentRepository repository() {
    return adapters.payments();
  }

  @Override
  ShopId shop() {
    return shop;
  }

  @Override
  ShopId otherShop() {
    return otherShop;
  }

  /**
   * A card used hundreds of times without a decline must not make every "declined deposits per
   * card" check read all those deposits. The check runs on an empty shop first (so the
   * connection has a cached statement), then over 600 deposits of the card; PostgreSQL's own
   * counters tell how many rows and index entries the checks read.
   */
  @Test
  void a_card_velocity_count_reads_only_the_deposits_it_counts() {
    try (Database own = TestDatabase.fresh()) {
      PersistenceAdapters fresh = new PersistenceAdapters(own, new SecretBox(SecretBox.randomKey()), CURRENCIES);
      ShopId busy = TestShops.create(fresh, "busy-card");
      String token = draft(busy, "1", "x").card().cardToken();
      Instant since = T0.minus(1, ChronoUnit.HOURS);
      for (int i = 0; i < 12; i++) {
        assertThat(fresh.payments().countCardDeposits(busy, token, PaymentState.DECLINED, since, 5)).isZero();
      }
      for (int i = 0; i < 600; i++) {
        fresh.payments().insert(Payment.create(draft(busy, "1", "busy-" + i), PaymentState.CHECKOUT, T0));
      }

      long before = indexEntriesRead(own);
      for (int i = 0; i < 10; i++) {
        assertThat(fresh.payments().countCardDeposits(busy, token, PaymentState.DECLINED, since, 5)).isZero();
      }
      assertThat(fresh.payments().countCardDeposits(busy, token, PaymentState.CHECKOUT, since, 5)).isEqualTo(5);
      long read = indexEntriesRead(own) - before;

      assertThat(read).as("payment rows and index entries read by 11 velocity counts").isLessThan(100);
    }
  }

  /** Index entries read from the payments table so far, every backend's counts flushed. */
  private static long indexEntriesRead(Database db) {
    for (int attempt = 0; ; attempt++) {
      long[] seen = new long[1];
      db.jdbi().useHandle(h -> {
        h.execute("SELECT pg_stat_clear_snapshot()");
        seen[0] = h.createQuery("""
                SELECT coalesce(sum(idx_tup_read), 0) + (SELECT coalesce(seq_tup_read, 0)
                    FROM pg_stat_user_tables WHERE relname = 'payments')
                FROM pg_stat_user_indexes WHERE relname = 'payments'
                """).mapTo(Long.class).one();
      });
      // other backends flush their counters at most once a second: wait until the figure settles
      try {
        Thread.sleep(1100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      long[] again = new long[1];
      db.jdbi().useHandle(h -> {
        h.execute("SELECT pg_stat_clear_snapshot()");
        again[0] = h.createQuery("""
                SELECT coalesce(sum(idx_tup_read), 0) + (SELECT coalesce(seq_tup_read, 0)
                    FROM pg_stat_user_tables WHERE relname = 'payments')
                FROM pg_stat_user_indexes WHERE relname = 'payments'
                """).mapTo(Long.class).one();
      });
      if (again[0] == seen[0] || attempt == 10) {
        return again[0];
      }
    }
  }
}
