package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Rotating the master key on real PostgreSQL: what opens the database, and what no longer does. */
class MasterKeyRingTest {

  static final byte[] FIRST = SecretBox.randomKey();
  static final byte[] SECOND = SecretBox.randomKey();

  /**
   * A new database keeps its secrets under a random data key of its own, which the master key
   * only opens: the master key itself is not the key of any secret, so replacing it can shut
   * the old one out. Every start with that master key opens the same data key.
   */
  @Test
  void a_new_database_has_a_data_key_of_its_own() {
    try (Database db = TestDatabase.fresh()) {
      MasterKeyRing ring = new MasterKeyRing(db.jdbi());
      byte[] dataKey = ring.unlock(FIRST);
      assertThat(dataKey).hasSize(32).isNotEqualTo(FIRST);
      assertThat(ring.unlock(FIRST)).isEqualTo(dataKey);
      assertThat(new MasterKeyRing(db.jdbi()).keys()).extracting(MasterKeyRing.Entry::keyId)
          .containsExactly(SecretBox.masterKeyId(FIRST));
      String stored = db.jdbi().withHandle(h -> h.createQuery("SELECT encode(wrapped, 'hex') FROM master_key_ring")
          .mapTo(String.class).one());
      assertThat(stored).doesNotContain(java.util.HexFormat.of().formatHex(dataKey));
      assertThatThrownBy(() -> ring.unlock(SECOND)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("sealed with another master key").hasMessageContaining("master-key rotate");
    }
  }

  /** Instances that first start at once on a new database agree on one data key. */
  @Test
  void instances_starting_at_once_agree_on_one_data_key() throws Exception {
    try (Database db = TestDatabase.fresh()) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<byte[]>> keys = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          Callable<byte[]> start = () -> new MasterKeyRing(db.jdbi()).unlock(FIRST);
          keys.add(pool.submit(start));
        }
        byte[] first = keys.get(0).get();
        for (Future<byte[]> key : keys) {
          assertThat(key.get()).isEqualTo(first);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * Rotation: after {@code add} both keys open the database and its secrets read as before;
   * after {@code retire} only the new one does, and the old one is refused.
   */
  @Test
  void a_rotated_key_opens_the_same_secrets_and_a_retired_one_opens_nothing() {
    try (Database db = TestDatabase.fresh()) {
      MasterKeyRing ring = new MasterKeyRing(db.jdbi());
      PersistenceAdapters before = new PersistenceAdapters(db, new SecretBox(ring.unlock(FIRST)), Currencies.defaults());
      ShopId shop = TestShops.create(before, "rotated");
      String token = before.cardVault().tokenize(shop, "4000000000000002");

      assertThatThrownBy(() -> ring.add(SECOND, FIRST)).as("a key that does not open it cannot add one")
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("another master key");
      ring.add(FIRST, SECOND);
      assertThatThrownBy(() -> ring.add(FIRST, SECOND)).hasMessageContaining("opens this database already");
      assertThat(ring.unlock(SECOND)).isEqualTo(ring.unlock(FIRST));
      assertThat(ring.keys()).hasSize(2);

      PersistenceAdapters after = new PersistenceAdapters(db, new SecretBox(ring.unlock(SECOND)), Currencies.defaults());
      assertThat(after.cardVault().reveal(shop, token)).contains("4000000000000002");
      assertThat(after.cardVault().tokenize(shop, "4000000000000002")).isEqualTo(token);

      assertThatThrownBy(() -> ring.retire(SecretBox.randomKey())).hasMessageContaining("another master key");
      assertThatThrownBy(() -> ring.retire(FIRST)).as("the old key, left in a shell, would shut out the new one")
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("was added after this one");
      assertThat(ring.keys()).hasSize(2);
      assertThat(ring.retire(SECOND)).containsExactly(SecretBox.masterKeyId(FIRST));
      assertThat(ring.retire(SECOND)).isEmpty();
      assertThat(ring.keys()).extracting(MasterKeyRing.Entry::keyId).containsExactly(SecretBox.masterKeyId(SECOND));
      assertThatThrownBy(() -> ring.unlock(FIRST)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("sealed with another master key");
    }
  }

  /**
   * A database whose secrets a version from before the ring sealed under the master key itself
   * opens with that key as it did, and refuses rotation, which could not shut that key out;
   * another key is refused as before.
   */
  @Test
  void a_database_from_before_the_ring_keeps_its_key_and_refuses_rotation() {
    try (Database db = TestDatabase.fresh()) {
      PersistenceAdapters old = new PersistenceAdapters(db, new SecretBox(FIRST), Currencies.defaults());
      ShopId shop = TestShops.create(old, "from before");
      String token = old.cardVault().tokenize(shop, "4000000000000002");

      MasterKeyRing ring = new MasterKeyRing(db.jdbi());
      assertThatThrownBy(() -> ring.unlock(SECOND)).hasMessageContaining("sealed with another master key");
      assertThat(ring.keys()).isEmpty();
      assertThat(ring.unlock(FIRST)).isEqualTo(FIRST);
      PersistenceAdapters now = new PersistenceAdapters(db, new SecretBox(ring.unlock(FIRST)), Currencies.defaults());
      assertThat(now.cardVault().reveal(shop, token)).contains("4000000000000002");

      assertThatThrownBy(() -> ring.add(FIRST, SECOND)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot be rotated");
      assertThat(ring.keys()).hasSize(1);
      assertThatThrownBy(() -> ring.unlock(SECOND)).hasMessageContaining("sealed with another master key");
    }
  }

  /**
   * A database every release since the digest was recorded (V14) has started on: the digest of
   * its master key, which is its data key, is checked as before.
   */
  @Test
  void a_database_with_the_recorded_digest_of_its_master_key_opens_with_that_key_only() {
    try (Database db = TestDatabase.fresh()) {
      PersistenceAdapters old = new PersistenceAdapters(db, new SecretBox(FIRST), Currencies.defaults());
      ShopId shop = TestShops.create(old, "recorded");
      String token = old.cardVault().tokenize(shop, "4000000000000002");
      db.jdbi().useHandle(h -> h.createUpdate("INSERT INTO master_key_check (digest, created) VALUES (:d, now())")
          .bind("d", new SecretBox(FIRST).fingerprint("tollgate: the master key of this database")).execute());

      MasterKeyRing ring = new MasterKeyRing(db.jdbi());
      assertThatThrownBy(() -> ring.unlock(SECOND)).hasMessageContaining("sealed with another master key");
      assertThat(ring.unlock(FIRST)).isEqualTo(FIRST);
      PersistenceAdapters now = new PersistenceAdapters(db, new SecretBox(ring.unlock(FIRST)), Currencies.defaults());
      assertThat(now.cardVault().reveal(shop, token)).contains("4000000000000002");
      assertThatThrownBy(() -> ring.add(FIRST, SECOND)).hasMessageContaining("cannot be rotated");
    }
  }

  /** A damaged entry of the ring is named as such, in one line an operator can act on. */
  @Test
  void a_damaged_entry_is_named() {
    try (Database db = TestDatabase.fresh()) {
      MasterKeyRing ring = new MasterKeyRing(db.jdbi());
      ring.unlock(FIRST);
      db.jdbi().useHandle(h -> h.execute("UPDATE master_key_ring SET wrapped = set_byte(wrapped, 20, get_byte(wrapped, 20) # 1)"));
      assertThatThrownBy(() -> ring.unlock(FIRST)).isInstanceOf(IllegalStateException.class).hasNoCause()
          .hasMessageContaining("is damaged").hasMessageContaining(SecretBox.masterKeyId(FIRST));
    }
  }
}
