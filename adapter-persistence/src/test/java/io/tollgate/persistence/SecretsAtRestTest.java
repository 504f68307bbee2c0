package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.IdempotencyRepository.PriorUse;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The card vault, shop keys and idempotency keys on real PostgreSQL. */
class SecretsAtRestTest {

  static Database db;
  static PersistenceAdapters adapters;
  static ShopId shop;
  static ShopId other;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh();
    adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), Currencies.defaults());
    shop = TestShops.create(adapters, "vault");
    other = TestShops.create(adapters, "elsewhere");
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void the_vault_gives_one_token_per_card_and_keeps_the_number_only_encrypted() {
    String token = adapters.cardVault().tokenize(shop, "4000000000000002");
    assertThat(token).matches("[0-9a-f]{32}");
    assertThat(adapters.cardVault().tokenize(shop, "4000000000000002")).isEqualTo(token);
    assertThat(adapters.cardVault().tokenize(shop, "4242424242424242")).isNotEqualTo(token);
    assertThat(adapters.cardVault().reveal(shop, token)).contains("4000000000000002");
    assertThat(adapters.cardVault().reveal(other, token)).as("another shop's token").isEmpty();
    assertThat(adapters.cardVault().tokenize(other, "4000000000000002")).as("another shop's own token")
        .isNotEqualTo(token);
    assertThat(adapters.cardVault().seal(shop, "4000000000000002").fingerprint()).doesNotContain(token);

    List<byte[]> stored = db.jdbi().withHandle(h -> h.createQuery("SELECT pan_ciphertext FROM card_vault")
        .mapTo(byte[].class).list());
    for (byte[] ciphertext : stored) {
      assertThat(new String(ciphertext, StandardCharsets.ISO_8859_1)).doesNotContain("4000000000000002").doesNotContain("4242424242424242");
    }
    String dump = db.jdbi().withHandle(h -> h.createQuery("SELECT string_agg(fingerprint || token, ',') FROM card_vault")
        .mapTo(String.class).one());
    assertThat(dump).doesNotContain("4000000000000002");
  }

  @Test
  void a_card_stored_by_many_requests_at_once_gets_one_token() throws Exception {
    var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      var start = new java.util.concurrent.CountDownLatch(1);
      java.util.List<java.util.concurrent.Future<String>> tokens = new java.util.ArrayList<>();
      for (int i = 0; i < 8; i++) {
        tokens.add(pool.submit(() -> {
          start.await();
          return adapters.cardVault().tokenize(shop, "5555555555554444");
        }));
      }
      start.countDown();
      java.util.Set<String> distinct = new java.util.HashSet<>();
      for (var t : tokens) {
        distinct.add(t.get(30, java.util.concurrent.TimeUnit.SECONDS));
      }
      assertThat(distinct).hasSize(1);
      assertThat(adapters.cardVault().reveal(shop, distinct.iterator().next())).contains("5555555555554444");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void only_the_active_key_of_the_environment_is_found() {
    adapters.shops().storeKeys(shop, Environment.SANDBOX, "hash-old", "tg_test_ab", new byte[] {1}, Instant.now());
    adapters.shops().storeKeys(shop, Environment.SANDBOX, "hash-new", "tg_test_cd", new byte[] {2}, Instant.now());
    adapters.shops().storeKeys(shop, Environment.PRODUCTION, "hash-live", "tg_live_ef", new byte[] {3}, Instant.now());

    assertThat(adapters.shops().findActiveKey("hash-old", Environment.SANDBOX)).isEmpty();
    assertThat(adapters.shops().findActiveKey("hash-new", Environment.SANDBOX)).map(k -> k.shopId()).contains(shop);
    assertThat(adapters.shops().findActiveKey("hash-live", Environment.SANDBOX)).isEmpty();
    assertThat(adapters.shops().findActiveKey("hash-live", Environment.PRODUCTION)).isPresent();
    var keys = adapters.shops().signingKeyCiphertexts(shop, Environment.SANDBOX, Instant.now().minusSeconds(3600))
        .orElseThrow();
    assertThat(keys.active()).containsExactly(2);
    assertThat(keys.previous()).as("the key it replaced, within the window").containsExactly(1);
    assertThat(adapters.shops().signingKeyCiphertexts(shop, Environment.SANDBOX, Instant.now().plusSeconds(3600))
        .orElseThrow().previous()).as("replaced before the window").isNull();
  }

  @Test
  void an_idempotency_key_is_claimed_once_until_it_expires() {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    Instant expiry = now.minus(Duration.ofHours(24));
    PaymentId payment = PaymentId.random();
    assertThat(adapters.idempotency().claim(shop, "k1", "fp", now, expiry)).isEmpty();
    adapters.idempotency().complete(shop, "k1", payment);
    assertThat(adapters.idempotency().claim(shop, "k1", "fp2", now, expiry)).contains(new PriorUse("fp", payment, now));
    assertThat(adapters.idempotency().claim(other, "k1", "fp", now, expiry)).as("scoped to the shop").isEmpty();
    Instant muchLater = now.plus(Duration.ofHours(25));
    assertThat(adapters.idempotency().claim(shop, "k1", "fp3", muchLater, muchLater.minus(Duration.ofHours(24))))
        .as("an expired key is free again").isEmpty();
  }

  /**
   * A key past its time is forgotten, its request's digest with it, oldest first and a batch at
   * a time; a key still within its time is kept.
   */
  @Test
  void keys_past_their_time_are_forgotten_oldest_first() {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    Instant longAgo = now.minus(Duration.ofDays(400));
    adapters.idempotency().claim(shop, "old-1", "fp", longAgo, longAgo.minus(Duration.ofHours(24)));
    adapters.idempotency().claim(shop, "old-2", "fp", longAgo.plusSeconds(1), longAgo.minus(Duration.ofHours(24)));
    adapters.idempotency().claim(shop, "recent", "fp", now, now.minus(Duration.ofHours(24)));
    Instant cutoff = now.minus(Duration.ofHours(24));

    assertThat(adapters.idempotency().forgetClaimedBefore(longAgo.plusMillis(500), 10)).isEqualTo(1);
    assertThat(adapters.idempotency().claim(shop, "old-2", "fp2", now, longAgo.minusSeconds(10)))
        .as("the later one is still remembered").isPresent();
    adapters.idempotency().forgetClaimedBefore(cutoff, 1000);
    assertThat(adapters.idempotency().claim(shop, "recent", "fp2", now, cutoff)).as("within its time").isPresent();
    long left = db.jdbi().withHandle(h -> h.createQuery(
        "SELECT count(*) FROM idempotency_keys WHERE idempotency_key IN ('old-1', 'old-2')").mapTo(Long.class).one());
    assertThat(left).isZero();
  }

  /**
   * A key past its time used again by a new request while the clean-up deletes it: the request's
   * claim and payment commit first, and the clean-up, which chose the key as it was, leaves it.
   * Deleted, the key's retry would have made a second payment. The delete keeps its condition on
   * the key's time, which PostgreSQL checks again on the row as the request left it.
   */
  @Test
  void a_key_used_again_while_the_clean_up_deletes_it_is_kept() throws Exception {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    Instant longAgo = now.minus(Duration.ofDays(2));
    Instant cutoff = now.minus(Duration.ofHours(24));
    adapters.idempotency().claim(shop, "reused", "fp", longAgo, longAgo.minus(Duration.ofHours(24)));
    PaymentId payment = PaymentId.random();
    try (org.jdbi.v3.core.Handle request = db.jdbi().open()) {
      request.begin();
      request.createUpdate("""
              UPDATE idempotency_keys SET fingerprint = 'fp2', created = :now, payment_id = :payment
              WHERE shop_id = :shop AND idempotency_key = 'reused'""")
          .bind("now", now).bind("payment", payment.value()).bind("shop", shop.value()).execute();
      CompletableFuture<Integer> cleanUp = CompletableFuture.supplyAsync(
          () -> adapters.idempotency().forgetClaimedBefore(cutoff, 100));
      CardRetentionTest.awaitWaitingOnALock(db);
      request.commit();

      cleanUp.get(10, java.util.concurrent.TimeUnit.SECONDS);
    }
    assertThat(adapters.idempotency().claim(shop, "reused", "fp2", now.plusSeconds(1), cutoff))
        .as("the retry finds the payment").contains(new PriorUse("fp2", payment, now));
  }

  /**
   * A claim committed before its request acts is that request's alone: it is given up, taken
   * over or completed only as the claim made at its time, so that a request taken to be cut
   * short that finishes after all cannot free or overwrite the claim of the one that took over.
   */
  @Test
  void an_unfinished_claim_is_released_taken_over_and_completed_only_as_the_claim_it_is() {
    Instant first = Instant.now().truncatedTo(ChronoUnit.MICROS);
    Instant expiry = first.minus(Duration.ofHours(24));
    assertThat(adapters.idempotency().claim(shop, "k2", "fp", first, expiry)).isEmpty();
    assertThat(adapters.idempotency().claim(shop, "k2", "fp", first.plusSeconds(1), expiry))
        .as("its request has recorded no payment yet").contains(new PriorUse("fp", null, first));

    Instant second = first.plusSeconds(180);
    assertThat(adapters.idempotency().takeOver(shop, "k2", first, second)).isTrue();
    assertThat(adapters.idempotency().takeOver(shop, "k2", first, second.plusSeconds(1)))
        .as("one retry takes it over").isFalse();
    adapters.idempotency().release(shop, "k2", first);
    assertThat(adapters.idempotency().claim(shop, "k2", "fp", second, expiry))
        .as("the first request cannot free the claim taken over").contains(new PriorUse("fp", null, second));

    PaymentId firstAnswer = PaymentId.random();
    adapters.idempotency().complete(shop, "k2", firstAnswer);
    adapters.idempotency().complete(shop, "k2", PaymentId.random());
    adapters.idempotency().release(shop, "k2", second);
    assertThat(adapters.idempotency().claim(shop, "k2", "fp", second, expiry))
        .as("the first answer recorded stays").contains(new PriorUse("fp", firstAnswer, second));

    assertThat(adapters.idempotency().claim(shop, "k3", "fp", first, expiry)).isEmpty();
    adapters.idempotency().release(shop, "k3", first);
    assertThat(adapters.idempotency().claim(shop, "k3", "fp", first, expiry)).as("released").isEmpty();
  }

  @Test
  void two_transactions_claiming_one_key_at_once_see_each_other() throws Exception {
    CountDownLatch bothInside = new CountDownLatch(2);
    List<CompletableFuture<Optional<PriorUse>>> claims = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      claims.add(CompletableFuture.supplyAsync(() -> adapters.transactionRunner().inTransaction(() -> {
        Optional<PriorUse> result = adapters.idempotency().claim(shop, "race", "fp", Instant.now(),
            Instant.now().minus(Duration.ofHours(24)));
        if (result.isEmpty()) {
          adapters.idempotency().complete(shop, "race", PaymentId.random());
        }
        bothInside.countDown();
        return result;
      })));
    }
    long winners = 0;
    for (CompletableFuture<Optional<PriorUse>> c : claims) {
      if (c.get().isEmpty()) {
        winners++;
      } else {
        assertThat(c.get().get().paymentId()).as("the loser sees the winner's payment").isNotNull();
      }
    }
    assertThat(winners).isEqualTo(1);
  }
}
