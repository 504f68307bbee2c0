package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.IdempotencyRepository;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.application.port.out.UserRepository;
import io.tollgate.application.port.out.WebhookOutbox;
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
  private final WebhookOutbox webhookOutbox;
  private final UserRepository users;
  private final GroupRepository groups;
  private final ReferenceData referenceData;

  public PersistenceAdapters(Database database, SecretBox secrets, Currencies currencies) {
    var jdbi = database.jdbi();
    this.transactionRunner = new JdbiTransactionRunner(jdbi);
    this.payments = new JdbiPaymentRepository(jdbi, currencies);
    JdbiShopRepository shopRepository = new JdbiShopRepository(jdbi);
    this.shops = shopRepository;
    this.idempotency = new JdbiIdempotencyRepository(jdbi);
    this.cardVault = new JdbiCardVault(jdbi, secrets, Clock.systemUTC());
    this.balances = new JdbiBalanceRepository(jdbi, currencies);
    this.webhookOutbox = new JdbiWebhookOutbox(jdbi);
    this.users = new JdbiUserRepository(jdbi);
    this.groups = new JdbiGroupRepository(jdbi);
    this.referenceData = new JdbiReferenceData(jdbi, shopRepository::changed);
  }

  public ReferenceData referenceData() {
    return referenceData;
  }

  public GroupRepository groups() {
    return groups;
  }

  public UserRepository users() {
    return users;
  }

  public WebhookOutbox webhookOutbox() {
    return webhookOutbox;
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
