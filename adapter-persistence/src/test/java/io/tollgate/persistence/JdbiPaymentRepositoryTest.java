package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.PaymentRepository.DueWork;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.application.service.PaymentWriter;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JdbiPaymentRepositoryTest extends AbstractPaymentRepositoryContractTest {

  static Database db;
  static PersistenceAdapters adapters;
  static ShopId shop;
  static ShopId otherShop;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh();
    adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), CURRENCIES);
    shop = TestShops.create(adapters, "one");
    otherShop = TestShops.create(adapters, "two");
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Override
  PaymentRepository repository() {
    return adapters.payments();
  }

  @Override
  ShopId shop() {
    return shop;
  }

  @Override
  ShopId otherShop() {
    return otherShop;
  }

  /** The effects of a step that writes its webhook event to the outbox. */
  private static final Function<Payment, PaymentRepository.Effects> WEBHOOK = stored -> new PaymentRepository.Effects(
      new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), stored.id(), stored.shopId(), stored.state(),
          "https://merchant.example/hooks", "{}".getBytes(StandardCharsets.UTF_8), stored.updated()), null);

  /** The event, if a claim at {@code now} (by the instance's clock) leases it. */
  private static java.util.Optional<WebhookOutbox.ClaimedEvent> claimed(String event, Instant now) {
    return adapters.webhookOutbox()
        .claim("test:" + UUID.randomUUID(), now, Duration.ofMinutes(1), 1000, List.of())
        .stream().filter(e -> e.id().equals(event)).findFirst();
  }

  /** Settles a claimed event as its receiver answering 200 would. */
  private static void delivered(WebhookOutbox.ClaimedEvent e) {
    assertThat(adapters.webhookOutbox().recordAttempt(e, new WebhookOutbox.Attempt(e.id(), e.paymentState(),
        e.attempts() + 1, e.url(), Instant.now(), Duration.ofMillis(5), 200, null, WebhookOutbox.Status.DELIVERED),
        WebhookOutbox.Status.DELIVERED, null)).as("still leased").isTrue();
  }

  /** A completed payment's event, claimed for delivery, and a resend asked while the claim holds. */
  private record Resent(Payment payment, String event, WebhookOutbox.ClaimedEvent claimed) {}

  private Resent resentWhileClaimed(String shop, String referenceId) {
    Payment p = completedWithEvent(TestShops.create(adapters, shop), referenceId);
    String event = adapters.webhookOutbox().latestEvent(p.id()).orElseThrow().id();
    WebhookOutbox.ClaimedEvent claimed = claimed(event, Instant.now().plusSeconds(1)).orElseThrow();
    adapters.webhookOutbox().requeue(event, Instant.now());
    return new Resent(p, event, claimed);
  }

  /**
   * Records an attempt of a claimed event that began {@code waited} after its claim, its receiver
   * answering {@code code}; the event left {@code status}, due again at {@code next} when PENDING.
   */
  private static void attempted(WebhookOutbox.ClaimedEvent e, int code, WebhookOutbox.Status status, Instant next,
      Duration waited) {
    adapters.webhookOutbox().recordAttempts(List.of(new WebhookOutbox.Outcome(e, new WebhookOutbox.Attempt(e.id(),
        e.paymentState(), e.attempts() + 1, e.url(), Instant.now(), Duration.ofMillis(5), code, null, status), status,
        next, waited)));
  }

  /** The payment's events, oldest first, as "STATE STATUS". */
  private static List<String> events(Payment p) {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT payment_state || ' ' || status "
        + "FROM webhook_events WHERE payment_id = :payment ORDER BY seq").bind("payment", p.id().value())
        .mapTo(String.class).list());
  }

  /**
   * A resend makes the payment's newest event due again, and never an older one that a newer
   * state's event has overtaken since the merchant asked: the receiver would read the payment
   * as gone back to the older state.
   */
  @Test
  void only_a_payments_newest_event_is_sent_again() {
    ShopId own = TestShops.create(adapters, "resend");
    Payment p = repository().insert(Payment.create(draft(own, "4.20", "rs-1"), PaymentState.CHECKOUT, T0));
    Payment authorized = repository().update(
        p.apply(OperationType.DEPOSIT, PaymentState.AUTHORIZED, Outcome.NONE, T0.plusSeconds(1)), WEBHOOK);
    WebhookOutbox outbox = adapters.webhookOutbox();
    String older = outbox.latestEvent(p.id()).orElseThrow().id();
    repository().update(authorized.apply(OperationType.CAPTURE, PaymentState.COMPLETED, Outcome.NONE,
        T0.plusSeconds(2)), WEBHOOK);
    String newer = outbox.latestEvent(p.id()).orElseThrow().id();
    db.jdbi().useHandle(h -> h.createUpdate("UPDATE webhook_events SET status = 'DELIVERED', finished = now() "
        + "WHERE payment_id = :payment").bind("payment", p.id().value()).execute());

    outbox.requeue(older, Instant.now());
    outbox.requeue(newer, Instant.now());

    assertThat(events(p)).containsExactly("AUTHORIZED DELIVERED", "COMPLETED PENDING");
  }

  /**
   * A resend asked for while the event is being delivered is made once that delivery has ended:
   * the delivery in flight used to settle the event as DELIVERED over it, and the merchant, told
   * 202, never got the webhook again.
   */
  @Test
  void a_resend_asked_during_a_delivery_is_made_after_it() {
    Resent resent = resentWhileClaimed("resend-in-flight", "rf-1");
    Payment p = resent.payment();
    WebhookOutbox outbox = adapters.webhookOutbox();
    String event = resent.event();
    WebhookOutbox.ClaimedEvent inFlight = resent.claimed();
    assertThat(claimed(event, Instant.now().plusSeconds(1))).as("not sent twice at once").isEmpty();
    delivered(inFlight);

    WebhookOutbox.ClaimedEvent again = claimed(event, Instant.now().plusSeconds(1))
        .orElseThrow(() -> new AssertionError("not due again once the delivery in flight has ended"));
    delivered(again);
    assertThat(events(p)).containsExactly("COMPLETED DELIVERED");
    assertThat(claimed(event, Instant.now().plusSeconds(1))).as("sent again once, not for ever").isEmpty();
    assertThat(outbox.attempts(p.id())).hasSize(2);
  }

  /**
   * A resend asked while the event is claimed but its delivery has not begun (it waits in its
   * dispatcher for a slot of its shop) is answered by that delivery: the event used to be due
   * again once it was recorded, and went out a second time straight after.
   */
  @Test
  void a_resend_asked_before_the_claimed_delivery_began_is_answered_by_it() {
    Resent resent = resentWhileClaimed("resend-waiting", "rw-1");
    Payment p = resent.payment();
    WebhookOutbox outbox = adapters.webhookOutbox();
    String event = resent.event();
    WebhookOutbox.ClaimedEvent waiting = resent.claimed();
    // its attempt began a minute after the claim, long after the resend was asked
    attempted(waiting, 200, WebhookOutbox.Status.DELIVERED, null, Duration.ofMinutes(1));

    assertThat(events(p)).containsExactly("COMPLETED DELIVERED");
    assertThat(claimed(event, Instant.now().plusSeconds(1))).as("not sent again").isEmpty();
    assertThat(outbox.attempts(p.id())).extracting(WebhookOutbox.Attempt::eventStatus)
        .containsExactly(WebhookOutbox.Status.DELIVERED);
  }

  /**
   * A resend asked while the claimed event waited is answered by its attempt only when that
   * delivered: one that failed settled the event by the schedule its claim read, FAILED on its
   * last retry, or due again only after the old delay (an hour, a day), though the merchant was
   * told the event would be sent again at once on a fresh schedule.
   */
  @ParameterizedTest(name = "failed, {0}")
  @ValueSource(strings = {"on its last retry", "with a retry an hour away"})
  void a_resend_asked_before_a_claimed_delivery_that_then_failed_is_made_on_a_fresh_schedule(String retry) {
    Resent resent = resentWhileClaimed("resend-waiting-failed " + retry, "rwf-" + retry);
    Payment p = resent.payment();
    String event = resent.event();
    WebhookOutbox.ClaimedEvent waiting = resent.claimed();
    // it began a minute after the claim, and its receiver answered 500
    boolean last = retry.equals("on its last retry");
    WebhookOutbox.Status status = last ? WebhookOutbox.Status.FAILED : WebhookOutbox.Status.PENDING;
    attempted(waiting, 500, status, last ? null : Instant.now().plus(Duration.ofHours(1)), Duration.ofMinutes(1));

    assertThat(events(p)).containsExactly("COMPLETED PENDING");
    WebhookOutbox.ClaimedEvent again = claimed(event, Instant.now().plusSeconds(1))
        .orElseThrow(() -> new AssertionError("not due again at once"));
    assertThat(again.failuresInRow()).as("a fresh schedule").isZero();
  }

  /**
   * The log of a delivery that a resend was asked during shows the event's status after it,
   * PENDING as it is to be sent again: it showed DELIVERED (or FAILED) while the event was due
   * again, though the log's status is documented as the event's after the attempt.
   */
  @Test
  void an_attempt_during_which_a_resend_was_asked_is_logged_with_the_event_pending() {
    Resent resent = resentWhileClaimed("resend-logged", "rl-1");
    Payment p = resent.payment();
    WebhookOutbox outbox = adapters.webhookOutbox();
    String event = resent.event();
    WebhookOutbox.ClaimedEvent inFlight = resent.claimed();
    delivered(inFlight);
    assertThat(outbox.attempts(p.id())).first().extracting(WebhookOutbox.Attempt::eventStatus)
        .as("the event is to be sent again").isEqualTo(WebhookOutbox.Status.PENDING);
    assertThat(outbox.latestEvent(p.id()).orElseThrow().status()).isEqualTo(WebhookOutbox.Status.PENDING);

    delivered(claimed(event, Instant.now().plusSeconds(1)).orElseThrow());
    assertThat(outbox.attempts(p.id())).extracting(WebhookOutbox.Attempt::eventStatus)
        .containsExactly(WebhookOutbox.Status.DELIVERED, WebhookOutbox.Status.PENDING);
  }

  /**
   * A claim tells an event sent again on request from one retried on the schedule: the dispatcher
   * leaves resends out of its lag metric, where a 60-day-old event sent again showed as 60 days
   * of lag, and must still count a retried event's delay.
   */
  @Test
  void a_claim_tells_a_resent_event_from_a_retried_one() {
    Payment p = completedWithEvent(TestShops.create(adapters, "resent-or-retried"), "rq-1");
    WebhookOutbox outbox = adapters.webhookOutbox();
    String event = outbox.latestEvent(p.id()).orElseThrow().id();

    WebhookOutbox.ClaimedEvent first = claimed(event, Instant.now().plusSeconds(1)).orElseThrow();
    assertThat(first.requeued()).isFalse();
    assertThat(outbox.recordAttempt(first, new WebhookOutbox.Attempt(first.id(), first.paymentState(), 1,
        first.url(), Instant.now(), Duration.ofMillis(5), 500, null, WebhookOutbox.Status.PENDING),
        WebhookOutbox.Status.PENDING, Instant.now())).isTrue();
    WebhookOutbox.ClaimedEvent retry = claimed(event, Instant.now().plusSeconds(1)).orElseThrow();
    assertThat(retry.requeued()).as("a retry").isFalse();
    delivered(retry);
    outbox.requeue(event, Instant.now());
    assertThat(claimed(event, Instant.now().plusSeconds(1)).orElseThrow().requeued()).as("a resend").isTrue();
  }

  /**
   * A resend asked during a delivery is due at the time the instance asked for it, by the
   * instance's clock as every due time is, and is dropped when a newer event of the payment has
   * overtaken it meanwhile (sent after that one, it would tell the receiver the payment went back).
   */
  @Test
  void a_resend_queued_during_a_delivery_keeps_the_instances_time_and_yields_to_a_newer_event() {
    ShopId own = TestShops.create(adapters, "resend-overtaken");
    Payment p = repository().insert(Payment.create(draft(own, "4.40", "ro-1"), PaymentState.CHECKOUT, T0));
    Payment authorized = repository().update(
        p.apply(OperationType.DEPOSIT, PaymentState.AUTHORIZED, Outcome.NONE, T0.plusSeconds(1)), WEBHOOK);
    WebhookOutbox outbox = adapters.webhookOutbox();
    String first = outbox.latestEvent(p.id()).orElseThrow().id();
    // this instance's clock runs 30 s behind the database's
    Instant behind = Instant.now().minusSeconds(30);

    WebhookOutbox.ClaimedEvent inFlight = claimed(first, behind.plusSeconds(1)).orElseThrow();
    outbox.requeue(first, behind);
    delivered(inFlight);
    WebhookOutbox.ClaimedEvent again = claimed(first, behind.plusSeconds(1))
        .orElseThrow(() -> new AssertionError("the resend is not due by the instance's clock"));

    outbox.requeue(first, behind);
    repository().update(authorized.apply(OperationType.CAPTURE, PaymentState.COMPLETED, Outcome.NONE,
        T0.plusSeconds(2)), WEBHOOK);
    delivered(again);
    assertThat(outbox.attempts(p.id())).hasSize(2);
    assertThat(events(p)).as("the AUTHORIZED event is not sent a third time after COMPLETED's")
        .containsExactly("AUTHORIZED DELIVERED", "COMPLETED PENDING");
  }

  /**
   * A resend asked while a capture is being committed does not send the AUTHORIZED event again
   * after the capture's COMPLETED one: the receiver would read the payment as gone back. The
   * resend's check for a newer event read the outbox as it was before the capture committed; held
   * up after that check (here by a lock on the event's row), it made the AUTHORIZED event due
   * again once COMPLETED had been claimed and delivered, and it went out after it.
   */
  @Test
  void a_resend_racing_a_capture_never_sends_the_older_event_after_the_newer() throws Exception {
    ShopId own = TestShops.create(adapters, "resend-racing");
    Payment p = repository().insert(Payment.create(draft(own, "4.50", "rr-1"), PaymentState.CHECKOUT, T0));
    repository().update(p.apply(OperationType.DEPOSIT, PaymentState.AUTHORIZED, Outcome.NONE, T0.plusSeconds(1)),
        WEBHOOK);
    WebhookOutbox outbox = adapters.webhookOutbox();
    String authorized = outbox.latestEvent(p.id()).orElseThrow().id();
    delivered(claimed(authorized, Instant.now().plusSeconds(1)).orElseThrow());
    String completed = UUID.randomUUID().toString();
    java.util.concurrent.ExecutorService resending = java.util.concurrent.Executors.newSingleThreadExecutor();
    try (org.jdbi.v3.core.Handle rowHolder = db.jdbi().open(); org.jdbi.v3.core.Handle capture = db.jdbi().open()) {
      rowHolder.begin();
      rowHolder.createQuery("SELECT id FROM webhook_events WHERE id = :id FOR UPDATE")
          .bind("id", UUID.fromString(authorized)).mapTo(String.class).one();
      // the capture's transaction as the repository writes it: the payment's row, then its event
      capture.begin();
      capture.createUpdate("UPDATE payments SET state = 'COMPLETED', version = version + 1 WHERE id = :id")
          .bind("id", p.id().value()).execute();
      capture.createUpdate("""
              INSERT INTO webhook_events (id, payment_id, shop_id, payment_state, target_url, body, next_attempt_at,
                  created)
              VALUES (CAST(:id AS uuid), :payment, :shop, 'COMPLETED', 'https://merchant.example/hooks',
                  CAST('{}' AS bytea), now(), now())
              """).bind("id", completed).bind("payment", p.id().value()).bind("shop", own.value()).execute();

      java.util.concurrent.Future<?> resend = resending.submit(() -> outbox.requeue(authorized, Instant.now()));
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity "
          + "WHERE datname = current_database() AND wait_event_type = 'Lock'").mapTo(Long.class).one()) == 0) {
        assertThat(System.nanoTime() < until).as("the resend waits for a lock").isTrue();
        Thread.sleep(10);
      }
      capture.commit();
      WebhookOutbox.ClaimedEvent newer = claimed(completed, Instant.now().plusSeconds(1))
          .orElseThrow(() -> new AssertionError("the capture's event is due"));
      delivered(newer);
      rowHolder.rollback();
      resend.get(10, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      resending.shutdownNow();
    }
    assertThat(events(p)).as("AUTHORIZED is not due again after COMPLETED went out")
        .containsExactly("AUTHORIZED DELIVERED", "COMPLETED DELIVERED");
    assertThat(claimed(authorized, Instant.now().plusSeconds(1))).isEmpty();
  }

  /**
   * A step and what it causes are one write: the outbox event, the ledger entry and the moved
   * balance exist exactly when the step was stored, and a step refused as stale leaves none.
   */
  @Test
  void a_step_and_its_event_and_ledger_entry_are_stored_together_or_not_at_all() {
    ShopId own = TestShops.create(adapters, "effects");
    Payment p = repository().insert(Payment.create(draft(own, "7.25", "fx-1"), PaymentState.CHECKOUT, T0));
    Payment.Transition complete = p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(1));
    Function<Payment, PaymentRepository.Effects> effects = stored -> new PaymentRepository.Effects(
        new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), stored.id(), stored.shopId(), stored.state(),
            null, "{}".getBytes(StandardCharsets.UTF_8), stored.updated()),
        new BalanceRepository.LedgerEntry(stored.shopId(), stored.amount().currency(), stored.amount().amount(),
            BigDecimal.ZERO, stored.id(), "deposit completed", stored.updated()));

    Payment done = repository().update(complete, effects);

    assertThat(done.state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(adapters.webhookOutbox().latestEvent(p.id())).get()
        .extracting(WebhookOutbox.EventSummary::paymentState).isEqualTo(PaymentState.COMPLETED);
    assertThat(adapters.balances().balances(own)).singleElement().satisfies(b -> {
      assertThat(b.available()).isEqualByComparingTo("7.25");
      assertThat(b.reserved()).isEqualByComparingTo("0");
    });

    Payment.Transition stale = p.apply(OperationType.CANCEL, PaymentState.CANCELLED, Outcome.NONE, T0.plusSeconds(2));
    assertThatThrownBy(() -> repository().update(stale, effects)).isInstanceOf(DomainException.Conflict.class);

    assertThat(repository().find(p.id()).orElseThrow().state()).isEqualTo(PaymentState.COMPLETED);
    assertThat(repository().operations(p.id())).hasSize(2);
    assertThat(adapters.balances().balances(own)).singleElement()
        .satisfies(b -> assertThat(b.available()).isEqualByComparingTo("7.25"));
    long events = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_events WHERE payment_id = :id")
        .bind("id", p.id().value()).mapTo(Long.class).one());
    assertThat(events).isEqualTo(1);
  }

  /**
   * The merchant API lists by merchant: a payment and its operations carry the
   * merchant of the payment's shop, on creation and on each step, and another merchant's shop
   * gives its own.
   */
  @Test
  void a_payment_and_its_operations_carry_the_merchant_of_their_shop() {
    ShopId own = TestShops.create(adapters, "carries-merchant");
    ShopId other = TestShops.create(adapters, "carries-merchant-other");
    Payment p = repository().insert(Payment.create(draft(own, "1", "cm-1"), PaymentState.CHECKOUT, T0));
    repository().update(p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(1)));
    Payment q = repository().insert(Payment.create(draft(other, "1", "cm-2"), PaymentState.CHECKOUT, T0));

    for (Payment each : List.of(p, q)) {
      List<Boolean> ownMerchant = db.jdbi().withHandle(h -> h.createQuery("""
              SELECT r.merchant_id = s.merchant_id FROM shops s,
                LATERAL (SELECT merchant_id FROM payments WHERE id = :id
                         UNION ALL SELECT merchant_id FROM payment_operations WHERE payment_id = :id) r
              WHERE s.id = :shop""")
          .bind("id", each.id().value()).bind("shop", each.shopId().value()).mapTo(Boolean.class).list());
      assertThat(ownMerchant).hasSize(each == p ? 3 : 2).containsOnly(true);
    }
  }

  /**
   * Completed deposits of one shop and currency do not queue on each other's balance row:
   * each takes a slot row no open transaction holds, so twelve of them can sit uncommitted at
   * once, and the balance is their sum once they commit. (With slots picked at random among
   * 31, twelve find different ones about one time in ten.)
   */
  @Test
  void completed_deposits_do_not_wait_for_each_others_balance_slot() throws Exception {
    ShopId own = TestShops.create(adapters, "slots");
    int open = 12;
    db.jdbi().useHandle(h -> h.execute("""
        INSERT INTO balances (shop_id, currency, slot, available, reserved, updated)
        SELECT ?, 'EUR', s, 0, 0, now() FROM generate_series(1, ?) AS s""", own.value(), open));
    List<Payment> created = new ArrayList<>();
    for (int i = 0; i < open; i++) {
      created.add(repository().insert(Payment.create(draft(own, "1.25", "slot-" + i), PaymentState.CHECKOUT, T0)));
    }
    // The pool holds the twelve connections before the deposits start: on a loaded machine,
    // opening them one after another inside the window could outlast a request's wait for one.
    List<org.jdbi.v3.core.Handle> warm = new ArrayList<>();
    for (int i = 0; i < open; i++) {
      warm.add(db.jdbi().open());
    }
    warm.forEach(org.jdbi.v3.core.Handle::close);
    java.util.concurrent.CountDownLatch written = new java.util.concurrent.CountDownLatch(open);
    java.util.concurrent.CountDownLatch commit = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(open);
    try {
      List<java.util.concurrent.Future<Object>> done = new ArrayList<>();
      List<Throwable> failed = java.util.Collections.synchronizedList(new ArrayList<>());
      for (Payment p : created) {
        done.add(pool.submit(() -> {
          try {
            return adapters.transactionRunner().inTransaction(() -> {
              repository().update(p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE,
                      T0.plusSeconds(1)),
                  stored -> new PaymentRepository.Effects(null, new BalanceRepository.LedgerEntry(stored.shopId(),
                      stored.amount().currency(), stored.amount().amount(), BigDecimal.ZERO, stored.id(),
                      "deposit completed", stored.updated())));
              written.countDown();
              try {
                commit.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
              return null;
            });
          } catch (RuntimeException | Error e) {
            failed.add(e); // said in the assertion below, not after it times out
            throw e;
          }
        }));
      }
      boolean allWritten = written.await(20, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(failed).as("deposits that failed").isEmpty();
      assertThat(allWritten).as("every deposit wrote its balance while the others were still open").isTrue();
      commit.countDown();
      for (var f : done) {
        f.get(20, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      commit.countDown();
      pool.shutdownNow();
    }
    assertThat(adapters.balances().balances(own)).singleElement()
        .satisfies(b -> assertThat(b.available()).isEqualByComparingTo("15.00"));
  }

  /**
   * A held step (an anti-fraud screen that found nothing) is stored with the next step, its
   * operation first, in one write; the next step written without it is refused, so the held
   * operation cannot be lost.
   */
  @Test
  void a_held_step_is_stored_first_with_the_next_one_and_cannot_be_skipped() {
    ShopId own = TestShops.create(adapters, "held");
    PaymentWriter writer = writer();
    Payment p = writer.create(Payment.create(draft(own, "3.10", "held-1"), PaymentState.CHECKOUT, T0));
    Instant at = T0.plusSeconds(1);
    PaymentWriter.Held held = writer.hold(p.apply(OperationType.DETECT_FRAUD, PaymentState.CHECKOUT,
        Outcome.NONE.withDetails("2 rules passed"), at));
    Payment.Transition next = held.payment().apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, at);

    assertThatThrownBy(() -> writer.update(next)).isInstanceOf(DomainException.Conflict.class);
    assertThat(repository().operations(p.id())).hasSize(1);

    Payment done = writer.update(held, next);

    assertThat(repository().find(p.id()).orElseThrow()).satisfies(stored -> {
      assertThat(stored.state()).isEqualTo(PaymentState.COMPLETED);
      assertThat(stored.version()).isEqualTo(done.version()).isEqualTo(p.version() + 1);
    });
    // newest first; both at the same instant, so their order is the order they were stored in
    assertThat(repository().operations(p.id())).extracting(o -> o.operation() + " " + o.details())
        .containsExactly("DEPOSIT null", "DETECT_FRAUD 2 rules passed", "CREATE_PAYMENT null");
    assertThat(adapters.balances().balances(own)).singleElement()
        .satisfies(b -> assertThat(b.available()).isEqualByComparingTo("3.10"));
    // a step that moves the payment is never held: its webhook and ledger entry are due now
    Payment.Transition cancel = writer.create(Payment.create(draft(own, "1.00", "held-2"), PaymentState.CHECKOUT, T0))
        .apply(OperationType.CANCEL, PaymentState.CANCELLED, Outcome.NONE, at);
    assertThatThrownBy(() -> writer.hold(cancel)).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Where a payout is about to be sent is stored before it is sent: the routed terminal and
   * amount, with the held screen when there is one, and no operation, event or ledger entry of
   * its own; a routing computed from a stale row is refused.
   */
  @Test
  void a_routing_is_stored_before_the_terminal_is_asked_with_no_operation_of_its_own() {
    ShopId own = TestShops.create(adapters, "routing");
    PaymentWriter writer = writer();
    Payment p = writer.create(Payment.create(draft(own, "4.00", "route-1"), PaymentState.CHECKOUT, T0));
    Payment routed = p.withRouting(p.amount(), null, 42L, "Acquirer B");

    Payment stored = writer.route(null, new Payment.Transition(p, routed, null));

    assertThat(repository().find(p.id()).orElseThrow()).satisfies(row -> {
      assertThat(row.terminalId()).isEqualTo(42L);
      assertThat(row.terminalName()).isEqualTo("Acquirer B");
      assertThat(row.state()).isEqualTo(PaymentState.CHECKOUT);
      assertThat(row.version()).isEqualTo(stored.version()).isEqualTo(p.version() + 1);
    });
    assertThat(repository().operations(p.id())).extracting(PaymentOperation::operation)
        .containsExactly(OperationType.CREATE_PAYMENT);
    assertThatThrownBy(() -> writer.route(null, new Payment.Transition(p, routed, null))).isInstanceOf(DomainException.Conflict.class);

    PaymentWriter.Held held = writer.hold(stored.apply(OperationType.DETECT_FRAUD, PaymentState.CHECKOUT,
        Outcome.NONE.withDetails("1 rule passed"), T0.plusSeconds(1)));
    Payment again = writer.route(held, new Payment.Transition(held.payment(),
        held.payment().withRouting(p.amount(), null, 43L, "Acquirer C"), null));

    assertThat(repository().find(p.id()).orElseThrow().terminalId()).isEqualTo(43L);
    assertThat(again.version()).isEqualTo(stored.version() + 1);
    assertThat(repository().operations(p.id())).extracting(o -> o.operation() + " " + o.details())
        .containsExactly("DETECT_FRAUD 1 rule passed", "CREATE_PAYMENT null");
    long events = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_events WHERE payment_id = :id")
        .bind("id", p.id().value()).mapTo(Long.class).one());
    assertThat(events).isZero();
  }

  /**
   * A payout routed to a terminal in another currency moves what it holds with the routing: the
   * currency it was asked in gets it back and the terminal's currency holds the converted amount,
   * two ledger entries in that order, in the routing's write; a routing refused as stale moves
   * nothing.
   */
  @Test
  void a_payout_routed_into_another_currency_moves_what_it_holds_with_the_routing() {
    ShopId own = TestShops.create(adapters, "transfer");
    PaymentWriter writer = writer();
    Payment.Draft card = draft(own, "5.00", "transfer-1");
    Payment p = writer.create(Payment.create(new Payment.Draft(card.id(), own, PaymentType.WITHDRAWAL,
        PaymentMethod.BASIC_CARD, card.amount(), "transfer-1", null, null, false, card.card(), card.customer(), null,
        null, null, Map.of()), PaymentState.PENDING, T0));
    Payment routed = p.withRouting(io.tollgate.domain.money.Money.of("5.43", CURRENCIES.require("USD")), p.amount(),
        42L, "Dollar acquirer");

    writer.route(null, new Payment.Transition(p, routed, null));
    assertThatThrownBy(() -> writer.route(null, new Payment.Transition(p, routed, null)))
        .isInstanceOf(DomainException.Conflict.class);

    assertThat(adapters.balances().balances(own)).extracting(b -> b.currency().code() + " "
            + b.available().toPlainString() + " " + b.reserved().toPlainString())
        .containsExactly("EUR 0.00 0.00", "USD -5.43 5.43");
    List<String> entries = db.jdbi().withHandle(h -> h.createQuery(
            "SELECT currency || ' ' || available::numeric(10, 2) || ' ' || reason FROM ledger_entries "
                + "WHERE payment_id = :id ORDER BY id")
        .bind("id", p.id().value()).mapTo(String.class).list());
    assertThat(entries).containsExactly("EUR -5.00 reserved for withdrawal",
        "EUR 5.00 released: withdrawal routed to Dollar acquirer in USD",
        "USD -5.43 reserved: withdrawal routed to Dollar acquirer in USD");
  }

  /** The writer over this repository, with an empty webhook document. */
  private PaymentWriter writer() {
    return new PaymentWriter(repository(), stored -> "{}".getBytes(StandardCharsets.UTF_8), PaymentMetrics.NONE);
  }

  /** A payment of the shop in PENDING, its last step at {@code at}. */
  private Payment pending(ShopId shop, PaymentType type, PaymentMethod method, String reference, Instant at) {
    Payment.Draft card = draft(shop, "2.00", reference);
    Payment p = repository().insert(Payment.create(new Payment.Draft(card.id(), shop, type, method, card.amount(),
        reference, null, null, false, method == PaymentMethod.BASIC_CARD ? card.card() : null, card.customer(), null,
        null, null, Map.of()), type == PaymentType.DEPOSIT ? PaymentState.CHECKOUT : PaymentState.PENDING, T0));
    return type == PaymentType.DEPOSIT
        ? repository().update(p.apply(OperationType.DEPOSIT, PaymentState.PENDING, Outcome.NONE, at))
        : repository().update(p.apply(OperationType.DETECT_FRAUD, PaymentState.PENDING, Outcome.NONE, at));
  }

  /** The given payments among those {@link PaymentRepository#lockDue} answers, in its order. */
  private List<PaymentId> due(DueWork work, Instant before, List<Payment> among) {
    Set<PaymentId> ids = among.stream().map(Payment::id).collect(java.util.stream.Collectors.toSet());
    return repository().lockDue(work, before, 1000).stream().map(PaymentRepository.Due::id).filter(ids::contains)
        .toList();
  }

  /**
   * Transfers the bank still awaits, and payments whose step failed, go behind the ones no job
   * has looked at since: they cannot hold up the later ones, however many they are. An awaited
   * transfer is asked after again once the delay has passed and a tenth of its age.
   */
  @Test
  void payments_a_job_left_as_they_were_go_behind_the_others_and_transfers_wait_for_their_next_check() {
    ShopId own = TestShops.create(adapters, "checked");
    Payment first = pending(own, PaymentType.DEPOSIT, PaymentMethod.BANKTRANSFER, "bt-1", T0.plusSeconds(1));
    Payment second = pending(own, PaymentType.DEPOSIT, PaymentMethod.BANKTRANSFER, "bt-2", T0.plusSeconds(2));
    Payment third = pending(own, PaymentType.DEPOSIT, PaymentMethod.BANKTRANSFER, "bt-3", T0.plusSeconds(3));
    List<Payment> transfers = List.of(first, second, third);
    Instant checkedAt = T0.plusSeconds(101);
    assertThat(due(DueWork.BANK_TRANSFERS, checkedAt, transfers)).containsExactly(first.id(), second.id(), third.id());

    repository().checked(first.id(), checkedAt);
    repository().checked(second.id(), checkedAt);

    // asked again 100 s after they were opened: not before a tenth of that, 10 s, has passed
    assertThat(due(DueWork.BANK_TRANSFERS, checkedAt.plusSeconds(9), transfers)).containsExactly(third.id());
    assertThat(due(DueWork.BANK_TRANSFERS, checkedAt.plusSeconds(11), transfers))
        .containsExactly(third.id(), first.id(), second.id());
    assertThat(repository().find(first.id()).orElseThrow()).as("nothing a merchant sees changes")
        .isEqualTo(first);

    Payment stuck = pending(own, PaymentType.WITHDRAWAL, PaymentMethod.BASIC_CARD, "po-1", T0.plusSeconds(1));
    Payment later = pending(own, PaymentType.WITHDRAWAL, PaymentMethod.BASIC_CARD, "po-2", T0.plusSeconds(2));
    long unanswered = repository().countUnanswered(checkedAt);
    repository().checked(stuck.id(), checkedAt);
    assertThat(repository().countUnanswered(checkedAt) - unanswered)
        .as("the operators' count: a payout looked at and left as it was, not one never looked at").isEqualTo(1);
    // a payout whose terminal has not decided, or whose step failed, 100 s after it was routed:
    // asked again once a tenth of that has passed, and behind the others
    assertThat(due(DueWork.PAYOUTS, checkedAt.plusSeconds(9), List.of(stuck, later))).containsExactly(later.id());
    assertThat(due(DueWork.PAYOUTS, checkedAt.plusSeconds(11), List.of(stuck, later)))
        .containsExactly(later.id(), stuck.id());
    // one looked at just after it moved: never more than once a second
    Payment fresh = pending(own, PaymentType.WITHDRAWAL, PaymentMethod.BASIC_CARD, "po-3", T0.plusSeconds(200));
    repository().checked(fresh.id(), T0.plusMillis(200_100));
    assertThat(due(DueWork.PAYOUTS, T0.plusMillis(200_900), List.of(fresh))).isEmpty();
    assertThat(due(DueWork.PAYOUTS, T0.plusMillis(201_200), List.of(fresh))).containsExactly(fresh.id());
  }

  /**
   * A job locks a due payment only as it found it: not once it has moved on, nor once another
   * instance has looked at it and left it as it was (its terminal has not decided), which
   * changes no version. That one is due again only when its next look is.
   */
  @Test
  void a_due_payment_looked_at_since_it_was_found_is_not_locked() {
    ShopId own = TestShops.create(adapters, "looked at since");
    Payment payout = pending(own, PaymentType.WITHDRAWAL, PaymentMethod.BASIC_CARD, "po-looked", T0.plusSeconds(1));
    PaymentRepository.Due found = dueOf(payout, T0.plusSeconds(2));
    assertThat(found.checked()).isNull();
    assertThat(lockIfUnchanged(found)).as("as found").isPresent();

    repository().checked(payout.id(), T0.plusSeconds(3));
    assertThat(lockIfUnchanged(found)).as("looked at since it was found").isEmpty();

    PaymentRepository.Due again = dueOf(payout, T0.plusSeconds(5));
    assertThat(again.checked()).isEqualTo(T0.plusSeconds(3));
    assertThat(lockIfUnchanged(again)).isPresent();
    assertThat(lockIfUnchanged(new PaymentRepository.Due(payout.id(), payout.version() + 1, again.checked())))
        .as("moved on since").isEmpty();
  }

  private PaymentRepository.Due dueOf(Payment p, Instant before) {
    return repository().lockDue(DueWork.PAYOUTS, before, 1000).stream().filter(d -> d.id().equals(p.id()))
        .findFirst().orElseThrow();
  }

  private Optional<Payment> lockIfUnchanged(PaymentRepository.Due due) {
    return adapters.transactionRunner().inTransaction(() -> repository().lockIfUnchanged(due));
  }

  /**
   * A payment's event written while an earlier one of it waits for its retry is due no earlier
   * than that retry: it cannot be sent before, and left due now it sat at the head of the due
   * index, looked at and passed over by every claim of every instance until then (hours, for a
   * receiver that is down during an authorize-then-capture).
   */
  @Test
  void an_event_written_behind_one_waiting_for_its_retry_is_due_with_that_retry() {
    ShopId own = TestShops.create(adapters, "behind a retry");
    Payment p = repository().insert(Payment.create(draft(own, "4.20", "wh-behind"), PaymentState.CHECKOUT, T0));
    java.util.function.Function<Payment, PaymentRepository.Effects> event = stored -> new PaymentRepository.Effects(
        new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), stored.id(), stored.shopId(), stored.state(),
            "https://merchant.example/hooks", "{}".getBytes(StandardCharsets.UTF_8), stored.updated()), null);
    Payment authorized = repository().update(p.apply(OperationType.DEPOSIT, PaymentState.AUTHORIZED, Outcome.NONE,
        T0.plusSeconds(1)), event);
    WebhookOutbox outbox = adapters.webhookOutbox();
    Instant now = Instant.now();
    WebhookOutbox.ClaimedEvent first = outbox.claim("instance-a", now, java.time.Duration.ofMinutes(2), 100).stream()
        .filter(e -> e.paymentId().equals(p.id())).findFirst().orElseThrow();
    Instant retryAt = now.plus(java.time.Duration.ofHours(3)).truncatedTo(ChronoUnit.MILLIS);
    assertThat(outbox.recordAttempt(first, new WebhookOutbox.Attempt(first.id(), PaymentState.AUTHORIZED, 1,
        first.url(), now, java.time.Duration.ofMillis(40), 503, null, WebhookOutbox.Status.PENDING),
        WebhookOutbox.Status.PENDING, retryAt)).isTrue();

    repository().update(authorized.apply(OperationType.CAPTURE, PaymentState.COMPLETED, Outcome.NONE,
        T0.plusSeconds(2)), event);
    List<Instant> due = db.jdbi().withHandle(h -> h.createQuery(
            "SELECT next_attempt_at FROM webhook_events WHERE payment_id = :payment ORDER BY seq")
        .bind("payment", p.id().value()).mapTo(Instant.class).list());
    assertThat(due).hasSize(2);
    assertThat(due.get(1)).as("the capture's event, due with the authorization's retry").isEqualTo(retryAt);

    Payment other = repository().insert(Payment.create(draft(own, "4.30", "wh-alone"), PaymentState.CHECKOUT, T0));
    repository().update(other.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(3)),
        event);
    Instant alone = db.jdbi().withHandle(h -> h.createQuery(
            "SELECT next_attempt_at FROM webhook_events WHERE payment_id = :payment")
        .bind("payment", other.id().value()).mapTo(Instant.class).one());
    assertThat(alone).as("an event with none before it: due at once").isEqualTo(T0.plusSeconds(3));
  }

  /**
   * A delivery attempt is logged exactly when it settled its event: with the lease still held
   * both change, and once the lease is lost (released, or taken by another instance) neither.
   * A payment's later event waits for the earlier one, and for its retry time when it failed.
   */
  @Test
  void a_webhook_attempt_is_logged_only_while_its_lease_is_held() {
    ShopId own = TestShops.create(adapters, "attempts");
    Payment p = repository().insert(Payment.create(draft(own, "3.10", "wh-1"), PaymentState.CHECKOUT, T0));
    Payment.Transition complete = p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(1));
    repository().update(complete, stored -> new PaymentRepository.Effects(
        new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), stored.id(), stored.shopId(), stored.state(),
            "https://merchant.example/hooks", "{}".getBytes(StandardCharsets.UTF_8), stored.updated()), null));
    String later = UUID.randomUUID().toString();
    db.jdbi().useHandle(h -> h.createUpdate("""
            INSERT INTO webhook_events (id, payment_id, shop_id, payment_state, target_url, body, next_attempt_at, created)
            SELECT CAST(:id AS uuid), payment_id, shop_id, payment_state, target_url, body, now(), now()
            FROM webhook_events WHERE payment_id = :payment
            """).bind("id", later).bind("payment", p.id().value()).execute());
    WebhookOutbox outbox = adapters.webhookOutbox();
    Instant now = Instant.now();
    java.time.Duration lease = java.time.Duration.ofMinutes(2);

    assertThat(outbox.claim("instance-a", now, lease, 100, List.of(p.shopId())))
        .as("a skipped shop's events are passed over, and stay unleased").noneMatch(e -> e.shopId().equals(p.shopId()));
    List<WebhookOutbox.ClaimedEvent> mine = outbox.claim("instance-a", now, lease, 100).stream()
        .filter(e -> e.paymentId().equals(p.id())).toList();
    assertThat(mine).singleElement().extracting(WebhookOutbox.ClaimedEvent::id).isNotEqualTo(later);
    WebhookOutbox.ClaimedEvent first = mine.get(0);

    Instant retryAt = now.plusSeconds(60);
    WebhookOutbox.Attempt failed = new WebhookOutbox.Attempt(first.id(), PaymentState.COMPLETED, 1, first.url(), now,
        java.time.Duration.ofMillis(40), 503, null, WebhookOutbox.Status.PENDING);
    assertThat(outbox.recordAttempt(first, failed, WebhookOutbox.Status.PENDING, retryAt)).isTrue();
    assertThat(outbox.attempts(p.id())).singleElement().satisfies(a -> {
      assertThat(a.statusCode()).isEqualTo(503);
      assertThat(a.eventStatus()).isEqualTo(WebhookOutbox.Status.PENDING);
    });
    Instant laterDue = db.jdbi().withHandle(h -> h.createQuery(
            "SELECT next_attempt_at FROM webhook_events WHERE id = CAST(:id AS uuid)")
        .bind("id", later).mapTo(Instant.class).one());
    assertThat(laterDue).isAfterOrEqualTo(retryAt.truncatedTo(ChronoUnit.MILLIS));
    assertThat(outbox.claim("instance-a", now, lease, 100)).noneMatch(e -> e.paymentId().equals(p.id()));

    // Due again, leased, then given back (as on shutdown): the late report of that lease is refused.
    WebhookOutbox.ClaimedEvent second = outbox.claim("instance-a", retryAt.plusSeconds(1), lease, 100).stream()
        .filter(e -> e.paymentId().equals(p.id())).findFirst().orElseThrow();
    assertThat(second.id()).isEqualTo(first.id());
    outbox.release("instance-a");
    WebhookOutbox.Attempt late = new WebhookOutbox.Attempt(second.id(), PaymentState.COMPLETED, 2, second.url(), now,
        java.time.Duration.ofMillis(30), 200, null, WebhookOutbox.Status.DELIVERED);
    assertThat(outbox.recordAttempt(second, late, WebhookOutbox.Status.DELIVERED, null)).isFalse();
    assertThat(outbox.attempts(p.id())).hasSize(1);
    int attempts = db.jdbi().withHandle(h -> h.createQuery(
            "SELECT attempts FROM webhook_events WHERE id = CAST(:id AS uuid)")
        .bind("id", first.id()).mapTo(Integer.class).one());
    assertThat(attempts).isEqualTo(1);
  }

  /**
   * An instance claims under a token per claim ({@code owner:n}). The report of an attempt
   * whose lease ran out, in the same batch as the report of the event's next lease, settles
   * nothing and logs nothing; releasing the owner gives back every claim of it.
   */
  @Test
  void a_report_of_a_lease_that_ran_out_settles_nothing_and_the_owner_releases_all_its_claims() {
    // leases run by the database's clock: this one runs out by being set back in the database
    ShopId own = TestShops.create(adapters, "relet");
    Payment p = repository().insert(Payment.create(draft(own, "2.50", "relet-1"), PaymentState.CHECKOUT, T0));
    repository().update(p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(1)),
        stored -> new PaymentRepository.Effects(new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), stored.id(),
            stored.shopId(), stored.state(), "https://merchant.example/hooks", "{}".getBytes(StandardCharsets.UTF_8),
            stored.updated()), null));
    WebhookOutbox outbox = adapters.webhookOutbox();
    Instant now = Instant.now();
    java.time.Duration lease = java.time.Duration.ofMinutes(1);
    WebhookOutbox.ClaimedEvent first = outbox.claim("instance-b:1", now, lease, 100).stream()
        .filter(e -> e.paymentId().equals(p.id())).findFirst().orElseThrow();
    Instant later = now.plus(lease).plusSeconds(1);
    assertThat(outbox.claim("instance-fast:1", later, lease, 100))
        .as("an instance whose clock runs a lease ahead takes over no lease that has not run out")
        .noneMatch(e -> e.id().equals(first.id()));
    outbox.release("instance-fast");
    db.jdbi().useHandle(h -> h.createUpdate(
            "UPDATE webhook_events SET lease_until = now() - interval '1 second' WHERE payment_id = :payment")
        .bind("payment", p.id().value()).execute());
    WebhookOutbox.ClaimedEvent second = outbox.claim("instance-b:2", later, lease, 100).stream()
        .filter(e -> e.paymentId().equals(p.id())).findFirst().orElseThrow();
    assertThat(second.id()).isEqualTo(first.id());

    WebhookOutbox.Attempt stale = new WebhookOutbox.Attempt(first.id(), PaymentState.COMPLETED, 1, first.url(), now,
        java.time.Duration.ofSeconds(70), 200, null, WebhookOutbox.Status.DELIVERED);
    WebhookOutbox.Attempt failing = new WebhookOutbox.Attempt(second.id(), PaymentState.COMPLETED, 1, second.url(), later,
        java.time.Duration.ofMillis(20), 503, null, WebhookOutbox.Status.PENDING);
    outbox.recordAttempts(List.of(
        new WebhookOutbox.Outcome(first, stale, WebhookOutbox.Status.DELIVERED, null),
        new WebhookOutbox.Outcome(second, failing, WebhookOutbox.Status.PENDING, later.plusSeconds(60))));
    assertThat(outbox.attempts(p.id())).singleElement().satisfies(a -> assertThat(a.statusCode()).isEqualTo(503));

    WebhookOutbox.ClaimedEvent third = outbox.claim("instance-b:3", later.plusSeconds(61), lease, 100).stream()
        .filter(e -> e.paymentId().equals(p.id())).findFirst().orElseThrow();
    outbox.release("instance-b");
    assertThat(outbox.claim("instance-c:1", later.plusSeconds(62), lease, 100))
        .anyMatch(e -> e.id().equals(third.id()));
  }

  /**
   * Deep merchant pages are read by their ids first: whichever way a page is read, the pages
   * around the switch join up in the same newest-first order, none skipped or repeated.
   */
  @Test
  void merchant_pages_deep_and_shallow_join_up_in_one_order() {
    ShopId own = TestShops.create(adapters, "deep-pages");
    MerchantId merchant = adapters.shops().find(own).orElseThrow().merchantId();
    List<String> newestFirst = new ArrayList<>();
    for (int i = 0; i < 1_060; i++) {
      newestFirst.add(0, repository().insert(Payment.create(draft(own, "1", "deep-" + i), PaymentState.CHECKOUT,
          T0.plusSeconds(i))).id().value());
    }
    List<String> read = new ArrayList<>();
    boolean more = true;
    for (int offset = 0; more; offset += 40) {
      Page<PaymentRepository.PaymentWithRefunds> page = repository().listForMerchant(merchant, null, null, offset, 40);
      page.items().forEach(p -> read.add(p.payment().id().value()));
      more = page.hasMore();
    }
    assertThat(read).containsExactlyElementsOf(newestFirst);

    Page<PaymentRepository.PaymentWithRefunds> last =
        repository().listForMerchant(merchant, null, T0.plusSeconds(1_050), 1_000, 50);
    assertThat(last.items()).extracting(p -> p.payment().id().value())
        .containsExactlyElementsOf(newestFirst.subList(1_010, 1_060));
    assertThat(last.hasMore()).isFalse();
  }

  /**
   * The merchant's list gives each deposit what its COMPLETED refunds paid back, on shallow and
   * deep pages alike: a refund still pending or declined does not count, a deposit never
   * refunded has 0, and a refund itself has none.
   */
  @Test
  void merchant_pages_give_each_deposit_the_sum_of_its_completed_refunds() {
    ShopId own = TestShops.create(adapters, "refunded");
    MerchantId merchant = adapters.shops().find(own).orElseThrow().merchantId();
    Payment deposit = repository().update(insert(own, "10", "refunded", T0)
        .apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0));
    Payment paid = refund(deposit, "3");
    repository().update(paid.apply(OperationType.REFUND, PaymentState.COMPLETED, Outcome.NONE, T0));
    Payment alsoPaid = refund(deposit, "2.5");
    repository().update(alsoPaid.apply(OperationType.REFUND, PaymentState.COMPLETED, Outcome.NONE, T0));
    Payment refused = refund(deposit, "1");
    repository().update(refused.apply(OperationType.REFUND, PaymentState.DECLINED, Outcome.NONE, T0));
    refund(deposit, "0.5");
    Payment untouched = insert(own, "4", "never-refunded", T0);

    Map<String, BigDecimal> top = refundedById(repository().listForMerchant(merchant, null, null, 0, 50));
    assertThat(top.get(deposit.id().value())).isEqualByComparingTo("5.50");
    assertThat(top.get(deposit.id().value()).scale()).isEqualTo(2);
    assertThat(top.get(untouched.id().value())).isEqualByComparingTo("0");
    assertThat(top).containsEntry(paid.id().value(), null).hasSize(6);

    for (int i = 0; i < 1_000; i++) {
      insert(own, "1", "newer-" + i, T0.plusSeconds(1 + i));
    }
    Map<String, BigDecimal> deep = refundedById(repository().listForMerchant(merchant, null, null, 1_000, 50));
    assertThat(deep).as("read by the page's ids first").isEqualTo(top);
  }

  /**
   * Shop groups keep a merchant's lists to their shops now (a scoped user's group, a
   * {@code shopGroupId.eq} filter, or both at once), on shallow and deep pages alike, and an edit
   * of a group counts on the next read.
   */
  @Test
  void merchant_lists_keep_to_the_shops_in_every_given_shop_group() {
    ShopId first = TestShops.create(adapters, "grouped");
    MerchantId merchant = adapters.shops().find(first).orElseThrow().merchantId();
    ShopId second = adapters.shops().createShop(new io.tollgate.domain.shop.Shop(new ShopId(Long.MAX_VALUE), merchant,
        "Second grouped", null, null, null, false, false, "EUR"), Instant.now());
    var reference = adapters.referenceData();
    long onlyFirst = reference.createShopGroup(merchant, "first", Instant.now());
    reference.addShopsToGroup(onlyFirst, List.of(first.value()), "test", Instant.now());
    long both = reference.createShopGroup(merchant, "both", Instant.now());
    reference.addShopsToGroup(both, List.of(first.value(), second.value()), "test", Instant.now());
    List<String> firsts = new ArrayList<>();
    for (int i = 0; i < 1_030; i++) {
      firsts.add(0, insert(first, "1", "grouped-" + i, T0.plusSeconds(2L * i)).id().value());
      insert(second, "1", "other-" + i, T0.plusSeconds(2L * i + 1));
    }

    assertThat(ids(repository().listForMerchant(merchant, null, null, java.util.Set.of(onlyFirst), 0, 50)))
        .containsExactlyElementsOf(firsts.subList(0, 50));
    assertThat(ids(repository().listForMerchant(merchant, null, null, java.util.Set.of(onlyFirst, both), 1_000, 50)))
        .as("a deep page, read by its ids first").containsExactlyElementsOf(firsts.subList(1_000, 1_030));
    assertThat(ids(repository().listForMerchant(merchant, null, null, java.util.Set.of(both), 0, 50)))
        .hasSize(50).containsAll(firsts.subList(0, 25));
    Page<PaymentRepository.OperationWithPayment> operations = repository().operationsForMerchant(merchant, null, null,
        java.util.Set.of(), java.util.Set.of(), java.util.Set.of(onlyFirst), 0, 100);
    assertThat(operations.items()).extracting(o -> o.payment().shopId()).containsOnly(first);

    reference.removeShopsFromGroup(onlyFirst, List.of(first.value()), "test", Instant.now());
    assertThat(repository().listForMerchant(merchant, null, null, java.util.Set.of(onlyFirst), 0, 50).items())
        .isEmpty();
  }

  /**
   * A shop's gateway list and a merchant's operations list, deep pages read by their ids first:
   * whichever way a page is read, with or without filters, the pages around the switch join up
   * in the same newest-first order, none skipped or repeated.
   */
  @Test
  void gateway_and_operation_pages_deep_and_shallow_join_up_in_one_order() {
    ShopId own = TestShops.create(adapters, "deep-lists");
    MerchantId merchant = adapters.shops().find(own).orElseThrow().merchantId();
    List<String> newestFirst = new ArrayList<>();
    List<String> cancelledNewestFirst = new ArrayList<>();
    for (int i = 0; i < 1_030; i++) {
      Payment p = insert(own, "1", "deep-list-" + i, T0.plusSeconds(2L * i));
      newestFirst.add(0, p.id().value());
      if (i % 3 == 0) {
        repository().update(p.apply(OperationType.CANCEL, PaymentState.CANCELLED, Outcome.NONE, T0.plusSeconds(2L * i + 1)));
        cancelledNewestFirst.add(0, p.id().value());
      }
    }
    PaymentRepository.PaymentFilter shop = new PaymentRepository.PaymentFilter(own, null, null, null, null, null);
    List<String> read = new ArrayList<>();
    for (int offset = 0; offset < 1_100; offset += 50) {
      repository().list(shop, offset, 50).items().forEach(p -> read.add(p.id().value()));
    }
    assertThat(read).containsExactlyElementsOf(newestFirst);
    PaymentRepository.PaymentFilter older = new PaymentRepository.PaymentFilter(own, null, T0.plusSeconds(2_040),
        null, null, null);
    Page<Payment> deep = repository().list(older, 1_000, 50);
    assertThat(deep.items()).extracting(p -> p.id().value()).as("a deep filtered page")
        .containsExactlyElementsOf(newestFirst.subList(1_010, 1_030));
    assertThat(deep.hasMore()).isFalse();

    Set<OperationType> created = Set.of(OperationType.CREATE_PAYMENT);
    Set<PaymentState> checkout = Set.of(PaymentState.CHECKOUT);
    List<String> createdOps = new ArrayList<>();
    for (int offset = 0; offset < 1_100; offset += 50) {
      repository().operationsForMerchant(merchant, null, null, created, checkout, Set.of(), offset, 50).items()
          .forEach(o -> createdOps.add(o.payment().id().value()));
    }
    assertThat(createdOps).as("each payment's creation, by kind and state").containsExactlyElementsOf(newestFirst);
    Page<PaymentRepository.OperationWithPayment> cancels = repository().operationsForMerchant(merchant, null, null,
        Set.of(OperationType.CANCEL, OperationType.VOID), Set.of(), Set.of(), 0, 500);
    assertThat(cancels.items()).extracting(o -> o.payment().id().value())
        .containsExactlyElementsOf(cancelledNewestFirst);
    assertThat(cancels.items()).extracting(o -> o.operation().operation()).containsOnly(OperationType.CANCEL);
    assertThat(repository().operationsForMerchant(merchant, null, null, Set.of(), Set.of(PaymentState.CANCELLED),
        Set.of(), 300, 500).items()).extracting(o -> o.payment().id().value())
        .containsExactlyElementsOf(cancelledNewestFirst.subList(300, cancelledNewestFirst.size()));
    List<String> all = new ArrayList<>();
    for (int offset = 0; offset < 1_400; offset += 100) {
      repository().operationsForMerchant(merchant, null, null, Set.of(), Set.of(), Set.of(), offset, 100).items()
          .forEach(o -> all.add(o.operation().operation() + " " + o.payment().id().value()));
    }
    assertThat(all).hasSize(1_030 + cancelledNewestFirst.size()).doesNotHaveDuplicates();
  }

  /**
   * The operations list filtered by a rare kind or state reads its index of those (V39) even in
   * the plan PostgreSQL keeps for the statement: with the kinds as a parameter, that plan read
   * every operation of the merchant in the time asked for.
   */
  @Test
  void a_filter_by_a_rare_kind_or_state_reads_its_index_in_the_kept_plan() {
    Map<String, String> expected = Map.of(
        JdbiPaymentRepository.operationsSql(Set.of(OperationType.VOID, OperationType.CHARGEBACK), Set.of(), 0, 0),
        "payment_operations_merchant_rare_operation",
        JdbiPaymentRepository.operationsSql(Set.of(), Set.of(PaymentState.AUTHORIZED), 0, 0),
        "payment_operations_merchant_rare_state");
    expected.forEach((sql, index) -> {
      // the statement as the driver prepares it once used often, planned for any values
      String prepared = sql.replace(":merchant", "$1").replace(":from", "$2").replace(":before", "$3")
          .replace(":limit", "$4").replace(":offset", "$5");
      String plan = db.jdbi().inTransaction(h -> {
        h.execute("SET LOCAL plan_cache_mode = force_generic_plan");
        h.execute("SET LOCAL enable_seqscan = off");
        h.execute("PREPARE listed (bigint, timestamptz, timestamptz, integer, integer) AS " + prepared);
        String text = String.join("\n", h.createQuery("EXPLAIN EXECUTE listed (1, now(), NULL, 51, 0)")
            .mapTo(String.class).list());
        h.execute("DEALLOCATE listed");
        return text;
      });
      assertThat(plan).as(plan).contains(index);
    });
  }

  private static List<String> ids(Page<PaymentRepository.PaymentWithRefunds> page) {
    return page.items().stream().map(p -> p.payment().id().value()).toList();
  }

  private static Map<String, BigDecimal> refundedById(Page<PaymentRepository.PaymentWithRefunds> page) {
    Map<String, BigDecimal> refunded = new HashMap<>();
    page.items().forEach(p -> refunded.put(p.payment().id().value(),
        p.refunded() == null ? null : p.refunded().amount()));
    return refunded;
  }

  /**
   * The anti-fraud screen asks its groups and its velocity counts in one statement: each count
   * comes back in the order asked, stops at its limit, counts only its shop, card, states and
   * window, not the payment it is asked for, and comes back even when none of the groups asked
   * about exists.
   */
  @Test
  void a_screen_lookup_answers_each_velocity_count_with_the_groups() {
    ShopId own = TestShops.create(adapters, "velocity-with-groups");
    MerchantId merchant = adapters.shops().find(own).orElseThrow().merchantId();
    String token = draft(own, "1", "x").card().cardToken();
    Payment checkout = null;
    for (int i = 0; i < 3; i++) {
      Payment p = repository().insert(Payment.create(draft(own, "1", "velocity-" + i), PaymentState.CHECKOUT, T0));
      if (i < 2) {
        repository().update(p.apply(OperationType.DEPOSIT, PaymentState.DECLINED, Outcome.NONE, T0.plusSeconds(60 * i)));
      } else {
        checkout = p;
      }
    }
    repository().insert(Payment.create(draft(otherShop, "1", "elsewhere"), PaymentState.CHECKOUT, T0));
    var emails = adapters.groups().create(merchant, io.tollgate.domain.group.GroupKind.EMAIL, "Mails", false, T0);
    adapters.groups().add(emails.id(), List.of(new GroupRepository.Entry("a@example.com", "a@example.com")), "test", T0);
    List<GroupRepository.CardCount> counts = List.of(
        new GroupRepository.CardCount(own, token, Set.of(PaymentState.DECLINED), null, T0.minusSeconds(1), 5, true),
        new GroupRepository.CardCount(own, token, Set.of(PaymentState.CHECKOUT), null, T0.minusSeconds(1), 5, true),
        new GroupRepository.CardCount(own, token, Set.of(PaymentState.DECLINED), null, T0.plusSeconds(30), 5, true),
        new GroupRepository.CardCount(own, token, Set.of(PaymentState.DECLINED), null, T0.minusSeconds(1), 1, true),
        new GroupRepository.CardCount(otherShop, token, Set.of(PaymentState.DECLINED), null, T0.minusSeconds(1), 5, true),
        new GroupRepository.CardCount(own, "another-token", Set.of(PaymentState.DECLINED), null, T0.minusSeconds(1), 5, true),
        new GroupRepository.CardCount(own, token, Set.of(PaymentState.DECLINED, PaymentState.CHECKOUT), null,
            T0.minusSeconds(1), 5, true),
        new GroupRepository.CardCount(own, token, Set.of(PaymentState.DECLINED, PaymentState.CHECKOUT), checkout.id(),
            T0.minusSeconds(1), 5, true));

    GroupRepository.Lookup found = adapters.groups().lookup(List.of(emails.id()),
        List.of(new GroupRepository.Member(emails.id(), "a@example.com")), counts);
    GroupRepository.Lookup noGroup = adapters.groups().lookup(List.of(emails.id() + 1_000), List.of(), counts);

    assertThat(found.held()).containsExactly(new GroupRepository.Member(emails.id(), "a@example.com"));
    assertThat(found.counts()).containsExactly(2, 1, 1, 1, 0, 0, 3, 2);
    assertThat(noGroup.groups()).isEmpty();
    assertThat(noGroup.counts()).containsExactly(2, 1, 1, 1, 0, 0, 3, 2);
  }

  /**
   * A card's deposit on its way (a 3-D Secure challenge shown, a pre-auth not yet captured) may
   * still complete or be declined however long ago it last changed: it counts whatever the
   * rule's window. A deposit decided, completed or declined, counts within the window only.
   */
  @Test
  void a_card_s_deposits_in_flight_count_however_long_ago_they_last_changed() {
    ShopId shop = TestShops.create(adapters, "velocity-in-flight");
    String token = draft(shop, "1", "x").card().cardToken();
    for (PaymentState state : List.of(PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED,
        PaymentState.DECLINED)) {
      Payment p = repository().insert(Payment.create(draft(shop, "1", "flight-" + state), PaymentState.CHECKOUT, T0));
      repository().update(p.apply(OperationType.DEPOSIT, state, Outcome.NONE, T0.plusSeconds(1)));
    }
    Set<PaymentState> completed = Set.of(PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED);
    Set<PaymentState> declined = Set.of(PaymentState.PENDING, PaymentState.DECLINED);

    assertThat(count(adapters, shop, token, completed, T0)).isEqualTo(3);
    assertThat(count(adapters, shop, token, declined, T0)).isEqualTo(2);
    assertThat(count(adapters, shop, token, completed, T0.plus(1, ChronoUnit.HOURS))).isEqualTo(2);
    assertThat(count(adapters, shop, token, declined, T0.plus(1, ChronoUnit.HOURS))).isEqualTo(1);
  }

  /**
   * Tollgate never expires a pre-auth, and a card scheme lets its hold lapse within 30 days: a
   * pre-auth neither captured nor voided counts for 30 days before the rule's window, not for
   * good, or it would block its card at the shop forever.
   */
  @Test
  void a_card_s_pre_auth_left_authorized_stops_counting_30_days_before_the_window() {
    ShopId shop = TestShops.create(adapters, "velocity-old-pre-auth");
    String token = draft(shop, "1", "x").card().cardToken();
    Instant since = T0.minus(10, ChronoUnit.MINUTES);
    for (int days : List.of(10, 31)) {
      Instant authorized = since.minus(days, ChronoUnit.DAYS);
      Payment p = repository().insert(Payment.create(draft(shop, "5.00", "held-" + days), PaymentState.CHECKOUT,
          authorized.minusSeconds(1)));
      repository().update(p.apply(OperationType.DEPOSIT, PaymentState.AUTHORIZED, Outcome.NONE, authorized));
    }
    Set<PaymentState> completed = Set.of(PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED);

    assertThat(count(adapters, shop, token, completed, since)).as("the pre-auth of 10 days ago alone").isEqualTo(1);
    assertThat(count(adapters, shop, token, completed, since.minus(21, ChronoUnit.DAYS))).isEqualTo(2);
  }

  /**
   * A card used hundreds of times without a decline must not make every "declined deposits per
   * card" check read all those deposits, even with a plan made while the shop's history was
   * small. The check runs first over 20 deposits of the card, analysed (with autovacuum off, so
   * that nothing replans it later; a plan made now would scan the small table), then over 620;
   * PostgreSQL's own counters tell how many rows and index entries the checks read.
   */
  @Test
  void a_card_velocity_count_reads_only_the_deposits_it_counts() {
    try (Database own = TestDatabase.fresh()) {
      PersistenceAdapters fresh = new PersistenceAdapters(own, new SecretBox(SecretBox.randomKey()), CURRENCIES);
      ShopId busy = TestShops.create(fresh, "busy-card");
      String token = draft(busy, "1", "x").card().cardToken();
      Instant since = T0.minus(1, ChronoUnit.HOURS);
      own.jdbi().useHandle(h -> h.execute("ALTER TABLE payments SET (autovacuum_enabled = false)"));
      for (int i = 0; i < 20; i++) {
        fresh.payments().insert(Payment.create(draft(busy, "1", "early-" + i), PaymentState.CHECKOUT, T0));
      }
      own.jdbi().useHandle(h -> h.execute("ANALYZE payments"));
      Set<PaymentState> declinedOrInFlight = Set.of(PaymentState.PENDING, PaymentState.DECLINED);
      for (int i = 0; i < 12; i++) {
        assertThat(count(fresh, busy, token, PaymentState.DECLINED, since)).isZero();
        assertThat(count(fresh, busy, token, declinedOrInFlight, since)).isZero();
      }
      for (int i = 0; i < 600; i++) {
        fresh.payments().insert(Payment.create(draft(busy, "1", "busy-" + i), PaymentState.CHECKOUT, T0));
      }

      long before = indexEntriesRead(own);
      for (int i = 0; i < 10; i++) {
        assertThat(count(fresh, busy, token, PaymentState.DECLINED, since)).isZero();
      }
      assertThat(count(fresh, busy, token, PaymentState.CHECKOUT, since)).isEqualTo(5);
      assertThat(count(fresh, busy, token, Set.of(PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED),
          since)).as("completed or in progress").isZero();
      assertThat(count(fresh, busy, token, declinedOrInFlight, since)).as("declined or in progress").isZero();
      long read = indexEntriesRead(own) - before;

      assertThat(read).as("payment rows and index entries read by 13 velocity counts").isLessThan(100);
    }
  }

  /**
   * "Declined deposits per card" counts the declines of the card's issuer or acquirer, not the
   * anti-fraud screen's own (6.xx): a card taken off a blacklist must not stay blocked by the
   * blocks it got while on it, nor by the velocity rule's own. The count reads none of those
   * declines, however many there are: they are not in the index it reads. Nor does it count the
   * gateway's own (1.xx, no connector could take the deposit), which no terminal saw the card
   * for, and reads none of those either.
   */
  @Test
  void a_declined_deposits_count_leaves_out_the_screen_s_own_declines_without_reading_them() {
    try (Database own = TestDatabase.fresh()) {
      PersistenceAdapters fresh = new PersistenceAdapters(own, new SecretBox(SecretBox.randomKey()), CURRENCIES);
      ShopId shop = TestShops.create(fresh, "blocked-card");
      String token = draft(shop, "1", "x").card().cardToken();
      own.jdbi().useHandle(h -> h.execute("ALTER TABLE payments SET (autovacuum_enabled = false)"));
      for (int i = 0; i < 2; i++) {
        declined(fresh, shop, "issuer-" + i, OperationType.DEPOSIT, ErrorCode.E4_00_DECLINED_BY_ISSUER);
      }
      for (int i = 0; i < 300; i++) {
        declined(fresh, shop, "screened-" + i, OperationType.DETECT_FRAUD,
            i % 2 == 0 ? ErrorCode.E6_01_CARD_PAN_BLACKLISTED : ErrorCode.E6_23_LIMIT_EXCEEDED_NUMBER_OF_DECLINED_DEPOSITS_FOR_CARD);
      }
      // the gateway's own declines (no connector could take the deposit): no terminal saw the card
      for (ErrorCode gateway : List.of(ErrorCode.E1_05_TERMINAL_NOT_FOUND, ErrorCode.E1_08_INVALID_AMOUNT,
          ErrorCode.E1_09_INVALID_CURRENCY)) {
        declined(fresh, shop, "unrouted-" + gateway.code(), OperationType.DEPOSIT, gateway);
      }
      own.jdbi().useHandle(h -> h.execute("ANALYZE payments"));
      Instant since = T0.minus(1, ChronoUnit.HOURS);

      long before = indexEntriesRead(own);
      for (int i = 0; i < 10; i++) {
        assertThat(count(fresh, shop, token, PaymentState.DECLINED, since)).isEqualTo(2);
      }
      long read = indexEntriesRead(own) - before;

      assertThat(read).as("payment rows and index entries read by 10 velocity counts").isLessThan(50);
      String plan = own.jdbi().inTransaction(h -> {
        h.execute("SET LOCAL enable_seqscan = off");
        h.execute("SET LOCAL enable_bitmapscan = off");
        h.execute("SET LOCAL plan_cache_mode = force_generic_plan");
        h.execute("""
            PREPARE counted (bigint, text, text[], char(32), timestamptz, integer, boolean, text[]) AS
            SELECT count(*) FROM (SELECT 1 FROM payments
                WHERE shop_id = $1 AND payment_type = 'DEPOSIT' AND card IS NOT NULL
                  AND coalesce(error_code, '') NOT LIKE '6.%'
                  AND coalesce(error_code, '') NOT LIKE '1.%'
                  AND card->>'cardToken' = $2 AND state = ANY ($3) AND updated >= $5
                  AND ($4 IS NULL OR id <> $4) AND ($7 OR amount > 0)
                UNION ALL
                SELECT 1 FROM payments
                WHERE shop_id = $1 AND payment_type = 'DEPOSIT' AND card IS NOT NULL
                  AND coalesce(error_code, '') NOT LIKE '6.%'
                  AND coalesce(error_code, '') NOT LIKE '1.%'
                  AND card->>'cardToken' = $2 AND state = ANY ($8)
                  AND updated >= $5 - interval '30 days'
                  AND ($4 IS NULL OR id <> $4) AND ($7 OR amount > 0)
                LIMIT $6) c""");
        String text = String.join("\n", h.createQuery("EXPLAIN EXECUTE counted (1, 'token', '{DECLINED}', '"
                + "ab".repeat(16) + "', now(), 5, true, '{PENDING}')")
            .mapTo(String.class).list());
        h.execute("DEALLOCATE counted");
        return text;
      });
      assertThat(plan).as("the function's statement, planned as the function plans it")
          .contains("Index").contains("payments_card_state").contains("state = ANY");
      assertThat(plan.lines().filter(line -> line.contains("payments_card_state")))
          .as("decided deposits within the window, and deposits in flight up to 30 days before it, each read from"
              + " the index")
          .hasSize(2);
      assertThat(plan.lines().filter(line -> line.contains("Filter")))
          .as("the index reads only what it counts: a row is set aside for the payment screened alone")
          .allSatisfy(line -> assertThat(line).contains("id <>").doesNotContain("state").doesNotContain("updated"));
      String function = own.jdbi().withHandle(h -> h.createQuery(
          "SELECT prosrc FROM pg_proc WHERE proname = 'card_deposits'").mapTo(String.class).one());
      assertThat(function.replaceAll("\\s+", " ")).as("the statement above is the function's")
          .contains("AND coalesce(error_code, '') NOT LIKE '6.%' AND coalesce(error_code, '') NOT LIKE '1.%'"
              + " AND card->>'cardToken' = p_token"
              + " AND state = ANY (decided_states) AND updated >= p_since AND (p_except IS NULL OR id <> p_except)"
              + " AND (p_verifications OR amount > 0) UNION ALL")
          .contains("AND coalesce(error_code, '') NOT LIKE '6.%' AND coalesce(error_code, '') NOT LIKE '1.%'"
              + " AND card->>'cardToken' = p_token"
              + " AND state = ANY (in_flight_states) AND updated >= p_since - interval '30 days'"
              + " AND (p_except IS NULL OR id <> p_except)"
              + " AND (p_verifications OR amount > 0) LIMIT p_at_most");
    }
  }

  private void declined(PersistenceAdapters adapters, ShopId shop, String reference, OperationType step,
      ErrorCode code) {
    Payment p = adapters.payments().insert(Payment.create(draft(shop, "1", reference), PaymentState.CHECKOUT, T0));
    adapters.payments().update(p.apply(step, PaymentState.DECLINED, Outcome.error(code), T0.plusSeconds(1)));
  }

  /** A velocity count of at most 5, asked as the anti-fraud screen asks it. */
  private static int count(PersistenceAdapters adapters, ShopId shop, String token, PaymentState state, Instant since) {
    return count(adapters, shop, token, Set.of(state), since);
  }

  private static int count(PersistenceAdapters adapters, ShopId shop, String token, Set<PaymentState> states,
      Instant since) {
    return adapters.groups().lookup(List.of(), List.of(),
        List.of(new GroupRepository.CardCount(shop, token, states, null, since, 5, true))).counts().get(0);
  }

  /** Index entries read from the payments table so far, every backend's counts flushed. */
  private static long indexEntriesRead(Database db) {
    for (int attempt = 0; ; attempt++) {
      long[] seen = new long[1];
      db.jdbi().useHandle(h -> {
        h.execute("SELECT pg_stat_clear_snapshot()");
        seen[0] = h.createQuery("""
                SELECT coalesce(sum(idx_tup_read), 0) + (SELECT coalesce(seq_tup_read, 0)
                    FROM pg_stat_user_tables WHERE relname = 'payments')
                FROM pg_stat_user_indexes WHERE relname = 'payments'
                """).mapTo(Long.class).one();
      });
      // other backends flush their counters at most once a second: wait until the figure settles
      try {
        Thread.sleep(1100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      long[] again = new long[1];
      db.jdbi().useHandle(h -> {
        h.execute("SELECT pg_stat_clear_snapshot()");
        again[0] = h.createQuery("""
                SELECT coalesce(sum(idx_tup_read), 0) + (SELECT coalesce(seq_tup_read, 0)
                    FROM pg_stat_user_tables WHERE relname = 'payments')
                FROM pg_stat_user_indexes WHERE relname = 'payments'
                """).mapTo(Long.class).one();
      });
      if (again[0] == seen[0] || attempt == 10) {
        return again[0];
      }
    }
  }

  /**
   * A new payment's customer is recorded in the same write: added once per shop and
   * reference id, its fields refreshed by a later payment that gives them and kept when a
   * later payment leaves them out. A step of an existing payment cannot record one.
   */
  @Test
  void a_new_payment_records_its_customer_in_the_same_write() {
    ShopId own = TestShops.create(adapters, "customers");
    Function<Payment, PaymentRepository.Effects> withCustomer =
        stored -> new PaymentRepository.Effects(null, null, stored.customer(), null);
    Payment.Draft first = draft(own, "1.00", "cust-a");
    Payment p = repository().insert(Payment.create(first, PaymentState.CHECKOUT, T0), withCustomer);
    Payment.Draft base = draft(own, "2.00", "cust-b");
    Payment.Draft second = new Payment.Draft(base.id(), own, base.type(), base.method(), base.amount(),
        base.referenceId(), base.description(), null, false, base.card(),
        new io.tollgate.domain.payment.Customer("cust-1", null, null, "Lee-Smith", null, null, null, null, null),
        base.billingAddress(), base.returnUrl(), base.webhookUrl(), base.additionalParameters());
    repository().insert(Payment.create(second, PaymentState.CHECKOUT, T0.plusSeconds(5)), withCustomer);

    List<java.util.Map<String, Object>> rows = db.jdbi().withHandle(h -> h.createQuery("""
            SELECT c.reference_id, c.first_name, c.last_name, c.email, c.created, c.updated,
                   c.merchant_id = s.merchant_id AS own_merchant
            FROM customers c JOIN shops s ON s.id = c.shop_id WHERE c.shop_id = :shop""")
        .bind("shop", own.value()).mapToMap().list());
    assertThat(rows).singleElement().satisfies(c -> {
      assertThat(c).containsEntry("reference_id", "cust-1").containsEntry("first_name", "Ann")
          .containsEntry("last_name", "Lee-Smith").containsEntry("email", "ann@example.com")
          .containsEntry("own_merchant", true);
      assertThat(((java.sql.Timestamp) c.get("created")).toInstant()).isEqualTo(T0);
      assertThat(((java.sql.Timestamp) c.get("updated")).toInstant()).isEqualTo(T0.plusSeconds(5));
    });

    Payment.Transition step = p.apply(OperationType.CANCEL, PaymentState.CANCELLED, Outcome.NONE, T0.plusSeconds(9));
    assertThatThrownBy(() -> repository().update(step, withCustomer)).isInstanceOf(IllegalArgumentException.class);
    assertThat(repository().find(p.id()).orElseThrow().state()).isEqualTo(PaymentState.CHECKOUT);
  }

  private Payment.Draft paidWith(ShopId own, String reference, CardVault.Sealed card) {
    Payment.Draft d = draft(own, "3.00", reference);
    CardDetails c = d.card();
    return new Payment.Draft(d.id(), own, d.type(), d.method(), d.amount(), reference, d.description(), null, false,
        new CardDetails(c.maskedNumber(), card.token(), c.cardholderName(), c.expiryMonth(), c.expiryYear(),
            c.brand(), c.issuingCountry()),
        d.customer(), d.billingAddress(), d.returnUrl(), d.webhookUrl(), d.additionalParameters());
  }

  private Payment insertPaidWith(ShopId own, String reference, String pan) {
    CardVault.Sealed card = adapters.cardVault().seal(own, pan);
    return repository().insert(Payment.create(paidWith(own, reference, card), PaymentState.CHECKOUT, T0),
        stored -> new PaymentRepository.Effects(null, null, null, card));
  }

  /**
   * A payment whose card, given by number, the vault is forgetting as the payment's write finds
   * it: the write stores the card again under the token the payment got, so that the payment is
   * never left with a token whose card is gone.
   */
  @Test
  void a_payment_whose_card_is_forgotten_as_it_is_written_keeps_its_card() throws Exception {
    ShopId own = TestShops.create(adapters, "forgotten-as-written");
    String pan = "4000000000003063";
    String token = adapters.cardVault().tokenize(own, pan);
    db.jdbi().useHandle(h -> h.createUpdate("UPDATE card_vault SET last_used = now() - interval '900 hours'"
        + " WHERE token = :token").bind("token", token).execute());
    try (org.jdbi.v3.core.Handle job = db.jdbi().open()) {
      job.begin();
      job.createQuery("SELECT 1 FROM card_vault WHERE token = :token FOR UPDATE").bind("token", token)
          .mapTo(Integer.class).one();
      java.util.concurrent.CompletableFuture<Payment> written = java.util.concurrent.CompletableFuture.supplyAsync(
          () -> insertPaidWith(own, "forgotten-as-written", pan));
      CardRetentionTest.awaitWaitingOnALock(db);
      job.createUpdate("DELETE FROM card_vault WHERE token = :token").bind("token", token).execute();
      job.commit();

      Payment p = written.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(storedToken(p)).isEqualTo(token);
    }
    assertThat(adapters.cardVault().reveal(own, token)).contains(pan);
  }

  private String storedToken(Payment p) {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT card->>'cardToken' FROM payments WHERE id = :id")
        .bind("id", p.id().value()).mapTo(String.class).one());
  }

  /**
   * A card number given with a new payment is stored in the vault by the payment's own
   * write: once per shop, under one token that the payment carries and that reveals the
   * number; another shop's payment with the same card gets a token of its own.
   */
  @Test
  void a_new_payment_stores_its_card_in_the_vault_in_the_same_write() {
    ShopId own = TestShops.create(adapters, "vaulted");
    ShopId second = TestShops.create(adapters, "vaulted-too");

    Payment first = insertPaidWith(own, "v-1", "4000000000000002");
    Payment again = insertPaidWith(own, "v-2", "4000000000000002");
    Payment elsewhere = insertPaidWith(second, "v-3", "4000000000000002");

    String token = first.card().cardToken();
    assertThat(again.card().cardToken()).isEqualTo(token);
    assertThat(storedToken(first)).isEqualTo(token);
    assertThat(storedToken(again)).isEqualTo(token);
    assertThat(adapters.cardVault().reveal(own, token)).contains("4000000000000002");
    assertThat(elsewhere.card().cardToken()).isNotEqualTo(token);
    assertThat(adapters.cardVault().reveal(second, elsewhere.card().cardToken())).contains("4000000000000002");
    assertThat(adapters.cardVault().tokenize(own, "4000000000000002")).isEqualTo(token);
    long rows = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM card_vault WHERE shop_id = :shop")
        .bind("shop", own.value()).mapTo(Long.class).one());
    assertThat(rows).isEqualTo(1);
  }

  /**
   * A step that will charge the card locks its payment and reads the card's ciphertext in
   * one round trip: the payment is the one stored, the ciphertext opens to its card number,
   * only the payment's own shop's vault answers, and the payment's row stays locked until the
   * transaction ends.
   */
  @Test
  void a_locking_read_brings_the_ciphertext_of_its_shops_card() throws Exception {
    ShopId own = TestShops.create(adapters, "locked-card");
    ShopId other = TestShops.create(adapters, "locked-card-other");
    Payment paid = insertPaidWith(own, "lk-1", "4000000000000002");
    // a token of the first shop's card on a payment of a shop whose vault does not hold it
    CardVault.Sealed foreignCard = adapters.cardVault().seal(own, "4000000000000002");
    Payment foreign = repository().insert(
        Payment.create(paidWith(other, "lk-2", foreignCard), PaymentState.CHECKOUT, T0));

    adapters.transactionRunner().inTransaction(() -> {
      PaymentRepository.Locked locked = repository().findForUpdateWithCard(paid.id()).orElseThrow();
      assertThat(locked.payment()).isEqualTo(paid);
      assertThat(adapters.cardVault().open(locked.cardCiphertext())).isEqualTo("4000000000000002");
      // another transaction (on another thread: Jdbi shares a thread's handle) cannot take the row meanwhile
      java.util.concurrent.CompletableFuture<String> rival = java.util.concurrent.CompletableFuture.supplyAsync(
          () -> db.jdbi().inTransaction(h -> h.createQuery("SELECT id FROM payments WHERE id = :id FOR UPDATE NOWAIT")
              .bind("id", paid.id().value()).mapTo(String.class).one()));
      assertThatThrownBy(rival::join).hasMessageContaining("could not obtain lock");
      return null;
    });
    PaymentRepository.Locked withoutCard = adapters.transactionRunner().inTransaction(
        () -> repository().findForUpdateWithCard(foreign.id()).orElseThrow());
    assertThat(withoutCard.payment()).isEqualTo(foreign);
    assertThat(withoutCard.cardCiphertext()).isNull();
    assertThat(adapters.transactionRunner().inTransaction(
        () -> repository().findForUpdateWithCard(PaymentId.random()))).isEmpty();
  }

  /**
   * Asked to, the locking read also locks the payment's card in its shop, after the row and in
   * the same round trip, until the transaction ends: another transaction that wants that card
   * waits, one that wants another card, or the same token in another shop, does not. Not asked
   * to, it locks no card; a payment without a card is read all the same.
   */
  @Test
  void a_locking_read_can_lock_the_payments_card_until_the_transaction_ends() {
    ShopId own = TestShops.create(adapters, "card-lock");
    Payment paid = insertPaidWith(own, "cl-1", "4000000000000002");
    String token = paid.card().cardToken();
    Payment cardless = repository().insert(Payment.create(withoutCard(own, "cl-2"), PaymentState.CHECKOUT, T0));

    adapters.transactionRunner().inTransaction(() -> {
      PaymentRepository.Locked locked = repository().findForUpdateWithCard(paid.id(), true).orElseThrow();
      assertThat(locked.payment()).isEqualTo(paid);
      assertThat(adapters.cardVault().open(locked.cardCiphertext())).isEqualTo("4000000000000002");
      assertThat(cardLockFree(own, token)).isFalse();
      assertThat(cardLockFree(own, "another-token")).isTrue();
      assertThat(cardLockFree(otherShop, token)).isTrue();
      return null;
    });
    assertThat(cardLockFree(own, token)).as("released with the transaction").isTrue();

    adapters.transactionRunner().inTransaction(() -> {
      repository().findForUpdateWithCard(paid.id(), false).orElseThrow();
      assertThat(cardLockFree(own, token)).isTrue();
      repository().lockCard(own, token);
      assertThat(cardLockFree(own, token)).isFalse();
      return null;
    });
    PaymentRepository.Locked noCard = adapters.transactionRunner().inTransaction(
        () -> repository().findForUpdateWithCard(cardless.id(), true).orElseThrow());
    assertThat(noCard.payment()).isEqualTo(cardless);
    assertThat(adapters.transactionRunner().inTransaction(
        () -> repository().findForUpdateWithCard(PaymentId.random(), true))).isEmpty();
  }

  /** Whether another transaction (on another thread: Jdbi shares a thread's handle) can lock the card now. */
  private boolean cardLockFree(ShopId shop, String token) {
    return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return adapters.transactionRunner().inTransaction(() -> {
          db.jdbi().useHandle(h -> h.execute("SET LOCAL lock_timeout = '200ms'"));
          repository().lockCard(shop, token);
          return true;
        });
      } catch (RuntimeException e) {
        assertThat(e).hasMessageContaining("lock timeout");
        return false;
      }
    }).join();
  }

  private Payment.Draft withoutCard(ShopId shop, String reference) {
    Payment.Draft d = draft(shop, "3.00", reference);
    return new Payment.Draft(d.id(), shop, d.type(), d.method(), d.amount(), reference, d.description(), null, false,
        null, d.customer(), d.billingAddress(), d.returnUrl(), d.webhookUrl(), d.additionalParameters());
  }

  /**
   * The expiry job locks the deposits still waiting for their customer past their own shop's
   * timeout, oldest first: a checkout, and a card deposit left PENDING (on 3-D Secure); not a
   * younger one, not a completed one, not one of a shop with a longer timeout.
   */
  @Test
  void the_expiry_job_takes_only_deposits_past_their_shops_checkout_timeout() {
    ShopId quick = TestShops.create(adapters, "quick-checkout");
    ShopId patient = TestShops.create(adapters, "patient-checkout");
    db.jdbi().useHandle(h -> h.execute("UPDATE shops SET checkout_timeout_seconds = 60 WHERE id = ?", quick.value()));
    Payment oldest = insert(quick, "1", "exp-1", T0);
    Payment onThreeDs = insert(quick, "1", "exp-2", T0.plusSeconds(10));
    repository().update(onThreeDs.apply(OperationType.DEPOSIT, PaymentState.PENDING, Outcome.NONE, T0.plusSeconds(15)));
    Payment young = insert(quick, "1", "exp-3", T0.plusSeconds(90));
    Payment completed = insert(quick, "1", "exp-4", T0);
    repository().update(completed.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(5)));
    Payment withinLongerTimeout = insert(patient, "1", "exp-5", T0);

    List<PaymentId> due = adapters.transactionRunner().inTransaction(
        () -> repository().lockDue(PaymentRepository.DueWork.EXPIRED_CHECKOUTS, T0.plusSeconds(120), 10))
        .stream().map(PaymentRepository.Due::id).toList();

    assertThat(due).containsExactly(oldest.id(), onThreeDs.id())
        .doesNotContain(young.id(), completed.id(), withinLongerTimeout.id());
  }

  /**
   * A card deposit sent to its terminal whose answer was never stored is due for the job that
   * takes such deposits up again once the answer is overdue, whatever step came last before it
   * was sent (a host-to-host execution or a card entered on the page, a screen, a cascade, a
   * passed 3-D Secure challenge); and
   * the expiry job never cancels it as a checkout left alone, since its terminal may have
   * charged the card. A deposit waiting on its 3-D Secure challenge (the terminal's answer), a
   * younger one and a bank transfer are not due.
   */
  @Test
  void a_card_deposit_sent_without_an_answer_is_due_again_and_never_expires() {
    ShopId own = TestShops.create(adapters, "unanswered");
    db.jdbi().useHandle(h -> h.execute("UPDATE shops SET checkout_timeout_seconds = 60 WHERE id = ?", own.value()));
    long othersAt60 = repository().countUnanswered(T0.plusSeconds(60));
    long othersAt110 = repository().countUnanswered(T0.plusSeconds(110));
    Payment executed = sent(insert(own, "1", "ua-1", T0), T0.plusSeconds(1));
    Payment screened = sent(insert(own, "1", "ua-2", T0), T0.plusSeconds(2));
    screened = repository().update(screened.apply(OperationType.DETECT_FRAUD, PaymentState.PENDING, Outcome.NONE,
        T0.plusSeconds(3)));
    Payment cascaded = sent(insert(own, "1", "ua-3", T0), T0.plusSeconds(4));
    cascaded = repository().update(cascaded.apply(OperationType.DEPOSIT, PaymentState.PENDING,
        Outcome.NONE.withDetails("terminal A declined"), T0.plusSeconds(5)));
    cascaded = repository().update(cascaded.apply(OperationType.CASCADING, PaymentState.PENDING, Outcome.NONE,
        T0.plusSeconds(5)));
    Payment onThreeDs = insert(own, "1", "ua-4", T0);
    onThreeDs = repository().update(onThreeDs.apply(OperationType.DEPOSIT, PaymentState.PENDING,
        Outcome.NONE.withDetails("3-D Secure challenge required"), T0.plusSeconds(6)));
    Payment confirmed = insert(own, "1", "ua-7", T0);
    confirmed = repository().update(confirmed.apply(OperationType.DEPOSIT, PaymentState.PENDING,
        Outcome.NONE.withDetails("3-D Secure challenge required"), T0.plusSeconds(6)));
    confirmed = repository().update(confirmed.apply(OperationType.CONFIRMATION, PaymentState.PENDING,
        Outcome.NONE.withDetails("3-D Secure challenge passed"), T0.plusSeconds(7)));
    Payment young = sent(insert(own, "1", "ua-5", T0), T0.plusSeconds(100));
    Payment transfer = pending(own, PaymentType.DEPOSIT, PaymentMethod.BANKTRANSFER, "ua-6", T0.plusSeconds(1));
    List<Payment> all = List.of(executed, screened, cascaded, onThreeDs, confirmed, young, transfer);

    assertThat(due(DueWork.UNANSWERED_DEPOSITS, T0.plusSeconds(60), all))
        .containsExactly(executed.id(), screened.id(), cascaded.id(), confirmed.id());
    assertThat(repository().countUnanswered(T0.plusSeconds(60)) - othersAt60).as("the operators' count").isEqualTo(4);
    assertThat(due(DueWork.EXPIRED_CHECKOUTS, T0.plusSeconds(600), all))
        .as("only the one waiting on its customer").containsExactly(onThreeDs.id());
    // its cancel failed: the oldest checkouts come first, so it waits a minute before the next try
    repository().checked(onThreeDs.id(), T0.plusSeconds(600));
    assertThat(due(DueWork.EXPIRED_CHECKOUTS, T0.plusSeconds(630), all)).isEmpty();
    assertThat(due(DueWork.EXPIRED_CHECKOUTS, T0.plusSeconds(661), all)).containsExactly(onThreeDs.id());

    // its step failed 100 s after it was sent: taken up again once a tenth of that has passed
    repository().checked(executed.id(), T0.plusSeconds(101));
    assertThat(due(DueWork.UNANSWERED_DEPOSITS, T0.plusSeconds(110), all))
        .containsExactly(screened.id(), cascaded.id(), confirmed.id(), young.id());
    assertThat(repository().countUnanswered(T0.plusSeconds(110)) - othersAt110)
        .as("one whose step failed is counted while the job backs off").isEqualTo(5);
    assertThat(due(DueWork.UNANSWERED_DEPOSITS, T0.plusSeconds(112), all))
        .containsExactly(screened.id(), cascaded.id(), confirmed.id(), young.id(), executed.id());
  }

  /**
   * The jobs for awaited bank transfers and for deposits whose terminal has not answered read
   * only PENDING deposits of their own method, through the index, whatever the other method has
   * waiting.
   */
  @Test
  void the_deposit_jobs_read_only_deposits_of_their_own_method() {
    for (DueWork work : List.of(DueWork.BANK_TRANSFERS, DueWork.UNANSWERED_DEPOSITS)) {
      List<String> plan = db.jdbi().inTransaction(h -> {
        h.execute("SET LOCAL enable_seqscan = off");
        return h.createQuery("EXPLAIN " + JdbiPaymentRepository.dueSql(work))
            .bind("before", T0).bind("limit", 100).mapTo(String.class).list();
      });
      assertThat(plan).as(work.name()).anySatisfy(line -> assertThat(line).contains("payments_due_by_method"));
      assertThat(plan).as(work.name()).anySatisfy(line -> assertThat(line).contains("payment_method ="));
    }
    List<String> count = db.jdbi().inTransaction(h -> {
      h.execute("SET LOCAL enable_seqscan = off");
      return h.createQuery("EXPLAIN " + JdbiPaymentRepository.UNANSWERED_COUNT).bind("before", T0)
          .mapTo(String.class).list();
    });
    assertThat(count).as("the operators' count").anySatisfy(line -> assertThat(line).contains("payments_due_by_method"));
  }

  /** The deposit as a request leaves it once it is sent to its terminal: PENDING by its CHECKOUT step. */
  private Payment sent(Payment checkout, Instant at) {
    Payment.Transition step = checkout.apply(OperationType.CHECKOUT, PaymentState.PENDING,
        Outcome.NONE.withDetails("host-to-host"), at);
    return repository().update(new Payment.Transition(checkout,
        step.after().withRouting(checkout.amount(), null, 7L, "Acquirer A"), step.operation()));
  }

  /**
   * Customers on the payment page are many at any time: the expiry job, which looks every few
   * seconds, reads only the open checkouts older than the shortest timeout of any shop (an index
   * range on the creation time), never all of them.
   */
  @Test
  void the_expiry_job_reads_only_checkouts_older_than_the_shortest_timeout() {
    List<String> plan = db.jdbi().inTransaction(h -> {
      h.execute("SET LOCAL enable_seqscan = off");
      return h.createQuery("EXPLAIN " + JdbiPaymentRepository.dueSql(PaymentRepository.DueWork.EXPIRED_CHECKOUTS))
          .bind("before", T0).bind("limit", 100).mapTo(String.class).list();
    });
    assertThat(plan).anySatisfy(line -> assertThat(line).contains("Index Scan using payments_open_checkouts"));
    assertThat(plan).anySatisfy(line -> assertThat(line).containsPattern("Index Cond: \\(created < "));
  }

  /**
   * A card the shop stored under a random token (before tokens were derived from the card)
   * keeps it: a new payment with that card is stored and returned with the stored token, and
   * no second vault row is added.
   */
  @Test
  void a_card_stored_under_an_older_token_keeps_it() {
    ShopId own = TestShops.create(adapters, "legacy-vault");
    String legacy = "0123456789abcdef0123456789abcdef";
    CardVault.Sealed sealed = adapters.cardVault().seal(own, "4242424242424242");
    db.jdbi().useHandle(h -> h.createUpdate("""
            INSERT INTO card_vault (shop_id, token, fingerprint, pan_ciphertext, created)
            VALUES (:shop, :token, :fingerprint, :ciphertext, now())""")
        .bind("shop", own.value()).bind("token", legacy).bind("fingerprint", sealed.fingerprint())
        .bind("ciphertext", sealed.ciphertext()).execute());

    Payment p = insertPaidWith(own, "legacy-1", "4242424242424242");

    assertThat(p.card().cardToken()).isEqualTo(legacy);
    assertThat(storedToken(p)).isEqualTo(legacy);
    assertThat(repository().find(p.id()).orElseThrow()).isEqualTo(p);
    byte[] ciphertext = adapters.transactionRunner().inTransaction(
        () -> repository().findForUpdateWithCard(p.id()).orElseThrow().cardCiphertext());
    assertThat(adapters.cardVault().open(ciphertext)).isEqualTo("4242424242424242");
    long rows = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM card_vault WHERE shop_id = :shop")
        .bind("shop", own.value()).mapTo(Long.class).one());
    assertThat(rows).isEqualTo(1);
  }

  /**
   * Payments that bring the same new card at once, each in its own open transaction, all get
   * the one token that reveals it, whichever of them stored it (five cards, eight payments
   * each: the race hits the vault's two keys in either order).
   */
  @Test
  void payments_storing_one_new_card_at_once_share_its_token() throws Exception {
    ShopId own = TestShops.create(adapters, "vault-race");
    int at = 8;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(at);
    try {
      for (String pan : List.of("5555555555554444", "5105105105105100", "4111111111111111", "4012888888881881",
          "378282246310005")) {
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(at);
        List<java.util.concurrent.Future<Payment>> done = new ArrayList<>();
        for (int i = 0; i < at; i++) {
          String reference = "race-" + pan + "-" + i;
          done.add(pool.submit(() -> adapters.transactionRunner().inTransaction(() -> {
            try {
              together.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
            return insertPaidWith(own, reference, pan);
          })));
        }
        java.util.Set<String> tokens = new java.util.HashSet<>();
        for (var f : done) {
          Payment p = f.get(60, java.util.concurrent.TimeUnit.SECONDS);
          tokens.add(p.card().cardToken());
          tokens.add(storedToken(p));
        }
        assertThat(tokens).as(pan).hasSize(1);
        assertThat(adapters.cardVault().reveal(own, tokens.iterator().next())).contains(pan);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void a_vault_entry_must_be_the_new_payments_own_card() {
    ShopId own = TestShops.create(adapters, "vault-guard");
    CardVault.Sealed card = adapters.cardVault().seal(own, "4000000000000002");
    CardVault.Sealed foreign = adapters.cardVault().seal(otherShop, "4000000000000002");
    assertThatThrownBy(() -> repository().insert(Payment.create(paidWith(own, "g-1", card), PaymentState.CHECKOUT, T0),
        stored -> new PaymentRepository.Effects(null, null, null, foreign))).isInstanceOf(IllegalArgumentException.class);
    Payment p = insertPaidWith(own, "g-2", "4000000000000002");
    Payment.Transition step = p.apply(OperationType.CANCEL, PaymentState.CANCELLED, Outcome.NONE, T0.plusSeconds(1));
    assertThatThrownBy(() -> repository().update(step, stored -> new PaymentRepository.Effects(null, null, null, card)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private Payment completedWithEvent(ShopId own, String reference) {
    Payment p = repository().insert(Payment.create(draft(own, "4.00", reference), PaymentState.CHECKOUT, T0));
    return repository().update(p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(1)),
        WEBHOOK);
  }

  private static WebhookOutbox.Outcome delivered(WebhookOutbox.ClaimedEvent e, String error) {
    WebhookOutbox.Attempt a = new WebhookOutbox.Attempt(e.id(), PaymentState.COMPLETED, 1, e.url(), Instant.now(),
        java.time.Duration.ofMillis(20), 200, error, WebhookOutbox.Status.DELIVERED);
    return new WebhookOutbox.Outcome(e, a, WebhookOutbox.Status.DELIVERED, null);
  }

  /**
   * A dispatcher records a batch of attempts in one transaction: each whose lease is still its
   * own (a refused one stays pending until its next attempt), skipping one whose lease was
   * lost, and none of them when one cannot be stored.
   */
  @Test
  void a_batch_of_attempts_is_recorded_all_or_nothing() {
    ShopId own = TestShops.create(adapters, "attempt-batch");
    List<Payment> paid = List.of(completedWithEvent(own, "b-1"), completedWithEvent(own, "b-2"),
        completedWithEvent(own, "b-3"), completedWithEvent(own, "b-4"));
    WebhookOutbox outbox = adapters.webhookOutbox();
    java.util.Set<io.tollgate.domain.payment.PaymentId> ours = new java.util.HashSet<>();
    paid.forEach(p -> ours.add(p.id()));
    List<WebhookOutbox.ClaimedEvent> claimed = outbox.claim("batcher", Instant.now(), java.time.Duration.ofMinutes(2),
        1000).stream().filter(e -> ours.contains(e.paymentId())).toList();
    assertThat(claimed).hasSize(4);
    WebhookOutbox.ClaimedEvent lost = claimed.get(2);
    db.jdbi().useHandle(h -> h.createUpdate("UPDATE webhook_events SET lease_token = 'someone-else' WHERE id = CAST(:id AS uuid)")
        .bind("id", lost.id()).execute());

    // A NUL character cannot be stored in text: the whole batch is refused, the first two included.
    assertThatThrownBy(() -> outbox.recordAttempts(List.of(delivered(claimed.get(0), null),
        delivered(claimed.get(1), null), delivered(claimed.get(3), "bad\u0000"))))
        .isInstanceOf(RuntimeException.class);
    assertThat(outbox.attempts(claimed.get(0).paymentId())).isEmpty();

    Instant retryAt = Instant.parse("2030-01-01T00:00:00Z");
    WebhookOutbox.ClaimedEvent refused = claimed.get(1);
    WebhookOutbox.Attempt answered503 = new WebhookOutbox.Attempt(refused.id(), PaymentState.COMPLETED, 1, refused.url(),
        Instant.now(), java.time.Duration.ofMillis(30), 503, null, WebhookOutbox.Status.PENDING);
    outbox.recordAttempts(List.of(delivered(claimed.get(0), null),
        new WebhookOutbox.Outcome(refused, answered503, WebhookOutbox.Status.PENDING, retryAt),
        delivered(lost, null), delivered(claimed.get(3), null)));
    for (WebhookOutbox.ClaimedEvent e : claimed) {
      assertThat(outbox.attempts(e.paymentId())).as(e.id()).hasSize(e == lost ? 0 : 1);
    }
    assertThat(outbox.attempts(refused.paymentId())).singleElement()
        .satisfies(a -> assertThat(a.statusCode()).isEqualTo(503));
    var retried = db.jdbi().withHandle(h -> h.createQuery("""
            SELECT status, attempts, failures_in_row, next_attempt_at, lease_token IS NULL AS released
            FROM webhook_events WHERE id = CAST(:id AS uuid)""")
        .bind("id", refused.id()).mapToMap().one());
    assertThat(retried).containsEntry("status", "PENDING").containsEntry("attempts", 1)
        .containsEntry("failures_in_row", 1).containsEntry("released", true);
    assertThat(((java.sql.Timestamp) retried.get("next_attempt_at")).toInstant()).isEqualTo(retryAt);
    String lostStatus = db.jdbi().withHandle(h -> h.createQuery("SELECT status FROM webhook_events WHERE id = CAST(:id AS uuid)")
        .bind("id", lost.id()).mapTo(String.class).one());
    assertThat(lostStatus).isEqualTo("PENDING");
  }
}
