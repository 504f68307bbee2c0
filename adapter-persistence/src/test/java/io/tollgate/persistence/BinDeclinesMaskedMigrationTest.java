package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A BIN blacklist's decline written before V54 named the BIN it matched (6 to 8 digits): V54
 * names the card as its payment shows it instead, and a card list's decline from before V43
 * quotes the card's mask as it is shown now. Other operations, and the rest of the details, stay
 * as written.
 */
class BinDeclinesMaskedMigrationTest {

  @Test
  void declines_written_before_v54_show_no_more_of_the_card_than_its_mask() {
    BeforeMigration db = BeforeMigration.of("54");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Declines', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.execute("""
          INSERT INTO payments (id, shop_id, merchant_id, payment_type, state, payment_method, amount, currency,
              pre_auth, card, created, updated, version) VALUES
            (repeat('a', 32), 1, 1, 'DEPOSIT', 'DECLINED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"4222*****2222"}', now(), now(), 2),
            (repeat('b', 32), 1, 1, 'DEPOSIT', 'DECLINED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"500*****3454"}', now(), now(), 2),
            (repeat('c', 32), 1, 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"400000******0408"}', now(), now(), 3),
            (repeat('d', 32), 1, 1, 'DEPOSIT', 'DECLINED', 'BASIC_CARD', 5.00, 'EUR', false,
                '{"maskedNumber":"30569*****5904"}', now(), now(), 2),
            (repeat('e', 32), 1, 1, 'DEPOSIT', 'DECLINED', 'BASIC_CARD', 5.00, 'EUR', false, null, now(), now(), 2)""");
      h.execute("""
          INSERT INTO payment_operations (payment_id, shop_id, merchant_id, operation, started, completed,
              payment_state, error_code, details) VALUES
            (repeat('a', 32), 1, 1, 'DETECT_FRAUD', now(), now(), 'DECLINED', '6.39',
                'anti-fraud profile ''P'', rule BIN_BLACKLIST: BIN 42222222 is in group ''Blocked'' (#1)'),
            (repeat('b', 32), 1, 1, 'DETECT_FRAUD', now(), now(), 'DECLINED', '6.01',
                'anti-fraud profile ''P'', rule CARD_BLACKLIST: card 500000**3454 is in group ''Stolen'' (#2)'),
            (repeat('c', 32), 1, 1, 'DETECT_FRAUD', now(), now(), 'CHECKOUT', null,
                'anti-fraud profile ''P'': 3 rules passed'),
            (repeat('c', 32), 1, 1, 'DEPOSIT', now(), now(), 'COMPLETED', null,
                'BIN 400000 is in group of the acquirer''s own words'),
            (repeat('d', 32), 1, 1, 'DETECT_FRAUD', now(), now(), 'DECLINED', '6.11',
                'anti-fraud profile ''P'', rule CARD_WHITELIST: card 305693****5904 is not in group ''Known'' (#3)'),
            (repeat('d', 32), 1, 1, 'DETECT_FRAUD', now(), now(), 'DECLINED', '6.39',
                'anti-fraud profile ''P'', rule BIN_BLACKLIST: BIN 305693 is in group ''Blocked'' (#1)'),
            (repeat('e', 32), 1, 1, 'DETECT_FRAUD', now(), now(), 'DECLINED', '6.39',
                'anti-fraud profile ''P'', rule BIN_BLACKLIST: BIN 4000001 is in group ''Blocked'' (#1)')""");
    });

    db.migrateTheRest();

    List<String> details = jdbi.withHandle(h -> h.createQuery(
        "SELECT details FROM payment_operations ORDER BY id").mapTo(String.class).list());
    assertThat(details).containsExactly(
        "anti-fraud profile 'P', rule BIN_BLACKLIST: BIN of card 4222*****2222 is in group 'Blocked' (#1)",
        "anti-fraud profile 'P', rule CARD_BLACKLIST: card 500*****3454 is in group 'Stolen' (#2)",
        "anti-fraud profile 'P': 3 rules passed",
        "BIN 400000 is in group of the acquirer's own words",
        "anti-fraud profile 'P', rule CARD_WHITELIST: card 30569*****5904 is not in group 'Known' (#3)",
        "anti-fraud profile 'P', rule BIN_BLACKLIST: BIN of card 30569*****5904 is in group 'Blocked' (#1)",
        "anti-fraud profile 'P', rule BIN_BLACKLIST: BIN of card on file is in group 'Blocked' (#1)");
  }
}
