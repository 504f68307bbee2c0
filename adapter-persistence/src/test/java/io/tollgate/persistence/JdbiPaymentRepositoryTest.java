package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class JdbiPaymentRepositoryTest extends AbstractPaymentRepositoryContractTest {

  static Database db;
  static PersistenceAdapters adapters;
  static ShopId shop;
  static ShopId otherShop;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh();
    adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), CURRENCIES);
    shop = TestShops.create(adapters, "one");
    otherShop = TestShops.create(adapters, "two");
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Override
  PaymentRepository repository() {
    return adapters.payments();
  }

  @Override
  ShopId shop() {
    return shop;
  }

  @Override
  ShopId otherShop() {
    return otherShop;
  }
}
