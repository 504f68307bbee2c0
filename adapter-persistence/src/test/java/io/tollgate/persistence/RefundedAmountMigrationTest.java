package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.testing.TestDatabase;
import java.math.BigDecimal;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A deposit refunded before V26 shows what its COMPLETED refunds paid back once the column
 * exists (declined and pending ones not); from then on a refund adds its amount when it
 * completes, once, and a later write of a completed refund adds nothing again.
 */
class RefundedAmountMigrationTest {

  @Test
  void refunds_completed_before_v26_are_summed_and_later_ones_added_once() {
    BeforeMigration db = BeforeMigration.of("26");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Refunds', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.execute("""
          INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth,
              parent_payment_id, created, updated, version) VALUES
            (repeat('a', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 10.00, 'EUR', false, null, now(), now(), 1),
            (repeat('b', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 20.00, 'EUR', false, null, now(), now(), 1),
            (repeat('1', 32), 1, 'REFUND', 'COMPLETED', 'BASIC_CARD', 3.00, 'EUR', false, repeat('a', 32), now(), now(), 2),
            (repeat('2', 32), 1, 'REFUND', 'COMPLETED', 'BASIC_CARD', 2.50, 'EUR', false, repeat('a', 32), now(), now(), 2),
            (repeat('3', 32), 1, 'REFUND', 'DECLINED', 'BASIC_CARD', 1.00, 'EUR', false, repeat('a', 32), now(), now(), 2),
            (repeat('4', 32), 1, 'REFUND', 'PENDING', 'BASIC_CARD', 0.50, 'EUR', false, repeat('a', 32), now(), now(), 1)""");
    });

    db.migrateTheRest();
    assertThat(refunded(jdbi)).as("summed by the migration").containsExactly("5.50", "-");

    jdbi.useHandle(h -> {
      h.execute("UPDATE payments SET state = 'COMPLETED', version = version + 1 WHERE id = repeat('4', 32)");
      h.execute("UPDATE payments SET state = 'COMPLETED', version = version + 1 WHERE id = repeat('1', 32)");
    });
    assertThat(refunded(jdbi)).as("the pending refund completed; a completed one written again")
        .containsExactly("6.00", "-");
  }

  private static List<String> refunded(Jdbi jdbi) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT refunded_amount FROM payments WHERE payment_type = 'DEPOSIT' ORDER BY id")
        .map((rs, ctx) -> {
          BigDecimal amount = rs.getBigDecimal(1);
          return amount == null ? "-" : amount.setScale(2).toPlainString();
        }).list());
  }

  /**
   * Two refunds of one deposit completing at the same moment both count: the second waits for
   * the deposit row the first one's addition locked, and then adds to what the first one left.
   */
  @Test
  void two_refunds_completing_at_once_both_count() throws Exception {
    String url = TestDatabase.empty();
    Flyway.configure().dataSource(url, TestDatabase.user(), TestDatabase.password())
        .locations("classpath:db/migration").load().migrate();
    Jdbi jdbi = Jdbi.create(url, TestDatabase.user(), TestDatabase.password());
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Refunds', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.execute("""
          INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth,
              parent_payment_id, created, updated, version) VALUES
            (repeat('a', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 10.00, 'EUR', false, null, now(), now(), 1),
            (repeat('1', 32), 1, 'REFUND', 'PENDING', 'BASIC_CARD', 3.00, 'EUR', false, repeat('a', 32), now(), now(), 1),
            (repeat('2', 32), 1, 'REFUND', 'PENDING', 'BASIC_CARD', 4.00, 'EUR', false, repeat('a', 32), now(), now(), 1)""");
    });
    String complete = "UPDATE payments SET state = 'COMPLETED', version = version + 1 WHERE id = :id";
    try (org.jdbi.v3.core.Handle first = jdbi.open(); org.jdbi.v3.core.Handle second = jdbi.open()) {
      first.begin();
      first.createUpdate(complete).bind("id", "1".repeat(32)).execute();
      java.util.concurrent.CompletableFuture<Void> waiting = java.util.concurrent.CompletableFuture.runAsync(() -> {
        second.begin();
        second.createUpdate(complete).bind("id", "2".repeat(32)).execute();
        second.commit();
      });
      // the second refund's addition waits for the deposit's row while the first holds it
      long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (jdbi.withHandle(h -> h.createQuery(
          "SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'").mapTo(Integer.class).one()) == 0) {
        assertThat(System.nanoTime()).as("the second refund waits").isLessThan(until);
        Thread.sleep(10);
      }
      first.commit();
      waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
    }
    assertThat(refunded(jdbi)).containsExactly("7.00");
  }
}
