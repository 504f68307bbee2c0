package db.migration;

import io.tollgate.domain.group.EmailAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An e-mail group's entries keyed again by {@link EmailAddress#key} as it now is. An entry is
 * matched and deleted by its value, the key of the address the merchant wrote (its display);
 * an address whose domain was written as the DNS has it kept its {@code xn--} label in the key
 * as written, and the key now reads that label as the Unicode it encodes: kim@xn--strae-oqa.de
 * was keyed as itself and is now kim@strasse.de, as kim@straße.de always was. An entry added
 * before e-mails were keyed at all has the address as written for its value, and is keyed now
 * too. Only a value that holds {@code xn--} or a character outside printable ASCII can differ
 * from its key (an ASCII domain is its own ASCII form), so only those are read. The migration is
 * Java, as SQL has no IDN to compute a key with.
 *
 * <p>Of the entries of a group that now have one key, the first added stays, with the address
 * as it was written then: adding another spelling of an address listed already adds nothing, so
 * the group ends as if every entry had had its key when added. The others are deleted (the
 * address stays in the group, as the one that stays spells it). An address that is no longer
 * accepted keeps its entry as it is. The groups' edits keep the entries as they were shown when
 * edited: history is not rewritten.
 */
public class V51__email_keys_of_dns_spellings extends BaseJavaMigration {

  private static final Logger LOG = LoggerFactory.getLogger(V51__email_keys_of_dns_spellings.class);

  /** One entry of an e-mail group, and the key its address has now. */
  private record Stored(long group, String value, OffsetDateTime added, String key) {}

  private static final Comparator<Stored> FIRST_ADDED =
      Comparator.comparing(Stored::added).thenComparing(Stored::value);

  @Override
  public void migrate(Context context) throws SQLException {
    Connection c = context.getConnection();
    Map<Long, List<Stored>> moving = new LinkedHashMap<>();
    try (PreparedStatement read = c.prepareStatement("""
            SELECT e.group_id, e.value, e.display, e.added
              FROM group_entries e JOIN entry_groups g ON g.id = e.group_id
             WHERE g.kind = 'EMAIL' AND (e.value LIKE '%xn--%' OR e.value !~ '^[ -~]*$')
             ORDER BY e.group_id""");
        ResultSet rs = read.executeQuery()) {
      while (rs.next()) {
        long group = rs.getLong("group_id");
        String value = rs.getString("value");
        String key = keyOf(rs.getString("display"));
        if (key != null && !key.equals(value)) {
          moving.computeIfAbsent(group, g -> new ArrayList<>())
              .add(new Stored(group, value, rs.getObject("added", OffsetDateTime.class), key));
        }
      }
    }
    int keyed = 0;
    int merged = 0;
    for (List<Stored> entries : moving.values()) {
      // the entries of the group that hold a new key already join the ones that take it
      Map<String, List<Stored>> byKey = new LinkedHashMap<>();
      entries.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e));
      long group = entries.get(0).group();
      Set<String> moved = entries.stream().map(Stored::value).collect(Collectors.toSet());
      try (PreparedStatement holding = c.prepareStatement(
          "SELECT value, added FROM group_entries WHERE group_id = ? AND value = ANY(?)")) {
        holding.setLong(1, group);
        holding.setArray(2, c.createArrayOf("text", byKey.keySet().toArray()));
        try (ResultSet rs = holding.executeQuery()) {
          while (rs.next()) {
            String value = rs.getString("value");
            if (moved.contains(value)) {
              continue; // takes a key of its own, read above
            }
            byKey.get(value).add(new Stored(group, value, rs.getObject("added", OffsetDateTime.class), value));
          }
        }
      }
      try (PreparedStatement delete = c.prepareStatement("DELETE FROM group_entries WHERE group_id = ? AND value = ?");
          PreparedStatement update = c.prepareStatement(
              "UPDATE group_entries SET value = ? WHERE group_id = ? AND value = ?")) {
        for (Map.Entry<String, List<Stored>> same : byKey.entrySet()) {
          List<Stored> spellings = same.getValue().stream().sorted(FIRST_ADDED).toList();
          for (Stored later : spellings.subList(1, spellings.size())) {
            delete.setLong(1, group);
            delete.setString(2, later.value());
            delete.addBatch();
            merged++;
          }
          Stored first = spellings.get(0);
          if (!first.value().equals(same.getKey())) {
            update.setString(1, same.getKey());
            update.setLong(2, group);
            update.setString(3, first.value());
            update.addBatch();
            keyed++;
          }
        }
        // every entry that gives way is gone before the one that stays takes its key
        delete.executeBatch();
        update.executeBatch();
      }
    }
    if (keyed + merged > 0) {
      LOG.info("e-mail group entries keyed again: {} given the key of their address, {} deleted as another "
          + "spelling of an address the group holds", keyed, merged);
    }
  }

  /** The key of an address as the merchant wrote it, or null for one no longer accepted. */
  private static String keyOf(String written) {
    try {
      return new EmailAddress(written).key();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
