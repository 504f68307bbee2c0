package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.testing.TestDatabase;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Update;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PreparedArgumentCacheTest {

  private static Database db;
  private static Jdbi plain;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh();
    // Jdbi as it is without the cache: what every value must still be stored as
    plain = Jdbi.create(db.dataSource()).installPlugin(new PostgresPlugin());
    db.jdbi().useHandle(h -> h.execute("""
        CREATE TABLE bound (via text, s text, l bigint, i integer, b boolean, d numeric(20, 4),
          t timestamptz, u uuid, y bytea, state text)"""));
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  enum State { COMPLETED }

  @Test
  void values_and_typed_nulls_are_stored_exactly_as_jdbi_itself_binds_them() {
    Instant at = Instant.parse("2026-11-24T02:03:04.123456Z");
    UUID id = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
    insert(db.jdbi(), "cached", "deposit ünïcode", 9_007_199_254_740_993L, 42, true, new BigDecimal("12.3400"), at,
        id, new byte[] {0, 1, (byte) 0xff});
    insert(plain, "plain", "deposit ünïcode", 9_007_199_254_740_993L, 42, true, new BigDecimal("12.3400"), at,
        id, new byte[] {0, 1, (byte) 0xff});
    insert(db.jdbi(), "cached-null", null, null, null, null, null, null, null, null);
    insert(plain, "plain-null", null, null, null, null, null, null, null, null);

    Map<String, Object> cached = row("cached");
    assertThat(cached).isEqualTo(row("plain"));
    assertThat(cached.get("t")).isEqualTo("2026-11-24 02:03:04.123456+00");
    assertThat(cached.get("d")).isEqualTo("12.3400");
    assertThat(cached.get("l")).isEqualTo("9007199254740993");
    assertThat(cached.get("state")).isEqualTo("COMPLETED");
    Map<String, Object> nulls = row("cached-null");
    assertThat(nulls).isEqualTo(row("plain-null"));
    assertThat(nulls.values()).containsOnlyNulls();
  }

  private static void insert(Jdbi jdbi, String via, String s, Long l, Integer i, Boolean b, BigDecimal d, Instant t,
      UUID u, byte[] y) {
    jdbi.useHandle(h -> {
      Update update = h.createUpdate("""
              INSERT INTO bound (via, s, l, i, b, d, t, u, y, state)
              VALUES (:via, :s, :l, :i, :b, :d, :t, :u, :y, :state)""")
          .bind("via", via).bind("s", s).bind("l", l).bind("i", i).bind("b", b).bind("d", d)
          .bindByType("t", t, Instant.class).bindByType("u", u, UUID.class).bind("y", y);
      // an enum is not one of the cached types: it still takes Jdbi's own path (by name)
      update.bindByType("state", u == null ? null : State.COMPLETED, State.class).execute();
    });
  }

  private static Map<String, Object> row(String via) {
    return db.jdbi().withHandle(h -> h.createQuery("""
            SELECT s, CAST(l AS text) AS l, CAST(i AS text) AS i, CAST(b AS text) AS b, CAST(d AS text) AS d,
                   to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS t,
                   CAST(u AS text) AS u, encode(y, 'hex') AS y, state
            FROM bound WHERE via = :via""")
        .bind("via", via).mapToMap().one());
  }

  @Test
  void the_database_binds_through_the_cache_which_holds_only_plain_value_types() {
    var first = db.jdbi().getConfig(org.jdbi.v3.core.argument.Arguments.class).getFactories().get(0);
    assertThat(first).isInstanceOf(PreparedArgumentCache.class);
    PreparedArgumentCache cache = (PreparedArgumentCache) first;
    db.jdbi().useHandle(h -> h.createQuery("SELECT CAST(:s AS text), CAST(:t AS timestamptz), CAST(:j AS jsonb)")
        .bind("s", "x").bind("t", Instant.EPOCH).bindByType("j", java.util.Optional.of("{}"),
            new org.jdbi.v3.core.generic.GenericType<java.util.Optional<String>>() {})
        .mapToMap().one());
    assertThat(cache.cached()).contains(String.class, Instant.class).doesNotContain(java.util.Optional.class);
  }
}
