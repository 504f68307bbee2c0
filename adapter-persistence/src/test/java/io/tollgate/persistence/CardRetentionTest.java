package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The vault forgets card numbers no payment has used for the retention, on real PostgreSQL:
 * which cards it keeps, and a card stored again in the very instant it is forgotten.
 */
class CardRetentionTest {

  static final Duration RETENTION = Duration.ofDays(30);

  static Database db;
  static PersistenceAdapters adapters;
  static ShopId shop;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh();
    adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), Currencies.defaults());
    shop = TestShops.create(adapters, "retention");
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  /**
   * Kept: a card used within the retention and the day a mark may lag its use, and the card of a
   * payment in flight however old: a deposit in CHECKOUT or PENDING, a payout awaiting the
   * merchant's approval. Forgotten: the card of finished payments only, and a card stored but
   * never used by a payment.
   */
  @Test
  void only_cards_unused_past_the_retention_and_needed_by_no_payment_in_flight_are_forgotten() {
    String lagging = card("4000000000000408", 30 * 24 + 23);
    String finished = card("4111111111111111", 40 * 24, "COMPLETED", "DEPOSIT");
    String unused = card("4012888888881881", 32 * 24);
    String checkout = card("5555000000000107", 400 * 24, "CHECKOUT", "DEPOSIT");
    String pending = card("5105105105105100", 400 * 24, "PENDING", "DEPOSIT");
    String approval = card("4000056655665556", 400 * 24, "AWAITING_APPROVAL", "WITHDRAWAL");
    String authorized = card("4000000000000077", 400 * 24, "AUTHORIZED", "DEPOSIT");

    assertThat(adapters.cardVault().forgetUnusedSince(Instant.now().minus(RETENTION), 50)).isEqualTo(3);

    assertThat(adapters.cardVault().reveal(shop, lagging)).as("31 days minus an hour").contains("4000000000000408");
    assertThat(adapters.cardVault().reveal(shop, checkout)).contains("5555000000000107");
    assertThat(adapters.cardVault().reveal(shop, pending)).contains("5105105105105100");
    assertThat(adapters.cardVault().reveal(shop, approval)).contains("4000056655665556");
    assertThat(adapters.cardVault().reveal(shop, finished)).isEmpty();
    assertThat(adapters.cardVault().reveal(shop, unused)).isEmpty();
    assertThat(adapters.cardVault().reveal(shop, authorized)).as("a capture needs no card number").isEmpty();
    assertThat(adapters.cardVault().tokenize(shop, "4111111111111111"))
        .as("a forgotten card given again gets its token back").isEqualTo(finished);
  }

  /**
   * A card stored again by number while the job forgets it: the store found it (so it stored
   * nothing) but could not mark it, the delete having taken it first. It stores it again, under
   * the same token, instead of answering a token whose card is gone.
   */
  @Test
  void a_card_stored_again_as_it_is_forgotten_is_kept() throws Exception {
    String token = card("4242424242424242", 40 * 24);
    try (Handle job = db.jdbi().open()) {
      job.begin();
      job.createQuery("SELECT 1 FROM card_vault WHERE token = :token FOR UPDATE").bind("token", token)
          .mapTo(Integer.class).one();
      CompletableFuture<String> stored = CompletableFuture.supplyAsync(
          () -> adapters.cardVault().tokenize(shop, "4242424242424242"));
      awaitWaitingOnALock(db);
      job.createUpdate("DELETE FROM card_vault WHERE token = :token").bind("token", token).execute();
      job.commit();

      assertThat(stored.get(10, TimeUnit.SECONDS)).isEqualTo(token);
    }
    assertThat(adapters.cardVault().reveal(shop, token)).contains("4242424242424242");
  }

  /** Waits until a session of the test database waits on a row lock: the store, at its mark. */
  static void awaitWaitingOnALock(Database db) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < until) {
      int waiting = db.jdbi().withHandle(h -> h.createQuery(
              "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
          .mapTo(Integer.class).one());
      if (waiting > 0) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the store never waited on the card's row");
  }

  /** A card stored and last used {@code hoursAgo}, with no payment. */
  private static String card(String number, int hoursAgo) {
    String token = adapters.cardVault().tokenize(shop, number);
    db.jdbi().useHandle(h -> h.createUpdate(
            "UPDATE card_vault SET last_used = now() - make_interval(hours => :hours) WHERE token = :token")
        .bind("hours", hoursAgo).bind("token", token).execute());
    return token;
  }

  /** {@link #card(String, int)}, named by a payment of this type in this state. */
  private static String card(String number, int hoursAgo, String state, String type) {
    String token = card(number, hoursAgo);
    db.jdbi().useHandle(h -> h.createUpdate("""
            INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth,
                card, created, updated, version)
            VALUES (md5(:token), :shop, :type, :state, 'BASIC_CARD', 1, 'EUR', false,
                jsonb_build_object('cardToken', :token), now() - interval '400 days', now() - interval '400 days', 1)""")
        .bind("token", token).bind("shop", shop.value()).bind("type", type).bind("state", state).execute());
    return token;
  }
}
