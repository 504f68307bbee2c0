package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A start checks the currency setting against the currencies payments were recorded in as they
 * were written, not against every payment: so every code a stored payment is kept in must be in
 * the record, whichever way the payment got there.
 */
class CurrenciesInUseTest {

  private static final Currencies CURRENCIES = new Currencies(Map.of("BTC", 8, "DOGE", 2, "XMR", 12));
  private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

  @Test
  void a_payment_written_in_a_currency_records_it_and_a_rolled_back_one_does_not() {
    try (Database db = TestDatabase.fresh()) {
      PersistenceAdapters adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), CURRENCIES);
      ShopId shop = TestShops.create(adapters, "currencies");
      assertThat(db.currenciesRecorded()).doesNotContain("DOGE", "BTC");

      assertThatThrownBy(() -> adapters.transactionRunner().inTransaction(() -> {
        adapters.payments().insert(Payment.create(draft(shop, "DOGE"), PaymentState.CHECKOUT, T0));
        throw new IllegalStateException("the request failed after the write");
      })).hasMessage("the request failed after the write");
      assertThat(db.currenciesRecorded()).as("nothing of a rolled-back payment").doesNotContain("DOGE");

      // the same repository writes DOGE again: the rolled-back record must not count as made
      adapters.payments().insert(Payment.create(draft(shop, "DOGE"), PaymentState.CHECKOUT, T0));
      adapters.transactionRunner().inTransaction(() ->
          adapters.payments().insert(Payment.create(draft(shop, "BTC"), PaymentState.CHECKOUT, T0)));
      assertThat(db.currenciesRecorded()).contains("DOGE", "BTC");
      assertThat(db.currenciesInUse(List.of("DOGE", "BTC", "XMR"))).containsExactlyInAnyOrder("DOGE", "BTC");
    }
  }

  /** V40 records what payments were kept in before it: charged in and asked in. */
  @Test
  void the_migration_records_the_currencies_of_the_payments_before_it() {
    BeforeMigration db = BeforeMigration.of("40");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Old', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.execute("""
          INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency,
              customer_amount, customer_currency, pre_auth, created, updated, version) VALUES
            (repeat('1', 32), 1, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 1, 'EUR', NULL, NULL, false, now(), now(), 1),
            (repeat('2', 32), 1, 'WITHDRAWAL', 'COMPLETED', 'BASIC_CARD', 1, 'EUR', 0.00002, 'DOGE', false, now(), now(), 1),
            (repeat('3', 32), 1, 'DEPOSIT', 'CHECKOUT', 'BASIC_CARD', 1, 'XMR', NULL, NULL, false, now(), now(), 1)""");
    });

    db.migrateTheRest();

    List<String> recorded = jdbi.withHandle(h -> h.createQuery("SELECT code FROM currencies_in_use")
        .mapTo(String.class).list());
    assertThat(recorded).containsExactlyInAnyOrder("EUR", "DOGE", "XMR");
  }

  private static Payment.Draft draft(ShopId shop, String currency) {
    return new Payment.Draft(PaymentId.random(), shop, PaymentType.DEPOSIT, PaymentMethod.BASIC_CARD,
        Money.of("1.5", CURRENCIES.require(currency)), null, null, null, false, null, null, null, null, null, Map.of());
  }
}
