package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.IdempotencyRepository;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.money.Currencies;
import java.time.Clock;

/** The PostgreSQL implementations of the application's out-ports, on one {@link Database}. */
public final class PersistenceAdapters {

  private final TransactionRunner transactionRunner;
  private final PaymentRepository payments;
  private final ShopRepository shops;
  private final IdempotencyRepository idempotency;
  private final CardVault cardVault;
  private final BalanceRepository balances;

  public PersistenceAdapters(Database database, SecretBox secrets, Currencies currencies) {
    var jdbi = database.jdbi();
    this.transactionRunner = new JdbiTransactionRunner(jdbi);
    this.payments = new JdbiPaymentRepository(jdbi, currencies);
    this.shops = new JdbiShopRepository(jdbi);
    this.idempotency = new JdbiIdempotencyRepository(jdbi);
    this.cardVault = new JdbiCardVault(jdbi, secrets, Clock.systemUTC());
    this.balances = new JdbiBalanceRepository(jdbi, currencies);
  }

  public BalanceRepository balances() {
    return balances;
  }

  public TransactionRunner transactionRunner() {
    return transactionRunner;
  }

  public PaymentRepository payments() {
    return payments;
  }

  public ShopRepository shops() {
    return shops;
  }

  public IdempotencyRepository idempotency() {
    return idempotency;
  }

  public CardVault cardVault() {
    return cardVault;
  }
}
