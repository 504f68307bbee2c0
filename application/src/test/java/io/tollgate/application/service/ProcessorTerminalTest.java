package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.in.PaymentActionsUseCase.HostToHostCommand;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.IdempotencyRepository;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.application.port.out.PaymentProcessor.CardCharge;
import io.tollgate.application.port.out.PaymentProcessor.Result;
import io.tollgate.application.port.out.PaymentProcessor.Terminal;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.PaymentRepository.DueWork;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ReferenceData.Connector;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.Customer;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * Every call to the processor names the terminal it goes through, by id and name, so that an
 * implementation fronting several acquirers can tell them apart: the terminal a payment is
 * routed to, the one that authorized a deposit for its capture or void, the deposit's for a
 * refund, the one that opened a bank transfer for its status, whatever the shop's connectors
 * are by then. A host-to-host charge carries the customer's browser too.
 */
class ProcessorTerminalTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private static final List<String> ALL_TYPES = List.of("DEPOSIT", "WITHDRAWAL", "REFUND");
  private static final ShopId SHOP = new ShopId(1);
  private static final MerchantId MERCHANT = new MerchantId(4);
  private static final String DEFAULT_TERMINAL = "Default terminal";
  private static final String CARD_NUMBER = "4000000000000408";
  private static final long CASCADE_ON_402 = 5;
  private static final Terminal A = new Terminal(7L, "Acquirer A");
  private static final Terminal B = new Terminal(8L, "Acquirer B");

  private final Map<PaymentId, Payment> rows = new HashMap<>();
  /** The operations stored of each payment, oldest first. */
  private final Map<PaymentId, List<PaymentOperation>> operations = new HashMap<>();
  private final ShopRepository shops = mock(ShopRepository.class);
  private final PaymentRepository payments = mock(PaymentRepository.class);
  private final ReferenceData reference = mock(ReferenceData.class);
  private final GroupRepository groups = mock(GroupRepository.class);
  private final CardVault vault = mock(CardVault.class);
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
      List<PaymentOperation> own = operations.computeIfAbsent(stored.id(), id -> new ArrayList<>());
      own.addAll(call.getArgument(1));
      if (t.operation() != null) {
        own.add(t.operation());
      }
      return stored;
    });
    when(payments.operations(any())).thenAnswer(call -> {
      List<PaymentOperation> newestFirst = new ArrayList<>(operations.getOrDefault(call.getArgument(0), List.of()));
      Collections.reverse(newestFirst);
      return newestFirst;
    });
    when(shops.find(SHOP)).thenReturn(Optional.of(new Shop(SHOP, MERCHANT, "Shop", null, null,
        Shop.DEFAULT_CHECKOUT_TIMEOUT, false, false, "EUR")));
    when(payments.findForUpdate(any())).thenAnswer(call -> Optional.ofNullable(rows.get(call.<PaymentId>getArgument(0))));
    when(payments.findForUpdateWithCard(any())).thenAnswer(call -> Optional.ofNullable(
        rows.get(call.<PaymentId>getArgument(0))).map(p -> new PaymentRepository.Locked(p, new byte[] {1})));
    when(payments.findForUpdateWithCard(any(), anyBoolean())).thenAnswer(call -> Optional.ofNullable(
        rows.get(call.<PaymentId>getArgument(0))).map(p -> new PaymentRepository.Locked(p, new byte[] {1})));
    when(payments.lockDue(any(), any(), anyInt())).thenAnswer(call -> rows.values().stream()
        .filter(p -> p.state() == PaymentState.PENDING && isDue(p, call.getArgument(0)))
        .map(p -> new PaymentRepository.Due(p.id(), p.version(), null)).toList());
    when(payments.lockIfUnchanged(any())).thenAnswer(call -> Optional.ofNullable(
        rows.get(call.<PaymentRepository.Due>getArgument(0).id()))
        .filter(p -> p.version() == call.<PaymentRepository.Due>getArgument(0).version()));
    // a capture or void asked of the terminal, as the payment's row keeps it until it is answered
    Map<PaymentId, PaymentRepository.Asked> asked = new HashMap<>();
    org.mockito.Mockito.doAnswer(call -> {
      PaymentRepository.Asked a = call.getArgument(1);
      if (a == null) {
        asked.remove(call.<PaymentId>getArgument(0));
      } else {
        asked.put(call.getArgument(0), a);
      }
      return null;
    }).when(payments).ask(any(), any(), any());
    when(payments.asked(any())).thenAnswer(call -> Optional.ofNullable(asked.get(call.<PaymentId>getArgument(0))));
    when(vault.open(any())).thenReturn(CARD_NUMBER);
    when(vault.reveal(any(), anyString())).thenReturn(Optional.of(CARD_NUMBER));
    when(groups.contains(CASCADE_ON_402, "4.02")).thenReturn(true);

    when(processor.terminalName()).thenReturn(DEFAULT_TERMINAL);
    when(processor.authorize(any())).thenReturn(Result.approved("auth-1", "00"));
    when(processor.capture(any(), any(), any(), any())).thenReturn(Result.approved("auth-1", "00"));
    when(processor.voidAuthorization(any(), any(), any())).thenReturn(Result.approved("auth-1", "00"));
    when(processor.refund(any(), any(), any(), any(), any())).thenReturn(Result.approved("refund-1", "00"));
    when(processor.payout(any())).thenReturn(Result.approved("payout-1", "00"));
    when(processor.bankPayout(any(), any(), any(), any())).thenReturn(Result.approved("payout-1", "PAID"));
    when(processor.startBankTransfer(any(), any(), any(), any())).thenReturn(new Result(Result.Status.PENDING, null,
        "transfer-1", "AWAITING_TRANSFER", Map.of("iban", "DE89370400440532013000"), null));
    when(processor.bankTransferStatus(any(), any(), any(), any(), any())).thenReturn(Result.approved("transfer-1",
        "RECEIVED"));

    service = new ProcessingService(tx, payments, new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE),
        mock(BalanceRepository.class), shops, vault, processor, reference, groups, null,
        CURRENCIES, Clock.systemUTC(), Duration.ZERO, new SecurityCodes(),
        new RecentShops(shops));
  }

  private static boolean isDue(Payment p, DueWork work) {
    return switch (work) {
      case PAYOUTS -> p.type() == PaymentType.WITHDRAWAL || p.type() == PaymentType.REFUND;
      case BANK_TRANSFERS -> p.type() == PaymentType.DEPOSIT && p.method() == PaymentMethod.BANKTRANSFER;
      default -> false;
    };
  }

  private void shopHas(Connector... connectors) {
    when(reference.hasConnectors(SHOP.value())).thenReturn(connectors.length > 0);
    when(reference.connectorsOf(SHOP.value())).thenReturn(List.of(connectors));
  }

  private static Connector connector(Terminal t, PaymentMethod method, int priority, Long cascadeGroup) {
    return new Connector(t.id(), SHOP.value(), t.id(), t.name(), "ACTIVE", method.name(), "EUR", priority, 100, null,
        null, cascadeGroup, null, ALL_TYPES);
  }

  private static Connector connector(Terminal t, PaymentMethod method) {
    return connector(t, method, 1, null);
  }

  private static Money eur(String amount) {
    return new Money(new BigDecimal(amount), CURRENCIES.require("EUR"));
  }

  /** A stored payment of the shop, in its initial state, 10.00 EUR. */
  private Payment stored(PaymentType type, PaymentMethod method, PaymentState state, boolean preAuth,
      Customer customer) {
    CardDetails card = method == PaymentMethod.BASIC_CARD
        ? new CardDetails("400000******0408", "tok_1", null, "12", "2045", "VISA", null) : null;
    Payment p = Payment.create(new Payment.Draft(PaymentId.random(), SHOP, type, method, eur("10.00"), null, null,
        null, preAuth, card, customer, null, null, null, null), state, Instant.now()).after().withVersion(1);
    rows.put(p.id(), p);
    return p;
  }

  private Payment cardDeposit(boolean preAuth) {
    return stored(PaymentType.DEPOSIT, PaymentMethod.BASIC_CARD, PaymentState.CHECKOUT, preAuth, null);
  }

  /** A refund of the deposit, waiting for the worker. */
  private Payment pendingRefund(Payment deposit, String amount) {
    Payment refund = Payment.create(new Payment.Draft(PaymentId.random(), SHOP, PaymentType.REFUND,
            PaymentMethod.BASIC_CARD, eur(amount), null, null, deposit.id(), false, null, null, null, null, null, null),
        PaymentState.PENDING, Instant.now()).after().withVersion(1);
    rows.put(refund.id(), refund);
    return refund;
  }

  /** The merchant's terminal behind {@code t}, taking every type of payment. */
  private static ReferenceData.Terminal sandboxTerminal(Terminal t) {
    return new ReferenceData.Terminal(t.id(), MERCHANT, t.name(), "ACTIVE", "P", "SANDBOX", "Sandbox", ALL_TYPES,
        Instant.now());
  }

  /** Sends the deposit host-to-host, as a merchant does after creating it with a card. */
  private Payment execute(Payment deposit) {
    return service.executeHostToHost(SHOP, deposit.id().value(), new HostToHostCommand("203.0.113.7", null, null,
        null, null, null, null, null, null, null, null));
  }

  /** The terminals of the card charges the processor was asked to authorize, in order. */
  private List<Terminal> authorizedOn(int times) {
    ArgumentCaptor<CardCharge> charges = ArgumentCaptor.forClass(CardCharge.class);
    verify(processor, times(times)).authorize(charges.capture());
    return charges.getAllValues().stream().map(CardCharge::terminal).toList();
  }

  @Test
  void a_card_deposit_is_authorized_on_the_terminal_of_the_connector_it_was_routed_to() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));

    execute(cardDeposit(false));

    assertThat(authorizedOn(1)).containsExactly(A);
  }

  @Test
  void a_card_charge_prints_its_terminal_but_never_its_card_number() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));

    execute(cardDeposit(false));

    ArgumentCaptor<CardCharge> charge = ArgumentCaptor.forClass(CardCharge.class);
    verify(processor).authorize(charge.capture());
    assertThat(charge.getValue().toString()).contains("7", "Acquirer A").doesNotContain(CARD_NUMBER);
  }

  @Test
  void a_card_deposit_of_a_shop_without_connectors_is_authorized_on_the_default_terminal_which_has_no_id() {
    execute(cardDeposit(false));

    assertThat(authorizedOn(1)).containsExactly(new Terminal(null, DEFAULT_TERMINAL));
  }

  @Test
  void a_card_deposit_that_cascades_is_authorized_again_on_the_next_terminal() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD, 1, CASCADE_ON_402), connector(B, PaymentMethod.BASIC_CARD, 2, null));
    when(processor.authorize(any())).thenReturn(Result.declined(ErrorCode.E4_02_DO_NOT_HONOR, "auth-0", "05"),
        Result.approved("auth-1", "00"));

    Payment deposit = execute(cardDeposit(false));

    assertThat(deposit.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(authorizedOn(2)).containsExactly(A, B);
  }

  /**
   * The browser fields of the host-to-host execution reach the processor with the charge, for its
   * 3-D Secure: the first terminal's, and the next one's when a decline cascades.
   */
  @Test
  void a_host_to_host_charge_carries_the_customer_s_browser_to_every_terminal_it_is_sent_to() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD, 1, CASCADE_ON_402), connector(B, PaymentMethod.BASIC_CARD, 2, null));
    when(processor.authorize(any())).thenReturn(Result.declined(ErrorCode.E4_02_DO_NOT_HONOR, "auth-0", "05"),
        Result.approved("auth-1", "00"));
    Payment deposit = cardDeposit(false);

    service.executeHostToHost(SHOP, deposit.id().value(), new HostToHostCommand("203.0.113.7", "DE",
        "Mozilla/5.0 (X11; Linux x86_64)", 1280, 720, 1920, 1080, 24, "de-DE", false, -60));

    ArgumentCaptor<CardCharge> charges = ArgumentCaptor.forClass(CardCharge.class);
    verify(processor, times(2)).authorize(charges.capture());
    assertThat(charges.getAllValues()).extracting(CardCharge::browser).containsOnly(new PaymentProcessor.BrowserInfo(
        "Mozilla/5.0 (X11; Linux x86_64)", "de-DE", false, 24, 1920, 1080, 1280, 720, -60));
  }

  @Test
  void a_pre_authorized_deposit_is_captured_on_the_terminal_that_authorized_it() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));
    Payment authorized = execute(cardDeposit(true));
    assertThat(authorized.state()).isEqualTo(PaymentState.AUTHORIZED);
    shopHas(connector(B, PaymentMethod.BASIC_CARD));

    service.capture(SHOP, authorized.id().value(), new BigDecimal("4.00"));

    verify(processor).capture(authorized.id(), A, "auth-1", eur("4.00"));
  }

  @Test
  void a_pre_authorized_deposit_is_voided_on_the_terminal_that_authorized_it() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));
    Payment authorized = execute(cardDeposit(true));
    shopHas(connector(B, PaymentMethod.BASIC_CARD));

    service.voidAuthorization(SHOP, authorized.id().value());

    verify(processor).voidAuthorization(authorized.id(), A, "auth-1");
  }

  /**
   * A capture asked by a request with an Idempotency-Key is kept with the key, and its answer is
   * recorded as the key's change whoever stores it (here a request without a key asking the same
   * capture again, as the job would): a retry of the keyed request, cut short or failed, is then
   * answered with that capture, and never with a change of another request.
   */
  @Test
  void a_capture_asked_with_a_key_is_that_keys_change_whoever_stores_its_answer() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));
    Payment authorized = execute(cardDeposit(true));
    IdempotencyRepository keys = mock(IdempotencyRepository.class);
    PaymentWriter writer = new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE, keys);
    service = new ProcessingService(tx, payments, writer, mock(BalanceRepository.class), shops, vault, processor,
        reference, groups, null, CURRENCIES, Clock.systemUTC(), Duration.ZERO, new SecurityCodes(),
        new RecentShops(shops));
    when(processor.capture(any(), any(), any(), any()))
        .thenReturn(new Result(Result.Status.PENDING, null, null, null, Map.of(), null))
        .thenReturn(Result.approved("auth-1", "00"));
    String id = authorized.id().value();

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> writer.acting("capture-1", authorized.id(),
        () -> service.capture(SHOP, id, null))).hasMessageContaining("has not answered");
    PaymentRepository.Asked first = payments.asked(authorized.id()).orElseThrow();
    assertThat(first.key()).isEqualTo("capture-1");
    verify(keys, never()).recordActed(any(), any());
    // as read back once its terminal left it unanswered: to be asked again
    when(payments.asked(authorized.id())).thenReturn(Optional.of(new PaymentRepository.Asked(first.operation(),
        first.amount(), first.customerAmount(), first.key(), java.time.Instant.now(), java.time.Instant.now())));

    assertThat(service.capture(SHOP, id, null).state()).isEqualTo(PaymentState.COMPLETED);
    verify(keys).recordActed(SHOP, "capture-1");
  }

  /**
   * A capture asked again, once its terminal had left it unanswered, by two requests at once:
   * the terminal refuses it to one, a capture of another amount is then made, and the other
   * request's refusal comes back after that. It is the refusal it was, not the 200 of the
   * capture another request made.
   */
  @Test
  void a_capture_refused_to_a_request_is_never_answered_with_a_capture_made_since() throws Exception {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));
    Payment authorized = execute(cardDeposit(true));
    String id = authorized.id().value();
    java.util.concurrent.CountDownLatch calling = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    Result refused = Result.declined(io.tollgate.domain.error.ErrorCode.E3_00_DECLINED_BY_ACQUIRER, "auth-1", "12");
    when(processor.capture(any(), any(), any(), any())).thenAnswer(call -> switch (calls.incrementAndGet()) {
      case 1 -> {
        calling.countDown();
        answer.await(10, java.util.concurrent.TimeUnit.SECONDS);
        yield refused;
      }
      case 2 -> refused;
      default -> Result.approved("auth-1", "00");
    });
    when(payments.find(any())).thenAnswer(call -> Optional.ofNullable(rows.get(call.<PaymentId>getArgument(0))));
    // a capture of 6.00 its terminal left unanswered minutes ago: each request may ask it again
    java.time.Instant now = java.time.Instant.now();
    payments.ask(authorized.id(), new PaymentRepository.Asked(io.tollgate.domain.payment.OperationType.CAPTURE,
        new BigDecimal("6.00"), null, null, now.minusSeconds(300), now.minusSeconds(200)), now.minusSeconds(300));

    java.util.concurrent.CompletableFuture<Payment> slow = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> service.capture(SHOP, id, new BigDecimal("6.00")));
    assertThat(calling.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> service.capture(SHOP, id, new BigDecimal("6.00")))
        .hasMessageStartingWith("The processor refused the capture");
    assertThat(service.capture(SHOP, id, new BigDecimal("4.00")).amount()).isEqualTo(eur("4.00"));
    answer.countDown();

    org.assertj.core.api.Assertions.assertThatThrownBy(slow::join)
        .hasCauseInstanceOf(io.tollgate.domain.DomainException.Conflict.class)
        .hasMessageContaining("The processor refused the capture");
  }

  @Test
  void a_refund_goes_to_the_terminal_of_its_deposit_even_after_the_shop_s_connectors_changed() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));
    Payment deposit = execute(cardDeposit(false));
    shopHas(connector(B, PaymentMethod.BASIC_CARD));
    when(reference.terminal(A.id())).thenReturn(Optional.of(sandboxTerminal(A)));
    Payment refund = pendingRefund(deposit, "3.00");

    service.processPayouts(10);

    verify(processor).refund(refund.id(), deposit.id(), A, "auth-1", eur("3.00"));
    assertThat(rows.get(refund.id()).state()).isEqualTo(PaymentState.COMPLETED);
  }

  @Test
  void a_card_payout_is_paid_by_the_terminal_it_was_routed_to() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD));
    stored(PaymentType.WITHDRAWAL, PaymentMethod.BASIC_CARD, PaymentState.PENDING, false, null);

    service.processPayouts(10);

    ArgumentCaptor<CardCharge> payout = ArgumentCaptor.forClass(CardCharge.class);
    verify(processor).payout(payout.capture());
    assertThat(payout.getValue().terminal()).isEqualTo(A);
  }

  @Test
  void a_bank_payout_is_sent_by_the_terminal_it_was_routed_to() {
    shopHas(connector(A, PaymentMethod.BANKTRANSFER));
    Customer account = new Customer(null, null, "Ada", "Lovelace", null, null, null, null, null,
        "DE89370400440532013000", "Ada Lovelace", null, null, null, null, null, null, null);
    Payment payout = stored(PaymentType.WITHDRAWAL, PaymentMethod.BANKTRANSFER, PaymentState.PENDING, false, account);

    service.processPayouts(10);

    verify(processor).bankPayout(payout.id(), A, eur("10.00"), account);
  }

  @Test
  void a_bank_transfer_is_opened_and_asked_after_on_the_terminal_it_was_routed_to() {
    shopHas(connector(A, PaymentMethod.BANKTRANSFER));
    Payment deposit = stored(PaymentType.DEPOSIT, PaymentMethod.BANKTRANSFER, PaymentState.CHECKOUT, false, null);

    service.startBankTransfer(deposit.id().value());
    shopHas(connector(B, PaymentMethod.BANKTRANSFER));
    service.settleBankTransfers(10);

    verify(processor).startBankTransfer(deposit.id(), A, eur("10.00"), Map.of());
    verify(processor).bankTransferStatus(deposit.id(), A, "transfer-1", eur("10.00"), Map.of());
    assertThat(rows.get(deposit.id()).state()).isEqualTo(PaymentState.COMPLETED);
  }

  /**
   * A challenge asked for by the terminal a cascade moved the deposit on to is answered there,
   * as the attempt it was: the second.
   */
  @Test
  void a_challenge_asked_for_after_a_cascade_is_answered_on_that_terminal_as_its_attempt() {
    shopHas(connector(A, PaymentMethod.BASIC_CARD, 1, CASCADE_ON_402), connector(B, PaymentMethod.BASIC_CARD, 2, null));
    when(processor.authorize(any())).thenReturn(Result.declined(ErrorCode.E4_02_DO_NOT_HONOR, "auth-0", "05"),
        new Result(Result.Status.CHALLENGE, null, "auth-1", "3DS_REQUIRED", Map.of(), null));
    when(processor.completeChallenge(any(), anyBoolean())).thenReturn(Result.approved("auth-1", "00"));
    Payment deposit = execute(cardDeposit(false));
    assertThat(deposit.state()).isEqualTo(PaymentState.PENDING);

    service.completeChallenge(deposit.id().value(), true);

    ArgumentCaptor<CardCharge> answered = ArgumentCaptor.forClass(CardCharge.class);
    verify(processor).completeChallenge(answered.capture(), org.mockito.ArgumentMatchers.eq(true));
    assertThat(answered.getValue().terminal()).isEqualTo(B);
    assertThat(answered.getValue().attempt()).isEqualTo(2);
    assertThat(rows.get(deposit.id()).state()).isEqualTo(PaymentState.COMPLETED);
  }

  /**
   * A deposit stored before terminals were recorded by id (V28) names its terminal only: the
   * processor is told the id of the merchant's terminal of that name, never a bare name.
   */
  @Test
  void a_deposit_stored_before_terminal_ids_is_refunded_on_its_terminal_by_id() {
    Payment old = cardDeposit(false).withRouting(eur("10.00"), null, null, B.name());
    Payment deposit = new Payment(old.id(), old.shopId(), old.type(), PaymentState.COMPLETED, old.method(),
        old.amount(), old.customerAmount(), old.referenceId(), old.description(), old.parentPaymentId(), old.preAuth(),
        old.card(), old.customer(), old.billingAddress(), old.returnUrl(), old.webhookUrl(),
        old.additionalParameters(), null, null, "auth-1", "00", Map.of(), B.name(), null, false, old.created(),
        old.updated(), old.version());
    rows.put(deposit.id(), deposit);
    when(reference.terminal(MERCHANT, B.name())).thenReturn(Optional.of(sandboxTerminal(B)));
    Payment refund = pendingRefund(deposit, "3.00");

    service.processPayouts(10);

    verify(processor).refund(refund.id(), deposit.id(), B, "auth-1", eur("3.00"));
  }

  /** A transfer the bank still awaits is marked as looked at, so that it goes behind the others. */
  @Test
  void a_transfer_still_awaited_goes_behind_the_others() {
    shopHas(connector(A, PaymentMethod.BANKTRANSFER));
    Payment deposit = stored(PaymentType.DEPOSIT, PaymentMethod.BANKTRANSFER, PaymentState.CHECKOUT, false, null);
    service.startBankTransfer(deposit.id().value());
    when(processor.bankTransferStatus(any(), any(), any(), any(), any())).thenReturn(new Result(Result.Status.PENDING,
        null, "transfer-1", "AWAITING_TRANSFER", Map.of(), null));

    assertThat(service.settleBankTransfers(10).moved()).isZero();

    verify(payments).checked(org.mockito.ArgumentMatchers.eq(deposit.id()), any());
    assertThat(rows.get(deposit.id()).state()).isEqualTo(PaymentState.PENDING);
  }
}
