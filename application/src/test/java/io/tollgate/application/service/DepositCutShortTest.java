package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.in.PaymentActionsUseCase.HostToHostCommand;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ReferenceData.Connector;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
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
 * A host-to-host card deposit whose request is cut short while its terminal charges the card
 * (the service stops, the connection to the acquirer drops), against a store that keeps what a
 * transaction committed and forgets what one that failed wrote, as the database does
 * ({@link CommittedStore}): the
 * terminal is committed before it is asked, so the deposit is never charged by a second
 * terminal, never left in CHECKOUT for the customer or the expiry job, and is settled by the
 * job for unanswered deposits, while the same request made again is refused.
 */
class DepositCutShortTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private static final List<String> ALL_TYPES = List.of("DEPOSIT", "WITHDRAWAL", "REFUND");
  private static final ShopId SHOP = new ShopId(1);
  private static final long CASCADE_ON_402 = 7;

  private final PaymentRepository payments = mock(PaymentRepository.class);
  private final ReferenceData reference = mock(ReferenceData.class);
  private final GroupRepository groups = mock(GroupRepository.class);
  private final CardVault vault = mock(CardVault.class);
  private final ShopRepository shops = mock(ShopRepository.class);
  private final PayoutCascadeTest.Acquirers acquirers = new PayoutCascadeTest.Acquirers();
  private final CommittedStore store = new CommittedStore();
  private final SecurityCodes securityCodes = new SecurityCodes();
  private ProcessingService service;

  @BeforeEach
  void setUp() {
    store.backing(payments);
    when(vault.open(any())).thenReturn("4000000000000424");
    when(vault.reveal(any(), any())).thenReturn(Optional.of("4000000000000424"));
    when(reference.hasConnectors(1)).thenReturn(true);
    when(shops.find(SHOP)).thenReturn(Optional.of(new io.tollgate.domain.shop.Shop(SHOP,
        new io.tollgate.domain.shop.MerchantId(4), "Shop", null, null,
        io.tollgate.domain.shop.Shop.DEFAULT_CHECKOUT_TIMEOUT, false, false, "EUR")));
    when(groups.contains(CASCADE_ON_402, "4.02")).thenReturn(true);
    service = new ProcessingService(store.tx, payments, new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE),
        mock(BalanceRepository.class), shops, vault, acquirers, reference, groups, null,
        CURRENCIES, Clock.systemUTC(), Duration.ZERO, securityCodes, new RecentShops(shops));
  }

  private static Connector connector(String terminal, int priority, Long cascadeGroup) {
    return new Connector(terminal.hashCode(), 1, terminal.hashCode(), terminal, "ACTIVE", "BASIC_CARD", "EUR",
        priority, 100, null, null, cascadeGroup, null, ALL_TYPES);
  }

  private void shopHas(Connector... connectors) {
    when(reference.connectorsOf(1)).thenReturn(List.of(connectors));
  }

  /** A deposit created with a card, waiting for the merchant's host-to-host execution. */
  private Payment deposit() {
    return deposit(new CardDetails("400000******0424", "tok_1", null, "12", "2045", "VISA", null));
  }

  /** A deposit waiting in CHECKOUT, with this card ({@code null}: one the customer enters on the page). */
  private Payment deposit(CardDetails card) {
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), SHOP, PaymentType.DEPOSIT,
        PaymentMethod.BASIC_CARD, new Money(new BigDecimal("10.00"), CURRENCIES.require("EUR")), null, null, null,
        false, card, null, null, null, null, null);
    return new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE)
        .create(Payment.create(draft, PaymentState.CHECKOUT, Instant.now()));
  }

  private Payment execute(Payment deposit) {
    return service.executeHostToHost(SHOP, deposit.id().value(), new HostToHostCommand("203.0.113.7", null, null,
        null, null, null, null, null, null, null, null));
  }

  private List<String> steps() {
    return store.operations.stream().map(o -> o.operation() + (o.operation() == OperationType.DEPOSIT
        ? " " + o.terminalName() + " " + o.paymentState() : "")).toList();
  }

  /**
   * The security code given with the card at creation goes with the charge the host-to-host
   * execution makes, to every terminal it tries, and is forgotten once it was sent; the job that
   * takes a charge cut short up again has none to send.
   */
  @Test
  void the_security_code_given_at_creation_goes_with_the_charge_and_is_then_forgotten() {
    shopHas(connector("A", 1, CASCADE_ON_402), connector("B", 2, null));
    acquirers.declining.add("A");
    Payment p = deposit();
    securityCodes.hold(SHOP, p.id(), "123");

    assertThat(execute(p).state()).isEqualTo(PaymentState.COMPLETED);

    assertThat(acquirers.asked).containsExactly("A #1", "B #2");
    assertThat(acquirers.securityCodes).containsExactly("123", "123");
    assertThat(securityCodes.held(SHOP, p.id())).as("forgotten once sent").isNull();

    Payment other = deposit();
    acquirers.asked.clear();
    acquirers.securityCodes.clear();
    acquirers.dropOnce.add("B");
    shopHas(connector("B", 1, null));
    securityCodes.hold(SHOP, other.id(), "456");
    assertThatThrownBy(() -> execute(other)).isInstanceOf(IllegalStateException.class);
    service.resumeUnansweredDeposits(10);
    assertThat(acquirers.securityCodes).as("sent with the charge; the job's own asking has none").containsExactly("456", "-");
  }

  /** The code the customer types on the checkout page goes with the charge that request makes. */
  @Test
  void the_security_code_typed_on_the_checkout_page_goes_with_the_charge() {
    shopHas(connector("A", 1, null));
    when(vault.tokenize(any(), any())).thenReturn("tok_2");
    Payment p = deposit(null);

    Payment paid = service.submitCard(p.id().value(),
        new io.tollgate.application.port.in.CardInput("4000000000000424", null, "Ann Lee", "321", "12", "2045"));

    assertThat(paid.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.securityCodes).containsExactly("321");
  }

  /**
   * A deposit the issuer challenges is charged again once the customer answers: the code goes
   * with that answer, and to the terminal a cascade moves on to after it, and is forgotten
   * only when the deposit no longer waits on a charge.
   */
  @Test
  void the_security_code_is_held_through_a_challenge_and_a_cascade_after_it() {
    shopHas(connector("B", 1, CASCADE_ON_402), connector("C", 2, null));
    acquirers.challenging.add("B");
    acquirers.declining.add("B");
    Payment p = deposit();
    securityCodes.hold(SHOP, p.id(), "123");

    assertThat(execute(p).state()).as("waits on the challenge").isEqualTo(PaymentState.PENDING);
    assertThat(securityCodes.held(SHOP, p.id())).as("held for the answer").isEqualTo("123");
    assertThat(service.completeChallenge(p.id().value(), true, null).state()).isEqualTo(PaymentState.COMPLETED);

    assertThat(acquirers.asked).containsExactly("B #1 challenge", "B #1", "C #2");
    assertThat(acquirers.securityCodes).containsExactly("123", "123");
    assertThat(securityCodes.held(SHOP, p.id())).as("forgotten once final").isNull();
  }

  /** A code typed on the page is held while its deposit waits on a challenge, and no longer. */
  @Test
  void a_typed_security_code_is_held_through_a_challenge_and_a_cancelled_deposits_is_forgotten() {
    shopHas(connector("B", 1, null));
    acquirers.challenging.add("B");
    when(vault.tokenize(any(), any())).thenReturn("tok_3");
    Payment p = deposit(null);

    service.submitCard(p.id().value(),
        new io.tollgate.application.port.in.CardInput("4000000000000424", null, "Ann Lee", "654", "12", "2045"));
    assertThat(securityCodes.held(SHOP, p.id())).as("waiting on the challenge").isEqualTo("654");
    assertThat(service.completeChallenge(p.id().value(), true, null).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.securityCodes).containsExactly("654");
    assertThat(securityCodes.held(SHOP, p.id())).isNull();

    Payment unpaid = deposit();
    securityCodes.hold(SHOP, unpaid.id(), "321");
    service.cancelByCustomer(unpaid.id().value());
    assertThat(securityCodes.held(SHOP, unpaid.id())).as("forgotten with its cancelled deposit").isNull();
  }

  /**
   * The checkout timeout forgets a deposit's held code once its cancel is committed, not before:
   * a cancel the database does not commit leaves the deposit open, and its execution still
   * sends the code the merchant gave.
   */
  @Test
  void a_checkout_whose_timeout_is_not_committed_keeps_its_security_code() {
    Payment p = deposit();
    securityCodes.hold(SHOP, p.id(), "123");
    when(payments.lockDue(org.mockito.ArgumentMatchers.eq(PaymentRepository.DueWork.EXPIRED_CHECKOUTS), any(),
        org.mockito.ArgumentMatchers.anyInt())).thenAnswer(call -> List.of(
        new PaymentRepository.Due(p.id(), store.rows.get(p.id()).version(), null)));
    java.util.concurrent.atomic.AtomicBoolean commitFails = new java.util.concurrent.atomic.AtomicBoolean(true);
    io.tollgate.application.port.out.TransactionRunner failingCommit = new io.tollgate.application.port.out.TransactionRunner() {
      @Override
      public <T> T inTransaction(java.util.function.Supplier<T> work) {
        return store.tx.inTransaction(() -> {
          T done = work.get();
          if (commitFails.get()) {
            throw new IllegalStateException("the commit failed");
          }
          return done;
        });
      }
    };
    ProcessingService jobs = new ProcessingService(failingCommit, payments,
        new PaymentWriter(payments, x -> new byte[0], PaymentMetrics.NONE), mock(BalanceRepository.class), shops,
        vault, acquirers, reference, groups, null, CURRENCIES, Clock.systemUTC(), Duration.ZERO, securityCodes,
        new RecentShops(shops));

    assertThatThrownBy(() -> jobs.expireCheckouts(10)).isInstanceOf(IllegalStateException.class);
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.CHECKOUT);
    assertThat(securityCodes.held(SHOP, p.id())).as("the deposit is still open").isEqualTo("123");

    commitFails.set(false);
    assertThat(jobs.expireCheckouts(10).moved()).isEqualTo(1);
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.CANCELLED);
    assertThat(securityCodes.held(SHOP, p.id())).as("forgotten with its cancelled deposit").isNull();
  }

  /** The merchant's request that gives the card holds its security code for the execution, in memory. */
  @Test
  void a_deposit_created_with_a_security_code_is_charged_with_it() {
    shopHas(connector("A", 1, null));
    when(vault.seal(any(), any())).thenAnswer(call -> new CardVault.Sealed(SHOP, "tok_1", "fp", new byte[1]));
    PaymentService creation = new PaymentService(store.tx, payments,
        new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE), mock(BalanceRepository.class), shops,
        mock(io.tollgate.application.port.out.IdempotencyRepository.class), vault,
        new io.tollgate.application.crypto.SecretBox(new byte[32]), CURRENCIES,
        io.tollgate.application.port.out.DestinationPolicy.ALLOW_ALL, reference, Clock.systemUTC(), securityCodes);
    Payment created = creation.create(new io.tollgate.application.port.in.CreatePaymentCommand(SHOP, "DEPOSIT", null,
        new BigDecimal("10.00"), "EUR", null, null, null,
        new io.tollgate.application.port.in.CardInput("4000000000000424", null, null, "789", "12", "2045"), null, null,
        null, null, null, null, null, null)).payment();

    assertThat(execute(created).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.securityCodes).containsExactly("789");
    // as a value of its own: a random id or a timestamp's digits may hold 789 by chance
    assertThat(store.rows.get(created.id()).toString()).doesNotContainPattern("(?<![0-9A-Za-z])789(?![0-9A-Za-z])");
  }

  /**
   * The operator reorders the shop's connectors before the job takes the deposit up: it goes
   * back to the terminal that may have charged it, which de-duplicates it, and not to the one a
   * plan drawn afresh would choose. The merchant's execution sent again meanwhile is refused.
   */
  @Test
  void a_deposit_cut_short_as_its_terminal_charges_goes_back_there_after_the_connectors_changed() {
    shopHas(connector("B", 1, null), connector("C", 2, null));
    acquirers.dropOnce.add("B");
    Payment p = deposit();

    assertThatThrownBy(() -> execute(p)).isInstanceOf(IllegalStateException.class);
    Payment cut = store.rows.get(p.id());
    assertThat(cut.state()).as("committed as sent, before B was asked").isEqualTo(PaymentState.PENDING);
    assertThat(cut.terminalName()).isEqualTo("B");
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT");
    assertThatThrownBy(() -> execute(p)).isInstanceOfSatisfying(DomainException.Conflict.class,
        e -> assertThat(e.getMessage()).isEqualTo("1.00 Illegal Workflow State"));

    shopHas(connector("C", 1, null), connector("B", 2, null));
    assertThat(service.resumeUnansweredDeposits(10).moved()).isEqualTo(1);

    Payment done = store.rows.get(p.id());
    assertThat(done.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(done.terminalName()).isEqualTo("B");
    assertThat(acquirers.asked).as("the same terminal, with the same attempt").containsExactly("B #1", "B #1");
    assertThat(acquirers.paid).containsExactly("B " + p.id().value());
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT B COMPLETED");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("10.00"), BigDecimal.ZERO);
    assertThat(service.resumeUnansweredDeposits(10).moved()).as("nothing left to take up").isZero();
  }

  /**
   * Cut short at the terminal a cascade moved on to: taken up there, with the attempt it was sent
   * with, and the terminal that declined is never asked again.
   */
  @Test
  void a_deposit_cut_short_after_a_cascade_goes_back_to_the_next_terminal_and_not_the_first() {
    shopHas(connector("A", 1, CASCADE_ON_402), connector("B", 2, null), connector("C", 3, null));
    acquirers.declining.add("A");
    acquirers.dropOnce.add("B");
    Payment p = deposit();

    assertThatThrownBy(() -> execute(p)).isInstanceOf(IllegalStateException.class);
    assertThat(store.rows.get(p.id()).terminalName()).as("A's decline and the move on were committed").isEqualTo("B");

    shopHas(connector("C", 1, null), connector("A", 2, CASCADE_ON_402), connector("B", 3, null));
    assertThat(service.resumeUnansweredDeposits(10).moved()).isEqualTo(1);

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.asked).containsExactly("A #1", "B #2", "B #2");
    assertThat(acquirers.paid).containsExactly("B " + p.id().value());
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT A PENDING", "CASCADING",
        "DEPOSIT B COMPLETED");
  }

  /**
   * While its terminal's answer is awaited, the deposit is the customer's no more: the checkout
   * page cannot cancel it (the card may be charged) or answer a 3-D Secure challenge for it.
   */
  @Test
  void a_deposit_awaiting_its_terminals_answer_cannot_be_cancelled_or_challenged() {
    shopHas(connector("B", 1, null));
    acquirers.dropOnce.add("B");
    Payment p = deposit();
    assertThatThrownBy(() -> execute(p)).isInstanceOf(IllegalStateException.class);

    assertThatThrownBy(() -> service.cancelByCustomer(p.id().value()))
        .isInstanceOfSatisfying(DomainException.Conflict.class,
            e -> assertThat(e.code()).isEqualTo("payment_in_progress"));
    assertThatThrownBy(() -> service.completeChallenge(p.id().value(), true))
        .isInstanceOf(DomainException.Conflict.class);
    assertThat(service.view(p.id().value()).unanswered()).isTrue();
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.PENDING);
    assertThat(acquirers.asked).containsExactly("B #1");
  }

  /**
   * Cut short after the customer passed the 3-D Secure challenge, while the terminal completed
   * the charge: the deposit is not left waiting on a challenge the customer may abandon (and
   * the checkout timeout cancel, card charged), but finished by the job, which tells the
   * terminal again.
   */
  @Test
  void a_3ds_deposit_cut_short_as_its_terminal_completes_the_charge_is_finished_by_the_job() {
    shopHas(connector("B", 1, null));
    acquirers.challenging.add("B");
    acquirers.dropOnce.add("B");
    Payment p = deposit();
    assertThat(execute(p).state()).isEqualTo(PaymentState.PENDING);

    assertThatThrownBy(() -> service.completeChallenge(p.id().value(), true)).isInstanceOf(IllegalStateException.class);
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT B PENDING", "CONFIRMATION");
    assertThat(service.view(p.id().value()).unanswered()).isTrue();
    assertThatThrownBy(() -> service.cancelByCustomer(p.id().value()))
        .isInstanceOfSatisfying(DomainException.Conflict.class,
            e -> assertThat(e.code()).isEqualTo("payment_in_progress"));

    assertThat(service.resumeUnansweredDeposits(10).moved()).isEqualTo(1);

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.asked).containsExactly("B #1 challenge", "B #1", "B #1");
    assertThat(acquirers.paid).containsExactly("B " + p.id().value());
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT B PENDING", "CONFIRMATION",
        "DEPOSIT B COMPLETED");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("10.00"), BigDecimal.ZERO);
  }

  /**
   * A terminal that answers a card charge PENDING has not decided yet, and may still charge:
   * the deposit stays as it was sent, unanswered (which the expiry job's query leaves alone:
   * JdbiPaymentRepositoryTest), not waiting on a challenge, and the job asks the same terminal
   * again.
   */
  @Test
  void a_charge_its_terminal_has_not_decided_yet_is_asked_again_by_the_job() {
    shopHas(connector("B", 1, CASCADE_ON_402), connector("C", 2, null));
    acquirers.undecidedOnce.add("B");
    Payment p = deposit();

    assertThat(execute(p).state()).isEqualTo(PaymentState.PENDING);
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT");
    assertThat(service.view(p.id().value()).unanswered()).as("being processed, no challenge to answer").isTrue();
    org.mockito.Mockito.verify(payments).checked(org.mockito.ArgumentMatchers.eq(p.id()), any());

    assertThat(service.resumeUnansweredDeposits(10).moved()).isEqualTo(1);
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.asked).containsExactly("B #1", "B #1");
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT B COMPLETED");
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("10.00"), BigDecimal.ZERO);
  }

  /** The same for the terminal's answer to a passed 3-D Secure challenge. */
  @Test
  void a_challenge_answer_its_terminal_has_not_decided_yet_is_told_again_by_the_job() {
    shopHas(connector("B", 1, null));
    acquirers.challenging.add("B");
    acquirers.undecidedOnce.add("B");
    Payment p = deposit();
    execute(p);

    assertThat(service.completeChallenge(p.id().value(), true).state()).isEqualTo(PaymentState.PENDING);
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT B PENDING", "CONFIRMATION");
    assertThat(service.view(p.id().value()).unanswered()).isTrue();

    assertThat(service.resumeUnansweredDeposits(10).moved()).isEqualTo(1);
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.challengeAnswers).containsExactly(true, true);
    assertThat(acquirers.paid).containsExactly("B " + p.id().value());
  }

  /**
   * The customer failed the challenge and the issuer charged all the same, and the request was
   * cut short before it stored that: the failed answer was committed first, so the job tells
   * the terminal the same answer again, and the charged deposit completes rather than being
   * cancelled.
   */
  @Test
  void a_failed_challenge_the_issuer_charges_all_the_same_is_finished_by_the_job_with_the_same_answer() {
    shopHas(connector("B", 1, null));
    acquirers.challenging.add("B");
    acquirers.dropOnce.add("B");
    acquirers.chargesFailedChallenges = true;
    Payment p = deposit();
    execute(p);

    assertThatThrownBy(() -> service.completeChallenge(p.id().value(), false)).isInstanceOf(IllegalStateException.class);
    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.PENDING);
    assertThat(service.resumeUnansweredDeposits(10).moved()).isEqualTo(1);

    assertThat(store.rows.get(p.id()).state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(acquirers.challengeAnswers).as("the customer's answer, told again").containsExactly(false, false);
    assertThat(acquirers.paid).containsExactly("B " + p.id().value());
  }

  /**
   * Most card deposits in Europe are challenged: a decline after the challenge whose code is in
   * the terminal's cascading group moves on to the next terminal, as a decline without one does
   * (reported by the groups review: it was declined there and then). The next terminal's own
   * challenge is then shown, and answered, as the first was.
   */
  @Test
  void a_decline_after_a_passed_challenge_cascades_to_the_next_terminal_and_its_own_challenge() {
    shopHas(connector("B", 1, CASCADE_ON_402), connector("C", 2, null));
    acquirers.challenging.add("B");
    acquirers.declining.add("B");
    acquirers.challenging.add("C");
    Payment p = deposit();
    assertThat(execute(p).state()).isEqualTo(PaymentState.PENDING);

    Payment movedOn = service.completeChallenge(p.id().value(), true);
    assertThat(movedOn.state()).as("waiting on the next terminal's challenge").isEqualTo(PaymentState.PENDING);
    assertThat(movedOn.terminalName()).isEqualTo("C");
    assertThat(service.view(p.id().value()).unanswered()).as("a challenge to show, not a charge in progress").isFalse();
    assertThat(steps()).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT B PENDING", "CONFIRMATION",
        "CONFIRMATION", "CASCADING", "DEPOSIT C PENDING");
    assertThat(service.view(p.id().value()).challengeAttempt()).as("the page shows C's challenge").isEqualTo(2);

    // B's challenge form sent again (the back button) answers no challenge the customer never saw
    assertThatThrownBy(() -> service.completeChallenge(p.id().value(), true, 1))
        .isInstanceOfSatisfying(DomainException.Conflict.class, e -> assertThat(e.code()).isEqualTo("challenge_replaced"));
    assertThat(acquirers.asked).containsExactly("B #1 challenge", "B #1", "C #2 challenge");
    assertThat(steps()).hasSize(7);

    Payment done = service.completeChallenge(p.id().value(), true, 2);
    assertThat(done.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(done.terminalName()).isEqualTo("C");
    assertThat(acquirers.asked).containsExactly("B #1 challenge", "B #1", "C #2 challenge", "C #2");
    assertThat(acquirers.paid).containsExactly("C " + p.id().value());
    assertThat(store.sum("EUR")).usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("10.00"), BigDecimal.ZERO);
  }

  /** A decline after the challenge whose code does not cascade, or with no terminal left, ends the deposit. */
  @Test
  void a_decline_after_a_challenge_that_does_not_cascade_declines_the_deposit() {
    shopHas(connector("B", 1, null), connector("C", 2, null));
    acquirers.challenging.add("B");
    acquirers.declining.add("B");
    Payment p = deposit();
    execute(p);

    Payment declined = service.completeChallenge(p.id().value(), true);
    assertThat(declined.state()).isEqualTo(PaymentState.DECLINED);
    assertThat(declined.errorCode()).isEqualTo(io.tollgate.domain.error.ErrorCode.E4_02_DO_NOT_HONOR);
    assertThat(acquirers.asked).containsExactly("B #1 challenge", "B #1");
  }

  /**
   * A decline whose answer no error code was mapped to is stored as 3.00, and cascades as 3.00
   * does in the terminal's group: the stored code and the cascade's decision are the same.
   */
  @Test
  void a_decline_without_a_code_cascades_as_the_300_it_is_stored_with() {
    long cascadeOn300 = 8;
    when(groups.contains(cascadeOn300, "3.00")).thenReturn(true);
    shopHas(connector("B", 1, cascadeOn300), connector("C", 2, null));
    acquirers.decliningUnmapped.add("B");
    Payment p = deposit();

    Payment done = execute(p);
    assertThat(done.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(done.terminalName()).isEqualTo("C");
    assertThat(acquirers.asked).containsExactly("B #1", "C #2");
  }

  /**
   * The customer failed 3-D Secure (did not know the one-time code). A decline of the issuer's
   * whose code the merchant cascades on (here 5.00; an acquirer may as well answer 4.02) must
   * not send the same card to the next terminal, which asks for no challenge and charges it
   * (found in the review of the cascade after a challenge).
   */
  @Test
  void a_challenge_the_customer_failed_is_not_cascaded_to_a_terminal_without_3ds() {
    long cascadeOn3ds = 9;
    when(groups.contains(cascadeOn3ds, "5.00")).thenReturn(true);
    shopHas(connector("B", 1, cascadeOn3ds), connector("C", 2, null));
    acquirers.challenging.add("B");
    Payment p = deposit();
    execute(p);

    Payment answered = service.completeChallenge(p.id().value(), false);
    assertThat(acquirers.paid).as("a card whose holder failed authentication is charged nowhere").isEmpty();
    assertThat(answered.state()).isEqualTo(PaymentState.DECLINED);
  }

  /**
   * B's answer to the passed challenge is PENDING at first (its issuer is slow), so the job
   * tells it again. B then declines with a cascading code, and the job moves on to C - inside
   * the job's own transaction, so the CASCADING step is not committed before C is asked. C
   * charges the card and the connection drops: everything the job wrote is rolled back, the
   * deposit is again "at B, challenge answered". The operator adds terminal D meanwhile; the
   * next run cascades from B to D, which charged the card a second time (found in the review of
   * the cascade after a challenge). Now the job commits the CASCADING step, then asks C in a
   * step of its own, and the next run goes back to C, which de-duplicates.
   */
  @Test
  void the_jobs_cascade_after_a_challenge_commits_the_next_terminal_before_asking_it() {
    shopHas(connector("B", 1, CASCADE_ON_402), connector("C", 2, null));
    acquirers.challenging.add("B");
    acquirers.undecidedOnce.add("B");
    acquirers.declining.add("B");
    acquirers.dropOnce.add("C");
    Payment p = deposit();
    execute(p);
    assertThat(service.completeChallenge(p.id().value(), true).state()).isEqualTo(PaymentState.PENDING);

    assertThatThrownBy(() -> service.resumeUnansweredDeposits(10)).isInstanceOf(IllegalStateException.class);
    assertThat(acquirers.paid).containsExactly("C " + p.id().value());
    String committedAt = store.rows.get(p.id()).terminalName();

    shopHas(connector("B", 1, CASCADE_ON_402), connector("D", 2, null), connector("C", 3, null));
    service.resumeUnansweredDeposits(10);
    assertThat(acquirers.paid).as("charged once (committed at " + committedAt + " after C charged; then asked "
        + acquirers.asked + ")").containsExactly("C " + p.id().value());
  }
}
