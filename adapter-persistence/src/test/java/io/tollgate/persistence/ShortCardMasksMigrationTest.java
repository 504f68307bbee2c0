package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * The masks kept of cards shorter than 15 digits, stored before V43 with their first 6 and last
 * 4 digits, hide 5 digits after it, as such a card is now shown: a payment's card and a plain
 * card group's entry. A masked group's entries are the merchant's own masks, and stay.
 */
class ShortCardMasksMigrationTest {

  @Test
  void short_cards_kept_before_v43_are_masked_as_they_are_now_shown() {
    BeforeMigration db = BeforeMigration.of("43");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Short cards', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.execute("""
          INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth,
              card, created, updated, version) VALUES
            (repeat('a', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"500000**3454","cardToken":"t1"}', now(), now(), 2),
            (repeat('b', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"305693****5904"}', now(), now(), 2),
            (repeat('c', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"378282*****0005"}', now(), now(), 2),
            (repeat('d', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"400000******0408"}', now(), now(), 2),
            (repeat('e', 32), 1, 'DEPOSIT', 'CHECKOUT', 'BASIC_CARD', 5.00, 'EUR', false, null, now(), now(), 1)""");
      h.execute("""
          INSERT INTO entry_groups (id, merchant_id, kind, name, masked, created)
          VALUES (1, 1, 'CARD', 'Plain', false, now()), (2, 1, 'CARD', 'Masked', true, now())""");
      h.execute("""
          INSERT INTO group_entries (group_id, value, display, added) VALUES
            (1, 'fingerprint-1', '500000**3454', now()),
            (1, 'fingerprint-2', '400000******0408', now()),
            (2, '411111*1111', '411111**1111', now())""");
    });

    db.migrateTheRest();

    List<String> cards = jdbi.withHandle(h -> h.createQuery(
        "SELECT coalesce(card ->> 'maskedNumber', '-') || ' ' || coalesce(card ->> 'cardToken', '-') FROM payments "
            + "ORDER BY id").mapTo(String.class).list());
    assertThat(cards).containsExactly("500*****3454 t1", "30569*****5904 -", "378282*****0005 -",
        "400000******0408 -", "- -");
    List<String> entries = jdbi.withHandle(h -> h.createQuery(
        "SELECT group_id || ' ' || value || ' ' || display FROM group_entries ORDER BY group_id, value")
        .mapTo(String.class).list());
    assertThat(entries).containsExactly("1 fingerprint-1 500*****3454", "1 fingerprint-2 400000******0408",
        "2 411111*1111 411111**1111");
  }
}
