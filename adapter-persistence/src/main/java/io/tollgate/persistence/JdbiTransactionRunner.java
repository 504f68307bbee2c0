package io.tollgate.persistence;

import io.tollgate.application.port.out.TransactionRunner;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/**
 * Jdbi keeps the open handle per thread, so repository calls inside {@code work} share this
 * transaction.
 */
final class JdbiTransactionRunner implements TransactionRunner {

  private final Jdbi jdbi;

  JdbiTransactionRunner(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public <T> T inTransaction(Supplier<T> work) {
    return jdbi.inTransaction(h -> work.get());
  }
}
