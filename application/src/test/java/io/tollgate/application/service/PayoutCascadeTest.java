package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.application.port.out.PaymentProcessor.CardCharge;
import io.tollgate.application.port.out.PaymentProcessor.Result;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ReferenceData.Connector;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The payout worker cascading a withdrawal from one terminal to the next, against a store that
 * keeps what a transaction committed and forgets what one that failed wrote, as the database
 * does when the worker dies ({@link CommittedStore}): a payout is never sent to a second
 * terminal that could pay it too.
 */
class PayoutCascadeTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private static final List<String> ALL_TYPES = List.of("DEPOSIT", "WITHDRAWAL", "REFUND");
  private static final ShopId SHOP = new ShopId(1);
  private static final long CASCADE_ON_402 = 7;

  private final PaymentRepository payments = mock(PaymentRepository.class);
  private final ReferenceData reference = mock(ReferenceData.class);
  private final GroupRepository groups = mock(GroupRepository.class);
  private final CardVault vault = mock(CardVault.class);
  private final Acquirers acquirers = new Acquirers();
  private final CommittedStore store = new CommittedStore();
  private final ShopRepository shops = mock(ShopRepository.class);
  private final BalanceRepository balances = mock(BalanceRepository.class);
  private ProcessingService service;

  /**
   * Acquirers behind the terminals, each de-duplicating on the payment id as the processor port
   * asks; they charge deposits as they pay payouts.
   */
  static final class Acquirers implements PaymentProcessor {
    final List<String> asked = new ArrayList<>();
    final List<String> paid = new ArrayList<>();
    /** The terminals that pay and then lose the connection before they answer, once per payout. */
    final Set<String> dropOnce = new HashSet<>();
    private final Set<String> dropped = new HashSet<>();
    /** The terminals that decline 4.02. */
    final Set<String> declining = new HashSet<>();
    /** The terminals that decline with an answer no error code was mapped to. */
    final Set<String> decliningUnmapped = new HashSet<>();
    /**
     * The terminals that answer PENDING the first time they are asked for a payment (the issuer
     * has not answered them yet) and have paid or charged it when asked again.
     */
    final Set<String> undecidedOnce = new HashSet<>();
    private final Set<String> undecided = new HashSet<>();

    @Override
    public Result payout(CardCharge payout) {
      return charge(payout);
    }

    /** The terminals that ask for a 3-D Secure challenge before they charge a deposit. */
    final Set<String> challenging = new HashSet<>();

    /** A card deposit's charge, answered as a payout is, or first a 3-D Secure challenge. */
    @Override
    public Result authorize(CardCharge charge) {
      if (challenging.contains(charge.terminal().name())) {
        asked.add(charge.terminal().name() + " #" + charge.attempt() + " challenge");
        return new Result(Result.Status.CHALLENGE, null, "x-3ds", "3DS", Map.of(), null);
      }
      return charge(charge);
    }

    /** Whether a challenge the customer failed is charged all the same, as an issuer may decide. */
    boolean chargesFailedChallenges;
    /** The customer's answers the terminals were told, in order. */
    final List<Boolean> challengeAnswers = new ArrayList<>();

    /** The charge a passed challenge completes. */
    @Override
    public Result completeChallenge(CardCharge charge, boolean customerPassed) {
      challengeAnswers.add(customerPassed);
      return customerPassed || chargesFailedChallenges ? charge(charge)
          : Result.declined(ErrorCode.E5_00_DECLINED_BY_3DS, "x-3ds", "3DS_FAILED");
    }

    /** The security code each charge, payout and challenge answer came with, in order ("-" for none). */
    final List<String> securityCodes = new ArrayList<>();

    private Result charge(CardCharge payout) {
      String terminal = payout.terminal().name();
      asked.add(terminal + " #" + payout.attempt());
      securityCodes.add(payout.securityCode() == null ? "-" : payout.securityCode());
      String key = terminal + " " + payout.payment().value();
      // undecided first: a terminal in both sets declines once it has decided
      if (undecidedOnce.contains(terminal) && undecided.add(key)) {
        return new Result(Result.Status.PENDING, null, "x-" + terminal, "09", Map.of(), null);
      }
      if (declining.contains(terminal)) {
        return Result.declined(ErrorCode.E4_02_DO_NOT_HONOR, "x-" + terminal, "05");
      }
      if (decliningUnmapped.contains(terminal)) {
        return Result.declined(null, "x-" + terminal, "Z9");
      }
      if (!paid.contains(key)) {
        paid.add(key);
      }
      if (dropOnce.contains(terminal) && dropped.add(key)) {
        throw new IllegalStateException("connection reset after " + terminal + " paid");
      }
      return Result.approved("x-" + terminal, "00");
    }

    @Override
    public String terminalName() {
      return "Default terminal";
    }

    @Override
    public Result capture(PaymentId payment, Terminal terminal, String externalId, Money amount) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Result voidAuthorization(PaymentId payment, Terminal terminal, String externalId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Result bankPayout(PaymentId payout, Terminal terminal, Money amount,
        io.tollgate.domain.payment.Customer account) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Result refund(PaymentId refund, PaymentId deposit, Terminal terminal, String depositExternalId,
        Money amount) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Result startBankTransfer(PaymentId payment, Terminal terminal, Money amount,
        Map<String, String> additionalParameters) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Result bankTransferStatus(PaymentId payment, Terminal terminal, String externalId, Money expected,
        Map<String, String> additionalParameters) {
      throw new UnsupportedOperationException();
    }
  }

  @BeforeEach
  void setUp() {
    store.backing(payments);
    when(vault.reveal(any(), anyString())).thenReturn(Optional.of("4000000000000424"));
    when(reference.hasConnectors(1)).thenReturn(true);
    when(groups.contains(CASCADE_ON_402, "4.02")).thenReturn(true);
    service = new ProcessingService(store.tx, payments, new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE),
        balances, shops, vault, acquirers, reference, groups, null,
        CURRENCIES, Clock.systemUTC(), Duration.ZERO, new SecurityCodes(), new RecentShops(shops));
  }

  private static Connector connector(String terminal, String currency, int priority, Long cascadeGroup) {
    return new Connector(terminal.hashCode(), 1, terminal.hashCode(), terminal, "ACTIVE", "BASIC_CARD", currency,
        priority, 100, null, null, cascadeGroup, null, ALL_TYPES);
  }

  private void rate(String base, String quote, String rate) {
    when(reference.currencyRate(base, quote)).thenReturn(Optional.of(
        new ReferenceData.CurrencyRate(base, quote, new BigDecimal(rate), Instant.now())));
  }

  private static Money money(String amount, String currency) {
    return new Money(new BigDecimal(amount), CURRENCIES.require(currency));
  }

  private void shopHas(Connector... connectors) {
    when(reference.connectorsOf(1)).thenReturn(List.of(connectors));
  }

  private Payment withdrawal(String amount, String currency) {
    CardDetails card = new CardDetails("400000******0424", "tok_1", null, "12", "2045", "VISA", null);
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), SHOP, PaymentType.WITHDRAWAL,
        PaymentMethod.BASIC_CARD, money(amount, currency), null, null, null,
        false, card, null, null, null, null, null);
    return new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE)
        .create(Payment.create(draft, PaymentState.PENDING, Instant.now()));
  }

  private List<String> steps(Payment p) {
    return store.operations.stream().map(o -> o.operation() + (o.operation() == OperationType.WITHDRAWAL
        ? " " + o.terminalName() + " " + o.paymentState() : "")).toList();
  }

  @Test
  void a_payout_declined_with_a_cascading_code_is_paid_by_the_next_terminal() {
    shopHas(connector("A", "EUR", 1, CASCADE_ON_402), connector("B", "EUR", 2, null));
    acquirers.declining.add("A");
    Payment p = withdrawal("10.00", "EUR");

    assertThat(service.processPayouts(10).moved()).isEqualTo(1);

    Payment paid = store.rows.get(p.id());
    assertThat(paid.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(paid.terminalName()).isEqualTo("B");
    assertThat(paid.errorCode()).isNull();
    assertThat(acquirers.asked).containsExactly("A #1", "B #2");
    assertThat(steps(p)).containsExactly("CREATE_PAYMENT", "WITHDRAWAL A PENDING", "CASCADING",
        "WITHDRAWAL B COMPLETED");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-10.00"), BigDecimal.ZERO);
  }

  /**
   * A terminal that has not decided yet (PENDING) may still pay: the payout stays PENDING at it,
   * its amount reserved and no answer recorded, and is asked there again with the same attempt,
   * never declined and never cascaded to another terminal that would pay it too.
   */
  @Test
  void a_payout_its_terminal_has_not_decided_yet_stays_reserved_and_is_asked_again_there() {
    shopHas(connector("A", "EUR", 1, CASCADE_ON_402), connector("B", "EUR", 2, null));
    acquirers.undecidedOnce.add("A");
    Payment p = withdrawal("10.00", "EUR");

    assertThat(service.processPayouts(10).moved()).as("routed, then asked: nothing decided").isEqualTo(1);
    Payment waiting = store.rows.get(p.id());
    assertThat(waiting.state()).isEqualTo(PaymentState.PENDING);
    assertThat(waiting.errorCode()).isNull();
    assertThat(steps(p)).containsExactly("CREATE_PAYMENT");
    assertThat(store.sum("EUR")).as("still reserved").usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-10.00"), new BigDecimal("10.00"));
    org.mockito.Mockito.verify(payments).checked(org.mockito.ArgumentMatchers.eq(p.id()), any());

    assertThat(service.processPayouts(10).moved()).isEqualTo(1);
    Payment paid = store.rows.get(p.id());
    assertThat(paid.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.asked).as("the same terminal, the same attempt").containsExactly("A #1", "A #1");
    assertThat(steps(p)).containsExactly("CREATE_PAYMENT", "WITHDRAWAL A COMPLETED");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-10.00"), BigDecimal.ZERO);
  }

  @Test
  void a_worker_that_dies_while_the_next_terminal_pays_takes_the_payout_up_again_at_that_terminal() {
    // B and C share a priority: a plan drawn again could as well send the payout to C
    shopHas(connector("A", "EUR", 1, CASCADE_ON_402), connector("B", "EUR", 2, null),
        connector("C", "EUR", 2, null));
    acquirers.declining.add("A");
    acquirers.dropOnce.add("B");
    acquirers.dropOnce.add("C");
    Payment p = withdrawal("10.00", "EUR");

    assertThatThrownBy(() -> service.processPayouts(10)).isInstanceOf(IllegalStateException.class);
    Payment cut = store.rows.get(p.id());
    assertThat(cut.state()).as("A's decline and the move on were committed").isEqualTo(PaymentState.PENDING);
    String next = cut.terminalName();
    assertThat(next).isIn("B", "C");

    assertThat(service.processPayouts(10).moved()).isEqualTo(1);

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(store.rows.get(p.id()).terminalName()).isEqualTo(next);
    assertThat(acquirers.asked).as("A never asked again, the same terminal asked again with the same attempt")
        .containsExactly("A #1", next + " #2", next + " #2");
    assertThat(acquirers.paid).containsExactly(next + " " + p.id().value());
    assertThat(steps(p)).containsExactly("CREATE_PAYMENT", "WITHDRAWAL A PENDING", "CASCADING",
        "WITHDRAWAL " + next + " COMPLETED");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-10.00"), BigDecimal.ZERO);
  }

  @Test
  void a_worker_that_dies_while_the_first_terminal_pays_asks_that_terminal_again_and_no_other() {
    // two of one priority: each payout meets them in an order of its own
    shopHas(connector("B", "EUR", 1, null), connector("C", "EUR", 1, null));
    acquirers.dropOnce.add("B");
    acquirers.dropOnce.add("C");
    List<Payment> payouts = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      payouts.add(withdrawal("10.00", "EUR"));
    }

    assertThatThrownBy(() -> service.processPayouts(20)).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("12 of 12 due payments failed and stay due")
        .satisfies(e -> assertThat(e.getSuppressed()).as("why, for the log: the first three failures")
            .extracting(Throwable::getMessage).hasSize(3).allMatch(m -> m.matches("connection reset after [BC] paid")));
    assertThat(store.rows.values()).allSatisfy(p -> assertThat(p.state()).isEqualTo(PaymentState.PENDING));
    assertThat(service.processPayouts(20).moved()).isEqualTo(12);

    for (Payment p : payouts) {
      Payment paid = store.rows.get(p.id());
      assertThat(paid.state()).isEqualTo(PaymentState.COMPLETED);
      assertThat(acquirers.paid.stream().filter(k -> k.endsWith(p.id().value())))
          .as("paid once").containsExactly(paid.terminalName() + " " + p.id().value());
    }
  }

  /**
   * The operator changes the shop's connectors while a worker that died as the first terminal
   * paid is down: the payout is taken up again at that terminal, where it was routed before it
   * was sent, and not at the one a plan drawn afresh would choose.
   */
  @Test
  void a_payout_cut_short_at_its_first_terminal_goes_back_there_after_the_connectors_changed() {
    shopHas(connector("B", "EUR", 1, null), connector("C", "EUR", 2, null));
    acquirers.dropOnce.add("B");
    Payment p = withdrawal("10.00", "EUR");

    assertThatThrownBy(() -> service.processPayouts(10)).isInstanceOf(IllegalStateException.class);
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.PENDING);
    assertThat(store.rows.get(p.id()).terminalName()).as("routed, and committed, before B was asked").isEqualTo("B");
    org.mockito.Mockito.verify(payments).checked(org.mockito.ArgumentMatchers.eq(p.id()), any());

    shopHas(connector("C", "EUR", 1, null), connector("B", "EUR", 2, null));
    assertThat(service.processPayouts(10).moved()).isEqualTo(1);

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(store.rows.get(p.id()).terminalName()).isEqualTo("B");
    assertThat(acquirers.asked).containsExactly("B #1", "B #1");
    assertThat(acquirers.paid).containsExactly("B " + p.id().value());
    assertThat(steps(p)).containsExactly("CREATE_PAYMENT", "WITHDRAWAL B COMPLETED");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-10.00"), BigDecimal.ZERO);
  }

  /**
   * One acquirer account in two currencies: its euro connector cascades on 4.02, its dollar
   * connector never does. A payout the euro connector moved on to the dollar one is declined when
   * the dollars are refused too, as the dollar connector says, and goes to no third terminal.
   */
  @Test
  void a_payout_moved_on_to_another_connector_of_its_terminal_cascades_as_that_connector_says() {
    rate("EUR", "USD", "1.0850");
    rate("EUR", "GBP", "0.8500");
    shopHas(new Connector(1, 1, 1, "A", "ACTIVE", "BASIC_CARD", "EUR", 1, 100, null, null, CASCADE_ON_402, null,
            ALL_TYPES),
        new Connector(2, 1, 1, "A", "ACTIVE", "BASIC_CARD", "USD", 2, 100, null, null, null, null, ALL_TYPES),
        connector("Pounds", "GBP", 3, null));
    acquirers.declining.add("A");
    Payment p = withdrawal("10.00", "EUR");

    service.processPayouts(10);

    Payment declined = store.rows.get(p.id());
    assertThat(acquirers.asked).containsExactly("A #1", "A #2");
    assertThat(declined.state()).isEqualTo(PaymentState.DECLINED);
    assertThat(declined.errorCode()).isEqualTo(ErrorCode.E4_02_DO_NOT_HONOR);
    assertThat(declined.amount()).isEqualTo(money("10.85", "USD"));
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  @Test
  void a_payout_converted_for_the_first_terminal_and_paid_by_the_next_is_paid_out_of_the_nexts_currency() {
    rate("EUR", "USD", "1.0850");
    rate("EUR", "GBP", "0.8500");
    shopHas(connector("Dollars", "USD", 1, CASCADE_ON_402), connector("Pounds", "GBP", 2, null));
    acquirers.declining.add("Dollars");
    Payment p = withdrawal("10.00", "EUR");

    service.processPayouts(10);

    Payment paid = store.rows.get(p.id());
    assertThat(paid.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(paid.terminalName()).isEqualTo("Pounds");
    assertThat(paid.amount()).as("converted from the euros asked, not from the dollars sent before")
        .isEqualTo(money("8.50", "GBP"));
    assertThat(paid.customerAmount()).isEqualTo(money("10.00", "EUR"));
    assertThat(store.sum("GBP")).as("paid out of the pounds of the terminal that paid it")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("-8.50"), BigDecimal.ZERO);
    assertThat(store.sum("EUR")).as("the euros it held at first given back")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    assertThat(store.sum("USD")).as("the dollars it held for the first terminal given back")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    assertThat(store.ledger).extracting(e -> e.currency().code())
        .containsExactly("EUR", "EUR", "USD", "USD", "GBP", "GBP");
  }

  private static Connector twin(long terminal, String name, int priority, Long cascadeGroup) {
    return new Connector(terminal, 1, terminal, name, "ACTIVE", "BASIC_CARD", "EUR", priority, 100, null, null,
        cascadeGroup, null, ALL_TYPES);
  }

  /**
   * Two terminals of the shop named alike (as two merchants' terminals may be, or one
   * merchant's before V27): the payout moved on to the second is taken up at the second, and
   * its decline cascades as the second's connector says, not the first's.
   */
  @Test
  void a_payout_moved_on_to_a_terminal_named_like_the_one_that_declined_is_taken_up_at_that_terminal() {
    shopHas(twin(1, "Twin", 1, CASCADE_ON_402), twin(2, "Twin", 2, null), twin(3, "Other", 3, null));
    acquirers.declining.add("Twin");
    Payment p = withdrawal("10.00", "EUR");

    service.processPayouts(10);

    Payment declined = store.rows.get(p.id());
    assertThat(acquirers.asked).as("terminal 2 never cascades").containsExactly("Twin #1", "Twin #2");
    assertThat(declined.state()).isEqualTo(PaymentState.DECLINED);
    assertThat(declined.errorCode()).isEqualTo(ErrorCode.E4_02_DO_NOT_HONOR);
    assertThat(declined.terminalId()).isEqualTo(2L);
    assertThat(store.operations).filteredOn(o -> o.operation() == OperationType.WITHDRAWAL)
        .extracting(PaymentOperation::terminalId).containsExactly(1L, 2L);
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /** A terminal that shares a name with one that declined the payout has not answered it yet. */
  @Test
  void a_terminal_named_like_one_that_declined_the_payout_is_still_asked_in_its_turn() {
    shopHas(twin(1, "Twin", 1, CASCADE_ON_402), twin(2, "Middle", 2, CASCADE_ON_402), twin(3, "Twin", 3, null));
    acquirers.declining.add("Twin");
    acquirers.declining.add("Middle");
    Payment p = withdrawal("10.00", "EUR");

    service.processPayouts(10);

    assertThat(acquirers.asked).containsExactly("Twin #1", "Middle #2", "Twin #3");
    assertThat(store.rows.get(p.id()).terminalId()).isEqualTo(3L);
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.DECLINED);
  }

  /**
   * A payout stored before terminals were recorded by id (V28) names them only: it is taken up
   * at the terminal of that name, never sent again to the one its operations name, and has the
   * terminal's id from then on.
   */
  @Test
  void a_payout_stored_with_terminal_names_only_is_taken_up_by_name() {
    shopHas(twin(1, "A", 1, CASCADE_ON_402), twin(2, "B", 2, CASCADE_ON_402), twin(3, "C", 3, null));
    Payment created = withdrawal("10.00", "EUR");
    Instant now = Instant.now();
    Payment atA = created.withRouting(created.amount(), null, null, "A");
    Payment declinedAtA = atA.apply(OperationType.WITHDRAWAL, PaymentState.PENDING,
        io.tollgate.domain.payment.Outcome.NONE, now).after();
    Payment.Transition moved = declinedAtA.apply(OperationType.CASCADING, PaymentState.PENDING,
        io.tollgate.domain.payment.Outcome.NONE, now);
    store.rows.put(created.id(), moved.after().withRouting(created.amount(), null, null, "B").withVersion(3));
    store.operations.add(atA.apply(OperationType.WITHDRAWAL, PaymentState.PENDING,
        io.tollgate.domain.payment.Outcome.NONE, now).operation());
    store.operations.add(moved.operation());
    acquirers.declining.add("B");

    service.processPayouts(10);

    Payment paid = store.rows.get(created.id());
    assertThat(acquirers.asked).as("A answered it already").containsExactly("B #2", "C #3");
    assertThat(paid.terminalName()).isEqualTo("C");
    assertThat(paid.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(store.operations).filteredOn(o -> o.operation() == OperationType.WITHDRAWAL)
        .extracting(PaymentOperation::terminalId).containsExactly(null, 2L, 3L);
  }

  @Test
  void a_payout_the_last_terminal_declines_too_is_declined_and_releases_what_it_reserved() {
    shopHas(connector("A", "EUR", 1, CASCADE_ON_402), connector("B", "EUR", 2, CASCADE_ON_402));
    acquirers.declining.add("A");
    acquirers.declining.add("B");
    Payment p = withdrawal("10.00", "EUR");

    service.processPayouts(10);

    Payment declined = store.rows.get(p.id());
    assertThat(declined.state()).isEqualTo(PaymentState.DECLINED);
    assertThat(declined.errorCode()).isEqualTo(ErrorCode.E4_02_DO_NOT_HONOR);
    assertThat(acquirers.asked).containsExactly("A #1", "B #2");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /**
   * The shop checks its withdrawals' balance, and had {@code available} of each currency named
   * before the test's payouts, which the ledger then moves.
   */
  private void shopChecks(Map<String, String> available) {
    io.tollgate.domain.shop.Shop checking = new io.tollgate.domain.shop.Shop(SHOP,
        new io.tollgate.domain.shop.MerchantId(4), "Shop", null, null,
        io.tollgate.domain.shop.Shop.DEFAULT_CHECKOUT_TIMEOUT, true, false, "EUR");
    when(shops.find(SHOP)).thenReturn(Optional.of(checking));
    when(shops.findCurrent(SHOP)).thenReturn(Optional.of(checking));
    org.mockito.Mockito.doAnswer(call -> {
      io.tollgate.domain.money.Currency c = call.getArgument(1);
      return new BalanceRepository.ShopBalance(SHOP, c, new BigDecimal(available.getOrDefault(c.code(), "0"))
          .add(store.sum(c.code())[0]), BigDecimal.ZERO);
    }).when(balances).lockHeld(any(), any());
  }

  /**
   * A checking shop's payout cascading to a terminal that would pay it converted is checked there
   * too: with too little in that currency the next terminal is passed over, and the payout is
   * declined with the code of the one that declined it, holding nothing.
   */
  @Test
  void a_cascade_to_a_currency_the_balance_cannot_pay_is_passed_over() {
    Payment p = cascadeToPounds("8.49");

    Payment declined = store.rows.get(p.id());
    assertThat(declined.state()).isEqualTo(PaymentState.DECLINED);
    assertThat(declined.errorCode()).isEqualTo(ErrorCode.E4_02_DO_NOT_HONOR);
    assertThat(acquirers.asked).containsExactly("A #1");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
    assertThat(store.sum("GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  @Test
  void a_cascade_to_a_currency_the_balance_can_pay_takes_it_from_there() {
    Payment p = cascadeToPounds("8.50");

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.asked).containsExactly("A #1", "Pounds #2");
    assertThat(store.sum("GBP")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-8.50"), BigDecimal.ZERO);
  }

  /**
   * Converted again into the currency it holds, at a rate that rose meanwhile, a payout needs only
   * the difference from the balance: 0.05 more USD than the 10.85 it holds. With 10.90 USD the
   * shop pays it; with 10.89 it has 0.04 left once the payout holds 10.85, and the next terminal
   * is passed over.
   */
  @Test
  void a_cascade_into_the_held_currency_at_a_higher_rate_needs_only_the_difference() {
    Payment p = cascadeAtAHigherRate("10.90");

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(store.rows.get(p.id()).amount()).isEqualTo(money("10.90", "USD"));
    assertThat(store.sum("USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("-10.90"), BigDecimal.ZERO);
  }

  @Test
  void a_cascade_into_the_held_currency_at_a_higher_rate_is_passed_over_without_the_difference() {
    Payment p = cascadeAtAHigherRate("10.89");

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.DECLINED);
    assertThat(store.operations).last().satisfies(o -> assertThat(o.details())
        .contains("Check Withdrawal Balance: 0.04 USD available, 0.05 USD more to pay out for terminal Dollars B"));
    assertThat(store.sum("USD")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /** A 10.00 EUR payout of a shop with {@code pounds} GBP, declined 4.02 in EUR and cascaded to GBP at 0.85. */
  private Payment cascadeToPounds(String pounds) {
    rate("EUR", "GBP", "0.8500");
    // the 10.00 EUR it holds, which its first terminal would pay out as held
    shopChecks(Map.of("GBP", pounds, "EUR", "10.00"));
    shopHas(connector("A", "EUR", 1, CASCADE_ON_402), connector("Pounds", "GBP", 2, null));
    acquirers.declining.add("A");
    Payment p = withdrawal("10.00", "EUR");
    service.processPayouts(10);
    return p;
  }

  /** A 10.00 EUR payout of a shop with {@code dollars} USD, routed at 1.0850, cascaded at 1.0900. */
  private Payment cascadeAtAHigherRate(String dollars) {
    when(reference.currencyRate("EUR", "USD")).thenReturn(
        Optional.of(new ReferenceData.CurrencyRate("EUR", "USD", new BigDecimal("1.0850"), Instant.now())),
        Optional.of(new ReferenceData.CurrencyRate("EUR", "USD", new BigDecimal("1.0900"), Instant.now())));
    shopChecks(Map.of("USD", dollars));
    shopHas(connector("Dollars A", "USD", 1, CASCADE_ON_402), connector("Dollars B", "USD", 2, null));
    acquirers.declining.add("Dollars A");
    Payment p = withdrawal("10.00", "EUR");
    service.processPayouts(10);
    return p;
  }
}
