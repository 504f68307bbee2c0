package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * V38: a card stored before it counts as last used by the newest payment that names its token,
 * or, when none does, when it was stored; so an upgrade forgets no card a payment used within
 * the retention.
 */
class CardLastUsedMigrationTest {

  @Test
  void a_card_stored_before_v38_was_last_used_by_its_newest_payment() {
    BeforeMigration db = BeforeMigration.of("38");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      // days of 24 hours, whatever the zone of the JVM (a day across a clock change is 23 or 25)
      h.execute("SET TIME ZONE 'UTC'");
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Cards', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now()), (2, 1, 'Other', now())");
      h.execute("""
          INSERT INTO card_vault (shop_id, token, fingerprint, pan_ciphertext, created) VALUES
            (1, repeat('a', 32), 'fa', '\\x01', now() - interval '900 days'),
            (1, repeat('b', 32), 'fb', '\\x02', now() - interval '800 days'),
            (2, repeat('a', 32), 'fa', '\\x03', now() - interval '700 days')""");
      h.execute("""
          INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth,
              card, created, updated, version) VALUES
            (repeat('1', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 1, 'EUR', false,
                jsonb_build_object('cardToken', repeat('a', 32)), now() - interval '600 days', now() - interval '600 days', 1),
            (repeat('2', 32), 1, 'WITHDRAWAL', 'COMPLETED', 'BASIC_CARD', 1, 'EUR', false,
                jsonb_build_object('cardToken', repeat('a', 32)), now() - interval '20 days', now() - interval '10 days', 2)""");
    });

    db.migrateTheRest();

    Map<String, Integer> daysUnused = jdbi.withHandle(h -> h.createQuery(
            "SELECT shop_id || ':' || left(token, 1) AS card,"
                + " floor(extract(epoch FROM now() - last_used) / 86400)::int AS days FROM card_vault")
        .setMapKeyColumn("card").setMapValueColumn("days").collectInto(new org.jdbi.v3.core.generic.GenericType<
            Map<String, Integer>>() {}));
    assertThat(daysUnused).containsExactlyInAnyOrderEntriesOf(Map.of(
        "1:a", 10, // its newest payment, a withdrawal updated 10 days ago
        "1:b", 800, // no payment names it
        "2:a", 700)); // the same token of another shop's card is another card
  }
}
