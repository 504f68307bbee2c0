package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.in.BackgroundWorkUseCase;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.application.port.out.PaymentProcessor.Result;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
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
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A refund goes back through its deposit's terminal only when that terminal's API takes
 * refunds; otherwise the worker declines it 1.05 without asking the processor. The terminal is
 * the deposit's by id, or by name for a deposit stored before terminals were recorded by id.
 */
class RefundTerminalTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private static final ShopId SHOP = new ShopId(1);
  private static final MerchantId MERCHANT = new MerchantId(4);
  private static final String DEFAULT_TERMINAL = "Default terminal";

  private final Map<PaymentId, Payment> rows = new HashMap<>();
  private final PaymentRepository payments = mock(PaymentRepository.class);
  private final ReferenceData reference = mock(ReferenceData.class);
  private final ShopRepository shops = mock(ShopRepository.class);
  private final PaymentProcessor processor = mock(PaymentProcessor.class);
  private ProcessingService service;

  private final TransactionRunner tx = new TransactionRunner() {
    @Override
    public <T> T inTransaction(Supplier<T> work) {
      return work.get();
    }
  };

  @BeforeEach
  void store() {
    when(payments.update(any(), anyList(), any())).thenAnswer(call -> {
      Payment.Transition t = call.getArgument(0);
      Payment stored = t.after().withVersion(t.before().version() + 1);
      rows.put(stored.id(), stored);
      return stored;
    });
    when(payments.find(any())).thenAnswer(call -> Optional.ofNullable(rows.get(call.<PaymentId>getArgument(0))));
    when(payments.findForUpdate(any())).thenAnswer(call -> Optional.ofNullable(rows.get(call.<PaymentId>getArgument(0))));
    when(payments.lockDue(any(), any(), anyInt())).thenAnswer(call -> rows.values().stream()
        .filter(p -> p.type() == PaymentType.REFUND && p.state() == PaymentState.PENDING)
        .map(p -> new PaymentRepository.Due(p.id(), p.version(), null)).toList());
    when(payments.lockIfUnchanged(any())).thenAnswer(call -> Optional.ofNullable(
        rows.get(call.<PaymentRepository.Due>getArgument(0).id()))
        .filter(p -> p.version() == call.<PaymentRepository.Due>getArgument(0).version()));
    when(processor.terminalName()).thenReturn(DEFAULT_TERMINAL);
    when(processor.refund(any(), any(), any(), any(), any())).thenReturn(Result.approved("r-1", "00"));
    when(shops.find(SHOP)).thenReturn(Optional.of(new Shop(SHOP, MERCHANT, "Shop", null, null, null, false, false,
        null)));
    service = new ProcessingService(tx, payments, new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE),
        mock(BalanceRepository.class), shops, mock(CardVault.class), processor, reference,
        mock(GroupRepository.class), null, CURRENCIES, Clock.systemUTC(), Duration.ZERO, new SecurityCodes(),
        new RecentShops(shops));
  }

  private static ReferenceData.Terminal terminal(long id, String name, String... apiTypes) {
    return new ReferenceData.Terminal(id, MERCHANT, name, "ACTIVE", "P", "SANDBOX", "Sandbox", List.of(apiTypes),
        Instant.now());
  }

  /** A completed deposit on the terminal, and a pending refund of it; returns the refund. */
  private Payment refundOfDepositOn(Long terminalId, String terminalName) {
    Instant now = Instant.now();
    Money amount = new Money(new java.math.BigDecimal("10.00"), CURRENCIES.require("EUR"));
    Payment deposit = Payment.create(new Payment.Draft(PaymentId.random(), SHOP, PaymentType.DEPOSIT,
            PaymentMethod.BASIC_CARD, amount, null, null, null, false, null, null, null, null, null, null),
        PaymentState.CHECKOUT, now).after().withRouting(amount, null, terminalId, terminalName)
        .apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE.withExternal("d-1", "00"), now).after();
    rows.put(deposit.id(), deposit);
    Payment refund = Payment.create(new Payment.Draft(PaymentId.random(), SHOP, PaymentType.REFUND,
        PaymentMethod.BASIC_CARD, amount, null, null, deposit.id(), false, null, null, null, null, null, null),
        PaymentState.PENDING, now).after().withVersion(1);
    rows.put(refund.id(), refund);
    return refund;
  }

  @Test
  void a_refund_of_a_deposit_on_a_terminal_without_refund_is_declined_1_05_unsent() {
    when(reference.terminal(7)).thenReturn(Optional.of(terminal(7, "Deposits only", "DEPOSIT", "WITHDRAWAL")));
    Payment refund = refundOfDepositOn(7L, "Deposits only");

    service.processPayouts(10);

    Payment declined = rows.get(refund.id());
    assertThat(declined.state()).isEqualTo(PaymentState.DECLINED);
    assertThat(declined.errorCode()).isEqualTo(ErrorCode.E1_05_TERMINAL_NOT_FOUND);
    assertThat(declined.terminalId()).isEqualTo(7L);
    verify(processor, never()).refund(any(), any(), any(), any(), any());
  }

  @Test
  void a_refund_of_a_deposit_on_a_terminal_with_refund_is_sent_back_through_it() {
    when(reference.terminal(8)).thenReturn(Optional.of(terminal(8, "Refunds", "DEPOSIT", "REFUND")));
    Payment refund = refundOfDepositOn(8L, "Refunds");

    service.processPayouts(10);

    assertThat(rows.get(refund.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(rows.get(refund.id()).terminalName()).isEqualTo("Refunds");
  }

  /**
   * A terminal that has not decided yet may still send the money back: the refund stays
   * PENDING, holding its place in the deposit's refundable amount, until asked again.
   */
  @Test
  void a_refund_its_terminal_has_not_decided_yet_stays_pending_and_is_asked_again() {
    when(reference.terminal(8)).thenReturn(Optional.of(terminal(8, "Refunds", "DEPOSIT", "REFUND")));
    Payment refund = refundOfDepositOn(8L, "Refunds");
    when(processor.refund(any(), any(), any(), any(), any()))
        .thenReturn(new Result(Result.Status.PENDING, null, "r-1", "09", java.util.Map.of(), null))
        .thenReturn(Result.approved("r-1", "00"));

    assertThat(service.processPayouts(10).moved()).isZero();
    assertThat(rows.get(refund.id()).state()).isEqualTo(PaymentState.PENDING);
    assertThat(rows.get(refund.id()).errorCode()).isNull();
    verify(payments).checked(org.mockito.ArgumentMatchers.eq(refund.id()), any());

    assertThat(service.processPayouts(10).moved()).isEqualTo(1);
    assertThat(rows.get(refund.id()).state()).isEqualTo(PaymentState.COMPLETED);
    verify(processor, org.mockito.Mockito.times(2)).refund(org.mockito.ArgumentMatchers.eq(refund.id()), any(), any(),
        any(), any());
  }

  /**
   * A refund sent to its terminal is asked there again until it answers, whatever the terminal's
   * API types say meanwhile: the acquirer may have paid it back already. It was declined 1.05
   * unasked once the operator took REFUND from the terminal, its amount given back to the
   * balance, and the deposit could be refunded a second time.
   */
  @Test
  void a_refund_sent_to_its_terminal_is_asked_there_again_after_the_terminal_stops_taking_refunds() {
    when(reference.terminal(8)).thenReturn(Optional.of(terminal(8, "Refunds", "DEPOSIT", "REFUND")));
    Payment refund = refundOfDepositOn(8L, "Refunds");
    when(processor.refund(any(), any(), any(), any(), any()))
        .thenReturn(new Result(Result.Status.PENDING, null, "r-1", "09", java.util.Map.of(), null))
        .thenReturn(Result.approved("r-1", "00"));
    service.processPayouts(10);
    assertThat(rows.get(refund.id()).state()).isEqualTo(PaymentState.PENDING);
    assertThat(rows.get(refund.id()).terminalName()).as("stored as sent there").isEqualTo("Refunds");

    when(reference.terminal(8)).thenReturn(Optional.of(terminal(8, "Refunds", "DEPOSIT")));
    service.processPayouts(10);

    assertThat(rows.get(refund.id()).state()).isEqualTo(PaymentState.COMPLETED);
    verify(processor, org.mockito.Mockito.times(2)).refund(org.mockito.ArgumentMatchers.eq(refund.id()), any(), any(),
        any(), any());
  }

  /**
   * A batch of refunds their terminal has not decided yet is answered as found, though none of
   * them moved on, so that the jobs take the next batch at once rather than leave the refunds
   * behind it for the next round. Before, the batch counted only the refunds it moved.
   */
  @Test
  void a_batch_of_refunds_their_terminal_has_not_decided_yet_is_answered_as_found() {
    when(reference.terminal(8)).thenReturn(Optional.of(terminal(8, "Refunds", "DEPOSIT", "REFUND")));
    refundOfDepositOn(8L, "Refunds");
    refundOfDepositOn(8L, "Refunds");
    when(processor.refund(any(), any(), any(), any(), any()))
        .thenReturn(new Result(Result.Status.PENDING, null, "r-1", "09", java.util.Map.of(), null));

    assertThat(service.processPayouts(2)).isEqualTo(new BackgroundWorkUseCase.Batch(2, 0));
  }

  @Test
  void a_deposit_stored_with_its_terminal_name_only_is_refunded_as_that_terminal_of_the_merchant_says() {
    when(reference.terminal(MERCHANT, "Old deposits only")).thenReturn(Optional.of(terminal(9, "Old deposits only",
        "DEPOSIT")));
    Payment refused = refundOfDepositOn(null, "Old deposits only");
    Payment sent = refundOfDepositOn(null, "Unknown to the merchant");

    service.processPayouts(10);

    assertThat(rows.get(refused.id()).errorCode()).isEqualTo(ErrorCode.E1_05_TERMINAL_NOT_FOUND);
    assertThat(rows.get(sent.id()).state()).as("a terminal the merchant has no more: sent as before")
        .isEqualTo(PaymentState.COMPLETED);
  }

  @Test
  void a_deposit_on_the_default_terminal_of_a_shop_without_connectors_is_refunded_there() {
    when(reference.terminal(MERCHANT, DEFAULT_TERMINAL)).thenReturn(Optional.of(terminal(10, DEFAULT_TERMINAL,
        "DEPOSIT")));
    Payment refund = refundOfDepositOn(null, DEFAULT_TERMINAL);

    service.processPayouts(10);

    assertThat(rows.get(refund.id()).state()).as("the merchant's terminal of that name is another one")
        .isEqualTo(PaymentState.COMPLETED);
  }
}
