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
    if (effects.entry() != null) {
      ledger.add(effects.entry());
    }
  }

  private static Money money(String amount, String currency) {
    return new Money(new BigDecimal(amount), CURRENCIES.require(currency));
  }

  private Payment withdrawal(Money amount) {
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.WITHDRAWAL,
        PaymentMethod.BASIC_CARD, amount, null, null, null, false, null, null, null, null, null, null);
    return writer.create(Payment.create(draft, PaymentState.PENDING, Instant.now()));
  }

  /** {available, reserved} of the ledger in the currency. */
  private BigDecimal[] sum(String currency) {
    return LedgerSums.of(ledger, currency);
  }

  @Test
  void a_withdrawal_converted_for_its_terminal_pays_out_the_amount_and_currency_it_reserved() {
    Payment created = withdrawal(money("5.00", "GBP"));
    Payment routed = created.withRouting(money("6.35", "USD"), money("5.00", "GBP"), 3L, "Dollar terminal");
    writer.update(routed.apply(OperationType.WITHDRAWAL, PaymentState.COMPLETED, Outcome.NONE, Instant.now()));

    assertThat(sum("GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-5.00"), BigDecimal.ZERO);
    assertThat(sum("USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  @Test
  void a_withdrawal_converted_for_its_terminal_and_declined_releases_what_it_reserved() {
    Payment created = withdrawal(money("7.00", "GBP"));
    Payment routed = created.withRouting(money("8.89", "USD"), money("7.00", "GBP"), 3L, "Dollar terminal");
    writer.update(routed.apply(OperationType.WITHDRAWAL, PaymentState.DECLINED,
        Outcome.error(ErrorCode.E4_00_DECLINED_BY_ISSUER), Instant.now()));

    assertThat(sum("GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    assertThat(ledger).allSatisfy(e -> assertThat(e.currency().code()).isEqualTo("GBP"));
  }
}
