package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.in.CheckoutUseCase.CheckoutView;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checkout page reads a payment and then its steps. While a card is being charged (the page
 * opened twice, reloaded, a second tab), the terminal's answer may be stored between the two
 * reads: the page must show where the payment stands, never a 3-D Secure challenge for a card
 * that was not asked for one.
 */
class CheckoutViewRaceTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private static final ShopId SHOP = new ShopId(1);

  private final PaymentRepository payments = mock(PaymentRepository.class);
  private final ShopRepository shops = mock(ShopRepository.class);
  private final TransactionRunner tx = new TransactionRunner() {
    @Override
    public <T> T inTransaction(java.util.function.Supplier<T> work) {
      return work.get();
    }
  };
  private ProcessingService service;

  @BeforeEach
  void setUp() {
    when(shops.find(SHOP)).thenReturn(Optional.of(new Shop(SHOP, new MerchantId(4), "Shop", null, null,
        Shop.DEFAULT_CHECKOUT_TIMEOUT, false, false, "EUR")));
    service = new ProcessingService(tx, payments, new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE),
        mock(BalanceRepository.class), shops, mock(CardVault.class), new PayoutCascadeTest.Acquirers(),
        mock(ReferenceData.class), mock(GroupRepository.class), null, CURRENCIES, Clock.systemUTC(), Duration.ZERO,
        new SecurityCodes(), new RecentShops(shops));
  }

  private static Payment checkout() {
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), SHOP, PaymentType.DEPOSIT, PaymentMethod.BASIC_CARD,
        new Money(new BigDecimal("10.00"), CURRENCIES.require("EUR")), null, null, null, false,
        new CardDetails("400000******0408", "tok_1", null, "12", "2045", "VISA", null), null, null, null, null, null);
    return Payment.create(draft, PaymentState.CHECKOUT, Instant.now()).after();
  }

  private static PaymentOperation step(long id, OperationType type, PaymentState after) {
    Instant now = Instant.now();
    return new PaymentOperation(id, type, now, now, after, null, null);
  }

  @Test
  void a_card_answered_between_the_two_reads_is_shown_as_it_now_stands_not_challenged() {
    Payment checkout = checkout();
    Payment sent = checkout.apply(OperationType.CHECKOUT, PaymentState.PENDING, Outcome.NONE, Instant.now()).after();
    Payment done = sent.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, Instant.now()).after();
    // the payment as it was while the card was sent; its steps with the terminal's answer
    when(payments.find(checkout.id())).thenReturn(Optional.of(sent), Optional.of(done));
    when(payments.operations(checkout.id())).thenReturn(List.of(step(3, OperationType.DEPOSIT, PaymentState.COMPLETED),
        step(2, OperationType.CHECKOUT, PaymentState.PENDING), step(1, OperationType.CREATE_PAYMENT,
            PaymentState.CHECKOUT)));

    CheckoutView view = service.view(checkout.id().value());

    assertThat(view.payment().state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(view.challengeAttempt()).as("no challenge offered").isZero();
  }

  @Test
  void a_card_its_terminal_asked_a_challenge_for_is_challenged() {
    Payment checkout = checkout();
    Payment sent = checkout.apply(OperationType.CHECKOUT, PaymentState.PENDING, Outcome.NONE, Instant.now()).after();
    when(payments.find(checkout.id())).thenReturn(Optional.of(sent));
    when(payments.operations(checkout.id())).thenReturn(List.of(step(3, OperationType.DEPOSIT, PaymentState.PENDING),
        step(2, OperationType.CHECKOUT, PaymentState.PENDING), step(1, OperationType.CREATE_PAYMENT,
            PaymentState.CHECKOUT)));

    CheckoutView view = service.view(checkout.id().value());

    assertThat(view.unanswered()).isFalse();
    assertThat(view.challengeAttempt()).isEqualTo(1);
  }

  @Test
  void a_card_still_with_its_terminal_is_in_progress() {
    Payment checkout = checkout();
    Payment sent = checkout.apply(OperationType.CHECKOUT, PaymentState.PENDING, Outcome.NONE, Instant.now()).after();
    when(payments.find(checkout.id())).thenReturn(Optional.of(sent));
    when(payments.operations(checkout.id())).thenReturn(List.of(step(2, OperationType.CHECKOUT, PaymentState.PENDING),
        step(1, OperationType.CREATE_PAYMENT, PaymentState.CHECKOUT)));

    CheckoutView view = service.view(checkout.id().value());

    assertThat(view.unanswered()).isTrue();
    assertThat(view.challengeAttempt()).isZero();
  }
}
