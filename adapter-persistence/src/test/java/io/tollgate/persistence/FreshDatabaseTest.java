package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.persistence.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** A test class's own migrated database and the adapters over it, dropped after the class. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FreshDatabaseTest {

  Database db;
  PersistenceAdapters adapters;

  @BeforeAll
  void startDatabase() {
    db = TestDatabase.fresh();
    adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), AbstractPaymentRepositoryContractTest.CURRENCIES);
  }

  @AfterAll
  void stopDatabase() {
    db.close();
  }
}
