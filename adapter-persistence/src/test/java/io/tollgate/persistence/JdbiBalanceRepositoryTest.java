package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.BalanceRepository.AccountType;
import io.tollgate.application.port.out.BalanceRepository.BalanceAccount;
import io.tollgate.application.port.out.BalanceRepository.LedgerEntry;
import io.tollgate.application.port.out.BalanceRepository.Transfer;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JdbiBalanceRepositoryTest extends FreshDatabaseTest {

  private static final Currencies CURRENCIES = AbstractPaymentRepositoryContractTest.CURRENCIES;

  /**
   * A balance account keeps its id for good: a currency listed before the others opens new
   * accounts and renumbers none, another shop's accounts have ids of their own, and more slot
   * rows of a currency open no more accounts.
   */
  @Test
  void a_balance_account_keeps_its_id_when_the_shop_holds_a_new_currency() {
    ShopId shop = TestShops.create(adapters, "accounts");
    ShopId other = TestShops.create(adapters, "accounts-other");
    adapters.balances().lock(shop, CURRENCIES.require("EUR"));
    List<BalanceAccount> euros = adapters.balances().accounts(shop);
    assertThat(euros).extracting(a -> a.balance().currency().code() + " " + a.type())
        .containsExactly("EUR AVAILABLE", "EUR WITHDRAWAL");
    adapters.balances().lock(other, CURRENCIES.require("EUR"));

    addToSlots(shop, "BTC", "0.00115", 3);
    addToSlots(shop, "EUR", "12.50", 5);

    List<BalanceAccount> accounts = adapters.balances().accounts(shop);
    assertThat(accounts).extracting(a -> a.balance().currency().code() + " " + a.type())
        .containsExactly("BTC AVAILABLE", "BTC WITHDRAWAL", "EUR AVAILABLE", "EUR WITHDRAWAL");
    assertThat(accounts.subList(2, 4)).extracting(BalanceAccount::id)
        .containsExactlyElementsOf(euros.stream().map(BalanceAccount::id).toList());
    assertThat(accounts.get(0).balance().amount()).isEqualByComparingTo("0.00345");
    assertThat(accounts.get(0).balance().amount().scale()).isEqualTo(8);
    assertThat(accounts.get(2).balance().amount()).isEqualByComparingTo("62.50");
    assertThat(accounts.get(3).balance().amount()).isEqualByComparingTo("0");
    List<Long> others = adapters.balances().accounts(other).stream().map(BalanceAccount::id).toList();
    assertThat(accounts).extracting(BalanceAccount::id).doesNotContainAnyElementsOf(others).doesNotHaveDuplicates();
    assertThat(accounts).allMatch(a -> a.shop().equals(shop)).filteredOn(a -> a.type() == AccountType.WITHDRAWAL)
        .hasSize(2);
  }

  /**
   * The check of a currency a payout might be paid in locks what the shop has there, every slot,
   * until its transaction ends, and adds nothing: a currency only checked opens no accounts.
   */
  @Test
  void a_checked_currency_is_locked_until_the_transaction_ends_and_gets_no_row() throws Exception {
    ShopId shop = TestShops.create(adapters, "checked");
    assertThat(adapters.balances().lockHeld(shop, CURRENCIES.require("USD")).available()).isZero();
    assertThat(adapters.balances().accounts(shop)).as("no USD accounts opened").isEmpty();

    addToSlots(shop, "EUR", "4.00", 3);
    java.util.concurrent.CountDownLatch locked = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    Thread holder = new Thread(() -> adapters.transactionRunner().inTransaction(() -> {
      assertThat(adapters.balances().lockHeld(shop, CURRENCIES.require("EUR")).available())
          .isEqualByComparingTo("12.00");
      locked.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    }));
    holder.start();
    assertThat(locked.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    try {
      int waiting = db.jdbi().withHandle(h -> {
        h.execute("SET lock_timeout = '200ms'");
        try {
          h.execute("UPDATE balances SET available = available + 1 WHERE shop_id = ? AND currency = 'EUR' "
              + "AND slot = 2", shop.value());
          return 0;
        } catch (org.jdbi.v3.core.statement.UnableToExecuteStatementException e) {
          return 1;
        }
      });
      assertThat(waiting).as("a deposit's slot waits for the check's transaction").isEqualTo(1);
    } finally {
      release.countDown();
      holder.join();
    }
  }

  /**
   * A shop whose dollars came only from deposits converted into them has them in slots above 0.
   * A withdrawal's check there locks the balance and reserves in slot 0; a payout's check of
   * dollars that comes while it is held waits for it and must count what it reserved: had it
   * summed the slots without slot 0, it would see 12 available where 2 are, and the two would
   * pass on the same money.
   */
  @Test
  void a_checked_currency_held_only_in_deposit_slots_counts_what_a_withdrawal_reserved_before_it()
      throws Exception {
    ShopId shop = TestShops.create(adapters, "reserved-first");
    Currency usd = CURRENCIES.require("USD");
    addToSlots(shop, "USD", "4.00", 3);
    CountDownLatch reserved = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Object> withdrawal = pool.submit(() -> adapters.transactionRunner().inTransaction(() -> {
        assertThat(adapters.balances().lock(shop, usd).available()).isEqualByComparingTo("12.00");
        reserveInSlotZero(shop, "USD", "10.00");
        reserved.countDown();
        await(commit);
        return null;
      }));
      assertThat(reserved.await(10, TimeUnit.SECONDS)).isTrue();
      Future<BigDecimal> payout = pool.submit(() -> adapters.transactionRunner().inTransaction(
          () -> adapters.balances().lockHeld(shop, usd).available()));
      CardRetentionTest.awaitWaitingOnALock(db);
      commit.countDown();
      withdrawal.get(10, TimeUnit.SECONDS);
      assertThat(payout.get(10, TimeUnit.SECONDS)).as("the 12.00 less the 10.00 reserved")
          .isEqualByComparingTo("2.00");
    } finally {
      commit.countDown();
      pool.shutdownNow();
    }
  }

  /**
   * A payout's check that locked the dollars a shop holds only in deposit slots, and a
   * withdrawal's check of them that comes after it, both commit: the withdrawal waits, and the
   * payout's transfer then takes the dollars from slot 0. Had the withdrawal's check added slot 0
   * before waiting on a slot the payout held, the transfer would wait on that new row and the
   * database would end one of them as a deadlock.
   */
  @Test
  void a_payout_check_and_a_withdrawal_check_of_a_currency_held_only_in_deposit_slots_both_commit()
      throws Exception {
    ShopId shop = TestShops.create(adapters, "transferred-first");
    Currency usd = CURRENCIES.require("USD");
    addToSlots(shop, "USD", "4.00", 3);
    PaymentId payout = withdrawal(shop);
    CountDownLatch checked = new CountDownLatch(1);
    CountDownLatch transfer = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Object> routed = pool.submit(() -> adapters.transactionRunner().inTransaction(() -> {
        adapters.balances().lockTransfers(shop);
        assertThat(adapters.balances().lockHeld(shop, usd).available()).isEqualByComparingTo("12.00");
        checked.countDown();
        await(transfer);
        Instant now = Instant.now();
        // held in euros when it was asked, paid in dollars where it is routed
        db.jdbi().useHandle(h -> JdbiBalanceRepository.transfer(h, new Transfer(
            new LedgerEntry(shop, CURRENCIES.require("EUR"), new BigDecimal("5.00"), new BigDecimal("-5.00"),
                payout, "released: routed", now),
            new LedgerEntry(shop, usd, new BigDecimal("-6.00"), new BigDecimal("6.00"), payout, "reserved: routed",
                now))));
        return null;
      }));
      assertThat(checked.await(10, TimeUnit.SECONDS)).isTrue();
      Future<BigDecimal> withdrawal = pool.submit(() -> adapters.transactionRunner().inTransaction(
          () -> adapters.balances().lock(shop, usd).available()));
      CardRetentionTest.awaitWaitingOnALock(db);
      transfer.countDown();
      routed.get(10, TimeUnit.SECONDS);
      assertThat(withdrawal.get(10, TimeUnit.SECONDS)).as("the 12.00 less the 6.00 the payout holds")
          .isEqualByComparingTo("6.00");
    } finally {
      transfer.countDown();
      pool.shutdownNow();
    }
  }

  /** What a withdrawal's creation writes to the balance it locked: {@code amount} reserved, in slot 0. */
  private void reserveInSlotZero(ShopId shop, String currency, String amount) {
    db.jdbi().useHandle(h -> h.execute("""
        UPDATE balances SET available = available - CAST(? AS numeric), reserved = reserved + CAST(? AS numeric)
         WHERE shop_id = ? AND currency = ? AND slot = 0""", amount, amount, shop.value(), currency));
  }

  /** A pending withdrawal of the shop, for the ledger entries of its transfer to name. */
  private PaymentId withdrawal(ShopId shop) {
    PaymentId id = PaymentId.random();
    db.jdbi().useHandle(h -> h.execute("""
        INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth,
            created, updated, version)
        VALUES (?, ?, 'WITHDRAWAL', 'PENDING', 'BASIC_CARD', 5.00, 'EUR', false, now(), now(), 1)""",
        id.value(), shop.value()));
    return id;
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code count} slot rows (1..count) of the currency, each holding {@code each} more. */
  private void addToSlots(ShopId shop, String currency, String each, int count) {
    db.jdbi().useHandle(h -> h.execute("""
        INSERT INTO balances (shop_id, currency, slot, available, reserved, updated)
        SELECT ?, ?, s, CAST(? AS numeric), 0, now() FROM generate_series(1, ?) AS s""",
        shop.value(), currency, each, count));
  }
}
