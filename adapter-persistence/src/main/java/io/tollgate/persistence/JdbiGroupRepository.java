package io.tollgate.persistence;

import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.Page;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.shop.MerchantId;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

final class JdbiGroupRepository implements GroupRepository {

  private static final String COLUMNS = "g.id, g.merchant_id, m.name AS merchant_name, g.kind, g.name, g.masked";

  private static final RowMapper<GroupRecord> GROUP = (rs, ctx) -> new GroupRecord(rs.getLong("id"),
      new MerchantId(rs.getLong("merchant_id")), rs.getString("merchant_name"), GroupKind.valueOf(rs.getString("kind")),
      rs.getString("name"), rs.getBoolean("masked"));

  private final Jdbi jdbi;

  JdbiGroupRepository(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public GroupRecord create(MerchantId merchant, GroupKind kind, String name, boolean masked, Instant now) {
    long id = jdbi.withHandle(h -> h.createQuery("""
            INSERT INTO entry_groups (merchant_id, kind, name, masked, created)
            VALUES (:merchant, :kind, :name, :masked, :now)
            ON CONFLICT (merchant_id, kind, name) DO UPDATE SET name = excluded.name
            RETURNING id
            """)
        .bind("merchant", merchant.value()).bind("kind", kind.name()).bind("name", name).bind("masked", masked)
        .bind("now", now).mapTo(Long.class).one());
    return find(id).orElseThrow();
  }

  @Override
  public Page<GroupRecord> list(MerchantId merchant, GroupKind kind, int offset, int limit) {
    List<GroupRecord> rows = jdbi.withHandle(h -> h.createQuery("SELECT " + COLUMNS + """
             FROM entry_groups g JOIN merchants m ON m.id = g.merchant_id
            WHERE g.merchant_id = :merchant AND g.kind = :kind
            ORDER BY g.id LIMIT :limit OFFSET :offset
            """)
        .bind("merchant", merchant.value()).bind("kind", kind.name()).bind("limit", limit + 1).bind("offset", offset)
        .map(GROUP).list());
    return page(rows, limit);
  }

  @Override
  public Optional<GroupRecord> find(long id) {
    return jdbi.withHandle(h -> h.createQuery("SELECT " + COLUMNS
            + " FROM entry_groups g JOIN merchants m ON m.id = g.merchant_id WHERE g.id = :id")
        .bind("id", id).map(GROUP).findOne());
  }

  @Override
  public Page<String> entries(long groupId, int offset, int limit) {
    List<String> rows = jdbi.withHandle(h -> h.createQuery("""
            SELECT display FROM group_entries WHERE group_id = :group
            ORDER BY display, value LIMIT :limit OFFSET :offset
            """)
        .bind("group", groupId).bind("limit", limit + 1).bind("offset", offset).mapTo(String.class).list());
    return page(rows, limit);
  }

  @Override
  public List<String> allEntries(long groupId) {
    return jdbi.withHandle(h -> h.createQuery("SELECT display FROM group_entries WHERE group_id = :group ORDER BY display, value")
        .bind("group", groupId).mapTo(String.class).list());
  }

  @Override
  public void add(long groupId, Collection<Entry> entries, String editedBy, Instant now) {
    List<Entry> sorted = entries.stream().sorted(Comparator.comparing(Entry::value)).toList();
    jdbi.useTransaction(h -> {
      lockForEdit(h, groupId);
      List<String> added = h.createQuery("""
              INSERT INTO group_entries (group_id, value, display, added)
              SELECT :group, e.value, e.display, :now
                FROM unnest(CAST(:values AS text[]), CAST(:displays AS text[])) WITH ORDINALITY AS e (value, display, n)
               ORDER BY e.n
              ON CONFLICT (group_id, value) DO NOTHING
              RETURNING display
              """)
          .bind("group", groupId).bind("now", now)
          .bind("values", sorted.stream().map(Entry::value).toArray(String[]::new))
          .bind("displays", sorted.stream().map(Entry::display).toArray(String[]::new))
          .mapTo(String.class).list();
      recordEdit(h, ENTRY_GROUP, groupId, "ADD", added, editedBy, now);
    });
  }

  @Override
  public void remove(long groupId, Collection<String> values, Collection<String> shown, String editedBy, Instant now) {
    jdbi.useTransaction(h -> {
      lockForEdit(h, groupId);
      List<String> removed = h.createQuery("""
              DELETE FROM group_entries WHERE group_id = :group AND (value = ANY(:values) OR display = ANY(:shown))
              RETURNING display
              """)
          .bind("group", groupId).bind("values", values.toArray(String[]::new))
          .bind("shown", shown.toArray(String[]::new)).mapTo(String.class).list();
      recordEdit(h, ENTRY_GROUP, groupId, "REMOVE", removed, editedBy, now);
    });
  }

  /** The merchant and kind of an entry group, for {@link #recordEdit}. */
  static final String ENTRY_GROUP = "SELECT merchant_id, kind FROM entry_groups WHERE id = :group";
  /** The merchant of a shop group and its kind, SHOP, for {@link #recordEdit}. */
  static final String SHOP_GROUP = "SELECT merchant_id, 'SHOP' FROM shop_groups WHERE id = :group";

  /**
   * Keeps, in the edit's transaction, what an edit of group {@code groupId} changed (V33):
   * nothing when it changed nothing. {@code group} selects the group's merchant and kind.
   */
  static void recordEdit(Handle h, String group, long groupId, String action, List<String> changed, String editedBy,
      Instant now) {
    if (changed.isEmpty()) {
      return;
    }
    h.createUpdate("INSERT INTO group_edits (merchant_id, group_kind, group_id, action, entries, edited_by, edited)"
            + " SELECT g.*, :group, :action, :entries, :by, :now FROM (" + group + ") g")
        .bind("group", groupId).bind("action", action)
        .bind("entries", changed.stream().sorted().toArray(String[]::new)).bind("by", editedBy).bind("now", now)
        .execute();
  }

  @Override
  public List<GroupEdit> edits(MerchantId merchant, Long groupId, String groupKind, int limit) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT e.id, e.group_kind, e.group_id, coalesce(eg.name, sg.name) AS group_name, e.action, e.entries,
                   e.edited_by, e.edited
              FROM group_edits e
              LEFT JOIN entry_groups eg ON e.group_kind <> 'SHOP' AND eg.id = e.group_id
              LEFT JOIN shop_groups sg ON e.group_kind = 'SHOP' AND sg.id = e.group_id
             WHERE e.merchant_id = :merchant
               AND (CAST(:group AS bigint) IS NULL OR e.group_id = :group)
               AND (CAST(:kind AS text) IS NULL OR e.group_kind = :kind)
             ORDER BY e.id DESC LIMIT :limit
            """)
        .bind("merchant", merchant.value()).bind("group", groupId).bind("kind", groupKind).bind("limit", limit)
        .map((rs, ctx) -> new GroupEdit(rs.getLong("id"), rs.getString("group_kind"), rs.getLong("group_id"),
            rs.getString("group_name"), rs.getString("action"), List.of((String[]) rs.getArray("entries").getArray()),
            rs.getString("edited_by"), rs.getObject("edited", java.time.OffsetDateTime.class).toInstant()))
        .list());
  }

  /**
   * Edits of one group take turns. Two edits inserting the same new entries in different
   * orders would otherwise each wait for a row the other has just inserted, and PostgreSQL
   * would abort one of them as a deadlock. NO KEY UPDATE still lets the foreign-key checks of
   * rules and connectors that name the group pass; the entries go in sorted all the same.
   */
  static void lockForEdit(Handle h, long groupId) {
    h.createQuery("SELECT id FROM entry_groups WHERE id = :group FOR NO KEY UPDATE").bind("group", groupId)
        .mapTo(Long.class).findOne();
  }

  @Override
  public boolean contains(long groupId, String value) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT EXISTS (SELECT 1 FROM group_entries WHERE group_id = :group AND value = :value)")
        .bind("group", groupId).bind("value", value).mapTo(Boolean.class).one());
  }

  @Override
  public Lookup lookup(Collection<Long> groupIds, Collection<Member> candidates, List<CardCount> counts) {
    if (groupIds.isEmpty() && counts.isEmpty()) {
      return new Lookup(java.util.Map.of(), java.util.Set.of(), List.of());
    }
    // One row per group and value it holds, or one with a null value when it holds none; the
    // counts, asked once, ride on every row, and on a row of nulls when no group is found.
    // card_deposits (migrations V12, V23, V25, V48) keeps its plan for the session; each count's states
    // travel as one comma-separated text, as unnest takes no array of arrays.
    List<Held> rows = jdbi.withHandle(h -> h.createQuery("""
            SELECT q.counts, x.* FROM (
              SELECT ARRAY(
                SELECT card_deposits(c.shop, c.token, string_to_array(c.states, ','),
                                     CAST(c.except_id AS char(32)),
                                     CAST(c.since AS timestamptz), c.at_most, c.verifications)
                  FROM unnest(CAST(:countShops AS bigint[]), CAST(:countTokens AS text[]),
                              CAST(:countStates AS text[]), CAST(:countExcept AS text[]), CAST(:countSince AS text[]),
                              CAST(:countAtMost AS integer[]), CAST(:countVerifications AS boolean[]))
                       WITH ORDINALITY AS c(shop, token, states, except_id, since, at_most, verifications, n)
                 ORDER BY c.n) AS counts) q
            LEFT JOIN (
              SELECT\s""" + COLUMNS + """
                , e.value AS held
                 FROM entry_groups g JOIN merchants m ON m.id = g.merchant_id
                 LEFT JOIN LATERAL (
                   SELECT e.value FROM unnest(CAST(:groups AS bigint[]), CAST(:values AS text[])) AS c(group_id, value)
                     JOIN group_entries e ON e.group_id = c.group_id AND e.value = c.value
                    WHERE c.group_id = g.id) e ON true
                WHERE g.id = ANY(CAST(:ids AS bigint[]))) x ON true
            """)
        .bind("ids", groupIds.stream().distinct().toArray(Long[]::new))
        .bind("groups", candidates.stream().map(Member::groupId).toArray(Long[]::new))
        .bind("values", candidates.stream().map(Member::value).toArray(String[]::new))
        .bind("countShops", counts.stream().map(c -> c.shop().value()).toArray(Long[]::new))
        .bind("countTokens", counts.stream().map(CardCount::cardToken).toArray(String[]::new))
        .bind("countStates", counts.stream().map(c -> c.states().stream().map(Enum::name).sorted()
            .collect(java.util.stream.Collectors.joining(","))).toArray(String[]::new))
        .bind("countExcept", counts.stream().map(c -> c.except() == null ? null : c.except().value())
            .toArray(String[]::new))
        .bind("countSince", counts.stream().map(c -> c.since().toString()).toArray(String[]::new))
        .bind("countAtMost", counts.stream().map(CardCount::atMost).toArray(Integer[]::new))
        .bind("countVerifications", counts.stream().map(CardCount::verifications).toArray(Boolean[]::new))
        .map((rs, ctx) -> new Held(rs.getObject("id") == null ? null : GROUP.map(rs, ctx), rs.getString("held"),
            (Integer[]) rs.getArray("counts").getArray()))
        .list());
    java.util.Map<Long, GroupRecord> groups = new java.util.HashMap<>();
    java.util.Set<Member> held = new java.util.HashSet<>();
    for (Held row : rows) {
      if (row.group() == null) {
        continue;
      }
      groups.putIfAbsent(row.group().id(), row.group());
      if (row.value() != null) {
        held.add(new Member(row.group().id(), row.value()));
      }
    }
    return new Lookup(groups, held, List.of(rows.get(0).counts()));
  }

  private record Held(GroupRecord group, String value, Integer[] counts) {}

  private static <T> Page<T> page(List<T> rows, int limit) {
    boolean more = rows.size() > limit;
    return new Page<>(more ? rows.subList(0, limit) : rows, more);
  }
}
