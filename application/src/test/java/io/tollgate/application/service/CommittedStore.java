package io.tollgate.application.service;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.out.BalanceRepository.LedgerEntry;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The rows behind a mocked {@link PaymentRepository}, kept as the database keeps them when the
 * service stops: what a {@link #tx transaction} wrote stays when it returns and is gone when it
 * throws, and a write outside one stays at once. A write from a stale version is refused as a
 * concurrent modification, as the repository refuses it.
 */
final class CommittedStore {

  /** The committed rows: payments, their operations (oldest first) and the ledger. */
  Map<PaymentId, Payment> rows = new HashMap<>();
  List<PaymentOperation> operations = new ArrayList<>();
  List<LedgerEntry> ledger = new ArrayList<>();

  /** What other fakes of the test undo when the transaction they wrote in fails. */
  private final List<Runnable> undo = new ArrayList<>();

  final TransactionRunner tx = new TransactionRunner() {
    @Override
    public <T> T inTransaction(Supplier<T> work) {
      Map<PaymentId, Payment> rowsBefore = new HashMap<>(rows);
      List<PaymentOperation> operationsBefore = new ArrayList<>(operations);
      List<LedgerEntry> ledgerBefore = new ArrayList<>(ledger);
      undo.clear();
      try {
        return work.get();
      } catch (RuntimeException e) {
        rows = rowsBefore;
        operations = operationsBefore;
        ledger = ledgerBefore;
        undo.forEach(Runnable::run);
        throw e;
      } finally {
        undo.clear();
      }
    }
  };

  /** Runs {@code undo} if the transaction now running fails. */
  void onRollback(Runnable undo) {
    this.undo.add(undo);
  }

  /**
   * Makes the mock read and write these rows: inserts and updates, reads by id (locking ones
   * included, every card read back as one byte of ciphertext), the operations (of the one payment
   * a test makes), and the due payments (every PENDING one).
   */
  CommittedStore backing(PaymentRepository payments) {
    when(payments.insert(any(), any())).thenAnswer(call -> {
      Payment.Transition t = call.getArgument(0);
      return write(t.after().withVersion(1), List.of(t.operation()), call.getArgument(1));
    });
    when(payments.update(any(), anyList(), any())).thenAnswer(call -> {
      Payment.Transition t = call.getArgument(0);
      if (rows.get(t.before().id()).version() != t.before().version()) {
        throw new DomainException.Conflict("concurrent_modification", "changed by another request");
      }
      List<PaymentOperation> ops = new ArrayList<>(call.<List<PaymentOperation>>getArgument(1));
      if (t.operation() != null) {
        ops.add(t.operation());
      }
      return write(t.after().withVersion(t.before().version() + 1), ops, call.getArgument(2));
    });
    when(payments.find(any())).thenAnswer(call -> Optional.ofNullable(rows.get(call.<PaymentId>getArgument(0))));
    when(payments.findForUpdate(any())).thenAnswer(call -> Optional.ofNullable(rows.get(call.<PaymentId>getArgument(0))));
    when(payments.findForUpdateWithCard(any())).thenAnswer(call -> locked(call.getArgument(0)));
    when(payments.findForUpdateWithCard(any(), anyBoolean())).thenAnswer(call -> locked(call.getArgument(0)));
    when(payments.lockDue(any(), any(), anyInt())).thenAnswer(call -> rows.values().stream()
        .filter(p -> p.state() == PaymentState.PENDING)
        .map(p -> new PaymentRepository.Due(p.id(), p.version(), null)).toList());
    when(payments.lockIfUnchanged(any())).thenAnswer(call -> Optional.ofNullable(
        rows.get(call.<PaymentRepository.Due>getArgument(0).id()))
        .filter(p -> p.version() == call.<PaymentRepository.Due>getArgument(0).version()));
    when(payments.operations(any())).thenAnswer(call -> {
      List<PaymentOperation> newestFirst = new ArrayList<>(operations);
      Collections.reverse(newestFirst);
      return newestFirst;
    });
    return this;
  }

  private Optional<PaymentRepository.Locked> locked(PaymentId id) {
    return Optional.ofNullable(rows.get(id)).map(p -> new PaymentRepository.Locked(p, new byte[] {1}));
  }

  private Payment write(Payment p, List<PaymentOperation> ops, Function<Payment, PaymentRepository.Effects> effects) {
    rows.put(p.id(), p);
    operations.addAll(ops);
    ledger.addAll(effects.apply(p).entries());
    return p;
  }

  /** {available, reserved} of the ledger in the currency. */
  BigDecimal[] sum(String currency) {
    return LedgerSums.of(ledger, currency);
  }
}
