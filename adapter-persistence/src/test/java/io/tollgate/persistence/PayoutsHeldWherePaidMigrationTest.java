package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A withdrawal converted for a terminal in another currency and still pending when V42 runs held
 * the currency it was asked in, as routing booked it until then: the migration moves that to the
 * currency its terminal pays, as routing now does, so that its end pays out or releases what it
 * holds. Converted ones that ended, and pending ones in their own currency, stay as they are.
 */
class PayoutsHeldWherePaidMigrationTest {

  @Test
  void pending_converted_payouts_hold_the_currency_their_terminal_pays_after_v42() {
    BeforeMigration db = BeforeMigration.of("42");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Payouts', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.execute("""
          INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency,
              customer_amount, customer_currency, pre_auth, created, updated, version) VALUES
            (repeat('a', 32), 1, 'WITHDRAWAL', 'PENDING', 'BASIC_CARD', 6.35, 'USD', 5.00, 'GBP', false,
                now(), now(), 1),
            (repeat('b', 32), 1, 'WITHDRAWAL', 'PENDING', 'BASIC_CARD', 12.70, 'USD', 10.00, 'GBP', false,
                now(), now(), 1),
            (repeat('c', 32), 1, 'WITHDRAWAL', 'COMPLETED', 'BASIC_CARD', 2.54, 'USD', 2.00, 'GBP', false,
                now(), now(), 2),
            (repeat('d', 32), 1, 'WITHDRAWAL', 'PENDING', 'BASIC_CARD', 3.00, 'GBP', null, null, false,
                now(), now(), 1)""");
      // as the earlier version booked them: each held (and the completed one paid) in GBP
      h.execute("""
          INSERT INTO ledger_entries (shop_id, currency, available, reserved, payment_id, reason, created) VALUES
            (1, 'GBP', -5.00, 5.00, repeat('a', 32), 'reserved for withdrawal', now()),
            (1, 'GBP', -10.00, 10.00, repeat('b', 32), 'reserved for withdrawal', now()),
            (1, 'GBP', -2.00, 2.00, repeat('c', 32), 'reserved for withdrawal', now()),
            (1, 'GBP', 0, -2.00, repeat('c', 32), 'withdrawal paid out', now()),
            (1, 'GBP', -3.00, 3.00, repeat('d', 32), 'reserved for withdrawal', now())""");
      h.execute("INSERT INTO balances (shop_id, currency, slot, available, reserved, updated) "
          + "VALUES (1, 'GBP', 0, -20.00, 18.00, now()), (1, 'GBP', 3, 100.00, 0, now())");
    });

    db.migrateTheRest();

    assertThat(balance(jdbi, "GBP")).as("the GBP held by the converted payouts given back")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("95.00"), new BigDecimal("3.00"));
    assertThat(balance(jdbi, "USD")).as("held in the USD their terminal pays")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("-19.05"), new BigDecimal("19.05"));
    assertThat(entries(jdbi, "a".repeat(32))).containsExactly("GBP -5.00 5.00", "GBP 5.00 -5.00", "USD -6.35 6.35");
    assertThat(entries(jdbi, "c".repeat(32))).as("ended before: as booked").hasSize(2);
    assertThat(entries(jdbi, "d".repeat(32))).as("not converted").containsExactly("GBP -3.00 3.00");
    int accounts = jdbi.withHandle(h -> h.createQuery(
        "SELECT count(*) FROM balance_accounts WHERE shop_id = 1 AND currency = 'USD'").mapTo(Integer.class).one());
    assertThat(accounts).as("the USD accounts opened by the first USD balance").isEqualTo(2);
  }

  private static List<BigDecimal> balance(Jdbi jdbi, String currency) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT sum(available), sum(reserved) FROM balances WHERE shop_id = 1 AND currency = :c")
        .bind("c", currency).map((rs, ctx) -> List.of(rs.getBigDecimal(1), rs.getBigDecimal(2))).one());
  }

  private static List<String> entries(Jdbi jdbi, String payment) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT currency, available, reserved FROM ledger_entries WHERE payment_id = :p ORDER BY id")
        .bind("p", payment)
        .map((rs, ctx) -> rs.getString(1) + " " + rs.getBigDecimal(2).setScale(2).toPlainString() + " "
            + rs.getBigDecimal(3).setScale(2).toPlainString()).list());
  }
}
