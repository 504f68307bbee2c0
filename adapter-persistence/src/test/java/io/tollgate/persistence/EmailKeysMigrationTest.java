package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.group.EmailAddress;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * E-mail group entries stored before V51 are keyed as the screen and a DELETE now key an
 * address: one added as the DNS spells it (kim@xn--strae-oqa.de) holds kim@straße.de and every
 * spelling of it, and so does one added before e-mails were keyed at all. Of two spellings of one
 * address in a group, the first added stays, as the merchant wrote it. The groups' edits stay.
 */
class EmailKeysMigrationTest {

  @Test
  void e_mail_entries_stored_before_v51_hold_every_spelling_of_their_address() {
    BeforeMigration db = BeforeMigration.of("51");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Old e-mails', now())");
      h.execute("""
          INSERT INTO entry_groups (id, merchant_id, kind, name, masked, created) VALUES
            (1, 1, 'EMAIL', 'Blacklist', false, now()),
            (2, 1, 'EMAIL', 'DNS spelling first', false, now()),
            (3, 1, 'EMAIL', 'Unicode spelling first', false, now())""");
      // values as the rules before V51 keyed the addresses written (display), or before keys, as written
      h.execute("""
          INSERT INTO group_entries (group_id, value, display, added) VALUES
            (1, 'kim@xn--strae-oqa.de', 'kim@xn--strae-oqa.de', now()),
            (1, 'ann@xn--bcher-kva.de', 'ann@bücher.de', now()),
            (1, 'bob@xn--bcher-kva.de', 'bob@xn--bcher-kva.de', now()),
            (1, 'fraud@example.com', 'fraud@example.com', now()),
            (1, 'ivan@пример.рф', 'ivan@пример.рф', now()),
            (1, 'mia@xn--strae-oqa.d', 'mia@xn--strae-oqa.d', now()),
            (2, 'kim@xn--strae-oqa.de', 'kim@xn--strae-oqa.de', now() - interval '1 day'),
            (2, 'kim@strasse.de', 'kim@straße.de', now()),
            (3, 'kim@strasse.de', 'kim@straße.de', now() - interval '1 day'),
            (3, 'kim@xn--strae-oqa.de', 'kim@xn--strae-oqa。de', now())""");
      h.execute("""
          INSERT INTO group_edits (merchant_id, group_kind, group_id, action, entries, edited_by, edited) VALUES
            (1, 'EMAIL', 2, 'ADD', '{kim@xn--strae-oqa.de}', 'ops@example.com', now() - interval '1 day'),
            (1, 'EMAIL', 2, 'ADD', '{kim@straße.de}', 'ops@example.com', now())""");
    });

    db.migrateTheRest();

    List<String> entries = jdbi.withHandle(h -> h.createQuery(
        "SELECT group_id || ' ' || value || ' ' || display FROM group_entries ORDER BY group_id, value COLLATE \"C\"")
        .mapTo(String.class).list());
    assertThat(entries).containsExactly(
        "1 ann@xn--bcher-kva.de ann@bücher.de",
        "1 bob@xn--bcher-kva.de bob@xn--bcher-kva.de",
        "1 fraud@example.com fraud@example.com",
        "1 ivan@xn--e1afmkfd.xn--p1ai ivan@пример.рф",
        "1 kim@strasse.de kim@xn--strae-oqa.de",
        // an address the rules no longer accept stays as it was
        "1 mia@xn--strae-oqa.d mia@xn--strae-oqa.d",
        "2 kim@strasse.de kim@xn--strae-oqa.de",
        "3 kim@strasse.de kim@straße.de");
    List<String> edits = jdbi.withHandle(h -> h.createQuery(
        "SELECT group_id || ' ' || action || ' ' || array_to_string(entries, ',') FROM group_edits ORDER BY id")
        .mapTo(String.class).list());
    assertThat(edits).containsExactly("2 ADD kim@xn--strae-oqa.de", "2 ADD kim@straße.de");

    // what the screen looks up for a payment, and a DELETE takes out, is the key of the address given
    JdbiGroupRepository groups = new JdbiGroupRepository(jdbi);
    for (String spelling : List.of("kim@straße.de", "Kim@xn--strae-oqa\u3002de", "kim@ｘｎ--strae-oqa.de",
        "ivan@xn--e1afmkfd.xn--p1ai")) {
      assertThat(groups.contains(1, new EmailAddress(spelling).key())).as(spelling).isTrue();
    }
    groups.remove(1, List.of(new EmailAddress("kim@straße.de").key()), List.of(), "ops@example.com", Instant.now());
    assertThat(groups.allEntries(1)).doesNotContain("kim@xn--strae-oqa.de");
  }
}
