package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * The masks kept of cards shorter than 15 digits, stored before V43 with their first 6 and last
 * 4 digits, hide 5 digits after it, as such a card is now shown: a payment's card and a plain
 * card group's entry (V43), and their copies (V49): the entries of a plain card group's edits,
 * which {@code group history} prints, and a payment kept as a keyed request's answer, which its
 * retries are answered. A masked group's entries are the merchant's own masks, and stay.
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
      h.execute("""
          INSERT INTO group_edits (merchant_id, group_kind, group_id, action, entries, edited_by, edited) VALUES
            (1, 'CARD', 1, 'ADD', '{400000******0408,500000**3454}', 'ops@example.com', now()),
            (1, 'CARD', 1, 'REMOVE', '{305693****5904}', 'ops@example.com', now()),
            (1, 'CARD', 2, 'ADD', '{411111**1111}', 'ops@example.com', now())""");
      h.execute("""
          INSERT INTO idempotency_keys (shop_id, idempotency_key, fingerprint, payment_id, created, answer)
          SELECT 1, 'key-' || left(p.id, 1), 'digest', p.id, now(), to_jsonb(p) FROM payments p
           WHERE p.id IN (repeat('a', 32), repeat('d', 32), repeat('e', 32))
          UNION ALL SELECT 1, 'key-n', 'digest', null, now(), null""");
    });
    List<String> answersBefore = answers(jdbi, "answer");
    List<String> restBefore = answers(jdbi, "answer - 'card'");

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

    List<String> edits = jdbi.withHandle(h -> h.createQuery(
        "SELECT group_id || ' ' || action || ' ' || array_to_string(entries, ',') FROM group_edits ORDER BY id")
        .mapTo(String.class).list());
    assertThat(edits).containsExactly("1 ADD 400000******0408,500*****3454", "1 REMOVE 30569*****5904",
        "2 ADD 411111**1111");
    List<String> answers = jdbi.withHandle(h -> h.createQuery("""
            SELECT idempotency_key || ' ' || coalesce(answer #>> '{card,maskedNumber}', '-') || ' '
                   || coalesce(answer #>> '{card,cardToken}', '-') FROM idempotency_keys ORDER BY idempotency_key""")
        .mapTo(String.class).list());
    assertThat(answers).containsExactly("key-a 500*****3454 t1", "key-d 400000******0408 -", "key-e - -",
        "key-n - -");
    // a retry is answered with the card as its payment now shows it, and the rest as it was answered
    boolean asShown = jdbi.withHandle(h -> h.createQuery(
        "SELECT k.answer -> 'card' = p.card FROM idempotency_keys k JOIN payments p ON p.id = k.payment_id"
            + " WHERE k.idempotency_key = 'key-a'").mapTo(Boolean.class).one());
    assertThat(asShown).isTrue();
    assertThat(answers(jdbi, "answer - 'card'")).isEqualTo(restBefore);
    assertThat(answers(jdbi, "answer").subList(1, 4)).isEqualTo(answersBefore.subList(1, 4));
  }

  /** Each idempotency key with {@code part} of its answer, in the order of the keys. */
  private static List<String> answers(Jdbi jdbi, String part) {
    return jdbi.withHandle(h -> h.createQuery("SELECT idempotency_key || ' ' || coalesce((" + part
        + ")::text, '-') FROM idempotency_keys ORDER BY idempotency_key").mapTo(String.class).list());
  }
}
