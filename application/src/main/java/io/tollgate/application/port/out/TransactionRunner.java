package io.tollgate.application.port.out;

import java.util.function.Supplier;

/**
 * Runs work in one database transaction. Repository calls made inside {@code work} on the
 * same thread join it; a {@code RuntimeException} rolls everything back.
 */
public interface TransactionRunner {
  <T> T inTransaction(Supplier<T> work);

  default void run(Runnable work) {
    inTransaction(() -> {
      work.run();
      return null;
    });
  }
}
