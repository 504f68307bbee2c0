package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The master keys that open this database's data key, under which its secrets are sealed (see
 * migration V41). The service starts with one of them ({@link #unlock}); the operator rotates
 * by adding a new one ({@link #add}) and, once every instance runs with it, retiring the others
 * ({@link #retire}). Every change runs under one lock, so that instances starting at once on a
 * new database agree on one data key.
 */
public final class MasterKeyRing {

  /** The lock every change to the ring holds for its transaction (an arbitrary number of ours). */
  private static final long LOCK = 0x746f6c6c6b657973L;
  /** What {@code master_key_check} records: a keyed digest of a constant under the data key. */
  private static final String CHECKED = "tollgate: the master key of this database";

  /** A master key of the ring: its id and when it was added. */
  public record Entry(String keyId, Instant added) {}

  private final Jdbi jdbi;

  public MasterKeyRing(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /**
   * The data key, opened with {@code masterKey}. On a new database, makes a random one, sealed
   * under {@code masterKey}; on one from before the ring, whose secrets {@code masterKey} sealed
   * itself, records it as both the data key and the ring's first key.
   *
   * @throws IllegalStateException when {@code masterKey} is not one of the ring's keys
   */
  public byte[] unlock(byte[] masterKey) {
    return jdbi.inTransaction(h -> {
      h.execute("SELECT pg_advisory_xact_lock(?)", LOCK);
      return unlock(h, masterKey);
    });
  }

  private static byte[] unlock(Handle h, byte[] masterKey) {
    String id = SecretBox.masterKeyId(masterKey);
    Optional<byte[]> wrapped = h.createQuery("SELECT wrapped FROM master_key_ring WHERE key_id = :id")
        .bind("id", id).mapTo(byte[].class).findOne();
    Optional<String> recorded = h.createQuery("SELECT digest FROM master_key_check").mapTo(String.class).findOne();
    if (wrapped.isPresent()) {
      byte[] dataKey;
      try {
        dataKey = SecretBox.unwrapDataKey(masterKey, wrapped.get());
      } catch (IllegalStateException damaged) {
        // the key's id matched: the row, not the key, is wrong
        throw new IllegalStateException("this master key's entry in the database's key ring (master_key_ring, "
            + "key_id " + id + ") is damaged; restore it from a backup, or start with another key of the ring");
      }
      if (recorded.isPresent() && !recorded.get().equals(new SecretBox(dataKey).fingerprint(CHECKED))) {
        throw new IllegalStateException("this database's key ring does not match its secrets");
      }
      return dataKey;
    }
    int keys = h.createQuery("SELECT count(*) FROM master_key_ring").mapTo(Integer.class).one();
    if (keys > 0) {
      throw new IllegalStateException("this database's secrets are sealed with another master key: the master key "
          + "given (TOLLGATE_MASTER_KEY, or the data directory's master.key) is " + (keys == 1 ? "not the key"
          : "none of the " + keys + " keys") + " that open" + (keys == 1 ? "s" : "") + " it (after `master-key "
          + "rotate`, give the new key; a key retired with `master-key retire` opens it no more)");
    }
    boolean kept = recorded.isPresent() || h.createQuery("""
            SELECT EXISTS (SELECT 1 FROM shop_keys) OR EXISTS (SELECT 1 FROM card_vault)
                OR EXISTS (SELECT 1 FROM group_entries) OR EXISTS (SELECT 1 FROM idempotency_keys)""")
        .mapTo(Boolean.class).one();
    byte[] dataKey;
    if (kept) {
      // sealed by a version from before the ring, under the master key itself
      dataKey = masterKey;
      String digest = new SecretBox(dataKey).fingerprint(CHECKED);
      if (recorded.isPresent() ? !recorded.get().equals(digest) : !opensASecret(h, new SecretBox(dataKey))) {
        throw new IllegalStateException("this database's secrets are sealed with another master key: give this "
            + "process the same TOLLGATE_MASTER_KEY (or the same TOLLGATE_DATA_DIR, whose master.key holds it) as "
            + "the service that created them");
      }
      h.createUpdate("""
              INSERT INTO master_key_check (digest, created, first_master_key_id) VALUES (:digest, now(), :id)
              ON CONFLICT (only_row) DO UPDATE SET first_master_key_id = :id""")
          .bind("digest", digest).bind("id", id).execute();
    } else {
      dataKey = SecretBox.randomKey();
      h.createUpdate("INSERT INTO master_key_check (digest, created) VALUES (:digest, now())")
          .bind("digest", new SecretBox(dataKey).fingerprint(CHECKED)).execute();
    }
    insert(h, id, SecretBox.wrapDataKey(masterKey, dataKey));
    return dataKey;
  }

  /**
   * Whether {@code secrets} open one of the secrets kept (by a version from before the master
   * key's digest was recorded), or none is kept.
   */
  private static boolean opensASecret(Handle h, SecretBox secrets) {
    Optional<byte[]> sealed = h.createQuery("""
            (SELECT signing_key_ciphertext FROM shop_keys LIMIT 1)
            UNION ALL (SELECT pan_ciphertext FROM card_vault LIMIT 1) LIMIT 1""").mapTo(byte[].class).findOne();
    try {
      sealed.ifPresent(secrets::decrypt);
      return true;
    } catch (IllegalStateException another) {
      return false;
    }
  }

  /**
   * Adds {@code next} to the ring, opened with {@code current}: both open the database until
   * the others are retired.
   *
   * @throws IllegalStateException when {@code current} does not open it, {@code next} already
   *     does, or the data key is the ring's first master key (rotating would not stop it)
   */
  public void add(byte[] current, byte[] next) {
    jdbi.useTransaction(h -> {
      h.execute("SELECT pg_advisory_xact_lock(?)", LOCK);
      byte[] dataKey = unlock(h, current);
      if (h.createQuery("SELECT first_master_key_id IS NOT NULL FROM master_key_check").mapTo(Boolean.class).one()) {
        throw new IllegalStateException("this database keeps its secrets under its first master key itself (it "
            + "was created before the key ring, migration V41): a new master key would not stop that one from "
            + "opening them, so it cannot be rotated; keep TOLLGATE_MASTER_KEY secret, or move to a new database");
      }
      String id = SecretBox.masterKeyId(next);
      if (h.createQuery("SELECT count(*) FROM master_key_ring WHERE key_id = :id").bind("id", id)
          .mapTo(Integer.class).one() > 0) {
        throw new IllegalStateException("the new master key opens this database already");
      }
      insert(h, id, SecretBox.wrapDataKey(next, dataKey));
    });
  }

  /**
   * Retires the keys added before {@code keep}, which must open the database and be the newest
   * key; returns the ids retired. A retired key opens the database no more.
   *
   * @throws IllegalStateException when a key was added after {@code keep}: retiring with an old
   *     key, left in a shell by mistake, would shut out the new one the instances run with
   */
  public List<String> retire(byte[] keep) {
    return jdbi.inTransaction(h -> {
      h.execute("SELECT pg_advisory_xact_lock(?)", LOCK);
      unlock(h, keep);
      String id = SecretBox.masterKeyId(keep);
      long position = h.createQuery("SELECT position FROM master_key_ring WHERE key_id = :id").bind("id", id)
          .mapTo(Long.class).one();
      List<String> newer = h.createQuery("SELECT key_id FROM master_key_ring WHERE position > :position ORDER BY position")
          .bind("position", position).mapTo(String.class).list();
      if (!newer.isEmpty()) {
        throw new IllegalStateException("master key " + newer.get(newer.size() - 1) + " was added after this one ("
            + id + "): retire with the newest key, which the instances should run with; this one would shut it out");
      }
      return h.createQuery("DELETE FROM master_key_ring WHERE position < :position RETURNING key_id")
          .bind("position", position).mapTo(String.class).list();
    });
  }

  /** The ring's keys, oldest first. */
  public List<Entry> keys() {
    return jdbi.withHandle(h -> h.createQuery("SELECT key_id, added FROM master_key_ring ORDER BY position")
        .map((rs, ctx) -> new Entry(rs.getString("key_id"), rs.getTimestamp("added").toInstant())).list());
  }

  private static void insert(Handle h, String id, byte[] wrapped) {
    h.createUpdate("INSERT INTO master_key_ring (key_id, wrapped, added) VALUES (:id, :wrapped, now())")
        .bind("id", id).bind("wrapped", wrapped).execute();
  }
}
