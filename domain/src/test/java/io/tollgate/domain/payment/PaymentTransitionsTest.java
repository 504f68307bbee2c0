package io.tollgate.domain.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tollgate.domain.DomainException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every (type, state, operation) combination against CONTRACT section 3, written out here
 * independently of the production table: what is listed is allowed with exactly these
 * targets, everything else is refused with 1.00.
 */
class PaymentTransitionsTest {

  private record Row(PaymentType type, PaymentState from, OperationType op) {}

  private static final Map<Row, Set<PaymentState>> CONTRACT = Map.ofEntries(
      row(PaymentType.DEPOSIT, PaymentState.CHECKOUT, OperationType.CHECKOUT, PaymentState.PENDING),
      row(PaymentType.DEPOSIT, PaymentState.CHECKOUT, OperationType.DETECT_FRAUD, PaymentState.CHECKOUT, PaymentState.DECLINED),
      row(PaymentType.DEPOSIT, PaymentState.CHECKOUT, OperationType.DEPOSIT,
          PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED, PaymentState.DECLINED),
      row(PaymentType.DEPOSIT, PaymentState.CHECKOUT, OperationType.CANCEL, PaymentState.CANCELLED),
      row(PaymentType.DEPOSIT, PaymentState.PENDING, OperationType.DETECT_FRAUD, PaymentState.PENDING, PaymentState.DECLINED),
      row(PaymentType.DEPOSIT, PaymentState.PENDING, OperationType.REDIRECT, PaymentState.PENDING),
      row(PaymentType.DEPOSIT, PaymentState.PENDING, OperationType.CONFIRMATION, PaymentState.PENDING, PaymentState.DECLINED),
      row(PaymentType.DEPOSIT, PaymentState.PENDING, OperationType.CASCADING, PaymentState.PENDING),
      row(PaymentType.DEPOSIT, PaymentState.PENDING, OperationType.DEPOSIT,
          PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED, PaymentState.DECLINED),
      row(PaymentType.DEPOSIT, PaymentState.PENDING, OperationType.CANCEL, PaymentState.CANCELLED),
      row(PaymentType.DEPOSIT, PaymentState.AUTHORIZED, OperationType.CAPTURE, PaymentState.COMPLETED),
      row(PaymentType.DEPOSIT, PaymentState.AUTHORIZED, OperationType.VOID, PaymentState.CANCELLED),
      row(PaymentType.WITHDRAWAL, PaymentState.AWAITING_APPROVAL, OperationType.APPROVE, PaymentState.PENDING),
      row(PaymentType.WITHDRAWAL, PaymentState.AWAITING_APPROVAL, OperationType.REJECT, PaymentState.CANCELLED),
      row(PaymentType.WITHDRAWAL, PaymentState.PENDING, OperationType.DETECT_FRAUD, PaymentState.PENDING, PaymentState.DECLINED),
      row(PaymentType.WITHDRAWAL, PaymentState.PENDING, OperationType.CASCADING, PaymentState.PENDING),
      row(PaymentType.WITHDRAWAL, PaymentState.PENDING, OperationType.WITHDRAWAL, PaymentState.PENDING, PaymentState.COMPLETED,
          PaymentState.DECLINED),
      row(PaymentType.REFUND, PaymentState.PENDING, OperationType.REFUND, PaymentState.COMPLETED, PaymentState.DECLINED));

  private static Map.Entry<Row, Set<PaymentState>> row(PaymentType t, PaymentState from, OperationType op, PaymentState... to) {
    return Map.entry(new Row(t, from, op), Set.of(to));
  }

  static Stream<Arguments> everyCombination() {
    List<Arguments> all = new ArrayList<>();
    for (PaymentType t : PaymentType.values()) {
      for (PaymentState s : PaymentState.values()) {
        for (OperationType op : OperationType.values()) {
          for (PaymentState to : PaymentState.values()) {
            all.add(Arguments.of(t, s, op, to));
          }
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} {1} -{2}-> {3}")
  @MethodSource("everyCombination")
  void allows_exactly_the_contract_transitions(PaymentType type, PaymentState from, OperationType op, PaymentState to) {
    Set<PaymentState> allowed = CONTRACT.getOrDefault(new Row(type, from, op), Set.of());
    assertThat(PaymentTransitions.allows(type, from, op)).isEqualTo(!allowed.isEmpty());
    if (allowed.contains(to)) {
      PaymentTransitions.check(type, from, op, to);
    } else {
      assertThatThrownBy(() -> PaymentTransitions.check(type, from, op, to))
          .isInstanceOf(DomainException.Conflict.class)
          .hasMessage("1.00 Illegal Workflow State");
    }
  }

  @Test
  void no_operation_leaves_a_final_state() {
    for (PaymentType t : PaymentType.values()) {
      for (PaymentState s : EnumSet.of(PaymentState.COMPLETED, PaymentState.DECLINED, PaymentState.CANCELLED)) {
        for (OperationType op : OperationType.values()) {
          assertThat(PaymentTransitions.allows(t, s, op)).as("%s %s %s", t, s, op).isFalse();
        }
      }
    }
  }

  @Test
  void new_payments_start_where_the_contract_says() {
    assertThat(PaymentTransitions.initialStates(PaymentType.DEPOSIT)).containsExactly(PaymentState.CHECKOUT);
    assertThat(PaymentTransitions.initialStates(PaymentType.WITHDRAWAL))
        .containsExactlyInAnyOrder(PaymentState.PENDING, PaymentState.AWAITING_APPROVAL);
    assertThat(PaymentTransitions.initialStates(PaymentType.REFUND)).containsExactly(PaymentState.PENDING);
  }
}
