package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A balance held before V45 only in slots above 0 (a currency the shop got only from deposits)
 * gets its slot 0, holding nothing, so that every check of it locks slot 0 first; one that had
 * it keeps its rows. From then on the first slot row of a currency brings slot 0 with it, and
 * what is later written to slot 0 adds to it: no sum changes, and no accounts open twice.
 */
class BalanceSlotZeroMigrationTest {

  @Test
  void balances_held_only_in_deposit_slots_before_v45_get_an_empty_slot_zero() {
    BeforeMigration db = BeforeMigration.of("45");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Slots', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.execute("""
          INSERT INTO balances (shop_id, currency, slot, available, reserved, updated) VALUES
            (1, 'USD', 1, 4.00, 0, now()), (1, 'USD', 7, 8.00, 0, now()),
            (1, 'EUR', 0, -3.00, 3.00, now()), (1, 'EUR', 2, 10.00, 0, now())""");
    });

    db.migrateTheRest();

    assertThat(rows(jdbi, "USD")).as("slot 0 added, holding nothing").containsExactly("0 0 0", "1 4 0", "7 8 0");
    assertThat(rows(jdbi, "EUR")).as("as it was").containsExactly("0 -3 3", "2 10 0");

    // a currency's first slot row, as a completed deposit writes it, and a payout's hold after it
    jdbi.useHandle(h -> h.execute("INSERT INTO balances (shop_id, currency, slot, available, reserved, updated) "
        + "VALUES (1, 'GBP', 5, 7.00, 0, now())"));
    assertThat(rows(jdbi, "GBP")).as("slot 0 written with it").containsExactly("0 0 0", "5 7 0");
    jdbi.useHandle(h -> h.execute("""
        INSERT INTO balances (shop_id, currency, slot, available, reserved, updated)
        VALUES (1, 'GBP', 0, -2.00, 2.00, now())
        ON CONFLICT (shop_id, currency, slot) DO UPDATE
            SET available = balances.available + excluded.available,
                reserved = balances.reserved + excluded.reserved"""));
    assertThat(rows(jdbi, "GBP")).containsExactly("0 -2 2", "5 7 0");
    int accounts = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM balance_accounts WHERE shop_id = 1")
        .mapTo(Integer.class).one());
    assertThat(accounts).as("two per currency, opened once").isEqualTo(6);
  }

  /** The currency's slot rows, each as its slot, available and reserved. */
  private static List<String> rows(Jdbi jdbi, String currency) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT slot, available, reserved FROM balances WHERE shop_id = 1 AND currency = :c ORDER BY slot")
        .bind("c", currency)
        .map((rs, ctx) -> rs.getInt(1) + " " + rs.getBigDecimal(2).stripTrailingZeros().toPlainString() + " "
            + rs.getBigDecimal(3).stripTrailingZeros().toPlainString()).list());
  }
}
