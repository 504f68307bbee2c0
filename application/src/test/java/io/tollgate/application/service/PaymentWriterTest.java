package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.out.BalanceRepository.LedgerEntry;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The ledger entries a payout's steps write, whatever currency routing sent it in. */
class PaymentWriterTest {

  private static final Currencies CURRENCIES = Currencies.defaults();

  private final PaymentRepository payments = mock(PaymentRepository.class);
  private final PaymentWriter writer = new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE);
  private final List<LedgerEntry> ledger = new ArrayList<>();

  @BeforeEach
  @SuppressWarnings("unchecked")
  void storesWhatItIsGiven() {
    when(payments.insert(any(), any())).thenAnswer(call -> {
      Payment p = call.<Payment.Transition>getArgument(0).after();
      record(call.<Function<Payment, PaymentRepository.Effects>>getArgument(1).apply(p));
      return p;
    });
    when(payments.update(any(), anyList(), any())).thenAnswer(call -> {
      Payment p = call.<Payment.Transition>getArgument(0).after();
      record(call.<Function<Payment, PaymentRepository.Effects>>getArgument(2).apply(p));
      return p;
    });
  }

  private void record(PaymentRepository.Effects effects) {
    ledger.addAll(effects.entries());
  }

  private static Money money(String amount, String currency) {
    return new Money(new BigDecimal(amount), CURRENCIES.require(currency));
  }

  private Payment withdrawal(Money amount) {
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.WITHDRAWAL,
        PaymentMethod.BASIC_CARD, amount, null, null, null, false, null, null, null, null, null, null);
    return writer.create(Payment.create(draft, PaymentState.PENDING, Instant.now()));
  }

  /** A withdrawal of a checking shop that only a terminal in another currency could pay when it was created. */
  private Payment heldOnceRouted(Money amount, PaymentState initial) {
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.WITHDRAWAL,
        PaymentMethod.BASIC_CARD, amount, null, null, null, false, null, null, null, null, null, null);
    Payment.Transition creation = Payment.create(draft, initial, Instant.now());
    return writer.create(new Payment.Transition(null, creation.after().holdingOnceRouted(), creation.operation()));
  }

  /** {available, reserved} of the ledger in the currency. */
  private BigDecimal[] sum(String currency) {
    return LedgerSums.of(ledger, currency);
  }

  /** The ledger's sums in {@code currency}: available, then reserved. */
  private void assertSums(String currency, String available, String reserved) {
    assertSums(currency, available, reserved, currency);
  }

  private void assertSums(String currency, String available, String reserved, String description) {
    assertThat(sum(currency)).as(description).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal(available), new BigDecimal(reserved));
  }

  @Test
  void a_withdrawal_routed_to_a_terminal_in_another_currency_is_paid_out_of_that_currency() {
    Payment created = withdrawal(money("5.00", "GBP"));
    Payment routed = writer.route(null, new Payment.Transition(created,
        created.withRouting(money("6.35", "USD"), money("5.00", "GBP"), 3L, "Dollar terminal"), null));

    assertSums("GBP", "0", "0", "given back");
    assertSums("USD", "-6.35", "6.35", "held where the terminal pays");

    writer.update(routed.apply(OperationType.WITHDRAWAL, PaymentState.COMPLETED, Outcome.NONE, Instant.now()));
    assertSums("USD", "-6.35", "0");
    assertSums("GBP", "0", "0");
  }

  @Test
  void a_withdrawal_converted_for_its_terminal_and_declined_releases_what_it_holds_there() {
    Payment created = withdrawal(money("7.00", "GBP"));
    Payment routed = writer.route(null, new Payment.Transition(created,
        created.withRouting(money("8.89", "USD"), money("7.00", "GBP"), 3L, "Dollar terminal"), null));
    writer.update(routed.apply(OperationType.WITHDRAWAL, PaymentState.DECLINED,
        Outcome.error(ErrorCode.E4_00_DECLINED_BY_ISSUER), Instant.now()));

    assertSums("GBP", "0", "0");
    assertSums("USD", "0", "0");
    assertThat(ledger).extracting(e -> e.currency().code()).containsExactly("GBP", "GBP", "USD", "USD");
  }

  @Test
  void a_withdrawal_cascaded_to_a_terminal_in_a_third_currency_moves_what_it_holds_again() {
    Payment created = withdrawal(money("10.00", "EUR"));
    Payment dollars = writer.route(null, new Payment.Transition(created,
        created.withRouting(money("10.85", "USD"), money("10.00", "EUR"), 3L, "Dollar terminal"), null));
    Payment.Transition cascading = dollars.apply(OperationType.CASCADING, PaymentState.PENDING, Outcome.NONE,
        Instant.now());
    Payment pounds = writer.update(new Payment.Transition(cascading.before(),
        cascading.after().withRouting(money("8.50", "GBP"), money("10.00", "EUR"), 4L, "Pound terminal"),
        cascading.operation()));

    assertSums("USD", "0", "0", "nothing left held in dollars");
    assertSums("GBP", "-8.50", "8.50");

    // and back to a terminal in the currency it was asked in: held there as when it was created
    Payment.Transition back = pounds.apply(OperationType.CASCADING, PaymentState.PENDING, Outcome.NONE, Instant.now());
    writer.update(new Payment.Transition(back.before(),
        back.after().withRouting(money("10.00", "EUR"), null, 5L, "Euro terminal"), back.operation()));
    assertSums("GBP", "0", "0");
    assertSums("EUR", "-10.00", "10.00");
  }

  @Test
  void a_step_that_keeps_a_withdrawals_amount_moves_nothing() {
    Payment created = withdrawal(money("5.00", "EUR"));
    writer.route(null, new Payment.Transition(created,
        created.withRouting(money("5.00", "EUR"), null, 3L, "Euro terminal"), null));
    assertThat(ledger).hasSize(1);
  }

  @Test
  void a_withdrawal_that_holds_once_routed_holds_only_what_it_is_routed_in() {
    Payment created = heldOnceRouted(money("5.00", "GBP"), PaymentState.PENDING);
    assertThat(ledger).as("nothing held when it is created").isEmpty();

    Payment routed = writer.route(null, new Payment.Transition(created,
        created.withRouting(money("6.35", "USD"), money("5.00", "GBP"), 3L, "Dollar terminal"), null));
    assertThat(ledger).as("held where it is paid, nothing given back where it never held")
        .extracting(e -> e.currency().code()).containsExactly("USD");
    assertSums("USD", "-6.35", "6.35");

    writer.update(routed.apply(OperationType.WITHDRAWAL, PaymentState.COMPLETED, Outcome.NONE, Instant.now()));
    assertSums("USD", "-6.35", "0");
    assertSums("GBP", "0", "0");
  }

  @Test
  void a_withdrawal_that_holds_once_routed_to_a_terminal_in_its_own_currency_is_held_there_then() {
    Payment created = heldOnceRouted(money("5.00", "EUR"), PaymentState.PENDING);
    Payment routed = writer.route(null, new Payment.Transition(created,
        created.withRouting(money("5.00", "EUR"), null, 3L, "Euro terminal"), null));
    assertSums("EUR", "-5.00", "5.00");

    writer.update(routed.apply(OperationType.WITHDRAWAL, PaymentState.DECLINED,
        Outcome.error(ErrorCode.E4_00_DECLINED_BY_ISSUER), Instant.now()));
    assertSums("EUR", "0", "0");
    assertThat(ledger).hasSize(2);
  }

  @Test
  void a_withdrawal_that_holds_once_routed_gives_back_nothing_when_it_ends_before_it_is_routed() {
    Payment awaiting = heldOnceRouted(money("5.00", "EUR"), PaymentState.AWAITING_APPROVAL);
    writer.update(awaiting.apply(OperationType.REJECT, PaymentState.CANCELLED,
        Outcome.error(ErrorCode.E8_00_REJECTED_BY_MERCHANT), Instant.now()));
    Payment pending = heldOnceRouted(money("7.00", "EUR"), PaymentState.PENDING);
    writer.update(pending.apply(OperationType.WITHDRAWAL, PaymentState.DECLINED,
        Outcome.error(ErrorCode.E1_10_INSUFFICIENT_BALANCE), Instant.now()));

    assertThat(ledger).isEmpty();
  }
}
