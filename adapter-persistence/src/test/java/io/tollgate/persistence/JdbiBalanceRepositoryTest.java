package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.BalanceRepository.AccountType;
import io.tollgate.application.port.out.BalanceRepository.BalanceAccount;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.shop.ShopId;
import java.util.List;
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

  /** {@code count} slot rows (1..count) of the currency, each holding {@code each} more. */
  private void addToSlots(ShopId shop, String currency, String each, int count) {
    db.jdbi().useHandle(h -> h.execute("""
        INSERT INTO balances (shop_id, currency, slot, available, reserved, updated)
        SELECT ?, ?, s, CAST(? AS numeric), 0, now() FROM generate_series(1, ?) AS s""",
        shop.value(), currency, each, count));
  }
}
