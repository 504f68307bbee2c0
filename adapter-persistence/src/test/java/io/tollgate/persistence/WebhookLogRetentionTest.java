package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook delivery log is kept for a set time: older attempts go, and older settled events
 * that a newer event of the same payment replaced; each payment's newest event stays, to be sent
 * again, as do pending events and everything newer than the cutoff. Each test has a database of
 * its own, since forgetting reaches every shop's log.
 */
class WebhookLogRetentionTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private static final Instant OLD = Instant.parse("2026-01-05T10:00:00Z");

  private Database db;
  private PersistenceAdapters adapters;
  private ShopId shop;

  @BeforeEach
  void start() {
    db = TestDatabase.fresh();
    adapters = new PersistenceAdapters(db, new SecretBox(SecretBox.randomKey()), CURRENCIES);
    shop = TestShops.create(adapters, "retention");
  }

  @AfterEach
  void stop() {
    db.close();
  }

  /**
   * The job as it runs, day after day, each round with its cutoff: an event retried for days, a
   * payment whose newer event comes long after its older one was gone through, more attempts
   * than events.
   */
  @Test
  void the_log_from_before_the_cutoff_goes_but_each_payments_newest_event_stays() {
    WebhookOutbox outbox = adapters.webhookOutbox();
    Payment retried = paymentWithEvent(OLD);
    deliver(retried, OLD.plusSeconds(1), 200);
    retried = step(retried, OperationType.CAPTURE, PaymentState.COMPLETED, OLD.plusSeconds(2));
    deliver(retried, OLD.plusSeconds(3), 500);
    Payment single = paymentWithEvent(OLD.plusSeconds(4));
    deliver(single, OLD.plusSeconds(5), 200);
    Payment capturedLater = paymentWithEvent(OLD.plusSeconds(6));
    deliver(capturedLater, OLD.plusSeconds(7), 200);

    forget(OLD.plusSeconds(10));
    assertThat(events(retried)).as("a pending event stops the round: its payment's older one waits")
        .containsExactly("AUTHORIZED DELIVERED", "COMPLETED PENDING");
    assertThat(outbox.attempts(retried.id())).as("attempts go by their own time").isEmpty();

    deliver(retried, day(3), 200);
    forget(day(1));
    assertThat(events(retried)).as("replaced, and settled before the cutoff").containsExactly("COMPLETED DELIVERED");
    assertThat(outbox.attempts(retried.id())).as("the newer one's, from after the cutoff").hasSize(1);
    forget(day(4));
    assertThat(events(retried)).containsExactly("COMPLETED DELIVERED");
    assertThat(events(single)).containsExactly("AUTHORIZED DELIVERED");
    assertThat(events(capturedLater)).containsExactly("AUTHORIZED DELIVERED");
    assertThat(outbox.attempts(retried.id())).isEmpty();

    Payment recent = paymentWithEvent(day(20));
    deliver(recent, day(20).plusSeconds(1), 200);
    step(capturedLater, OperationType.CAPTURE, PaymentState.COMPLETED, day(40));
    deliver(capturedLater, day(40).plusSeconds(1), 200);
    forget(day(30));
    assertThat(events(capturedLater)).as("replaced after the cutoff").containsExactly("AUTHORIZED DELIVERED",
        "COMPLETED DELIVERED");
    assertThat(outbox.attempts(capturedLater.id())).hasSize(1);
    assertThat(outbox.attempts(recent.id())).isEmpty();
    forget(day(41));
    assertThat(events(capturedLater)).as("replaced long after it was gone through")
        .containsExactly("COMPLETED DELIVERED");
    assertThat(outbox.attempts(capturedLater.id())).isEmpty();
    assertThat(events(recent)).containsExactly("AUTHORIZED DELIVERED");
    for (Payment p : List.of(retried, single, capturedLater, recent)) {
      assertThat(outbox.latestEvent(p.id())).as("still there to be sent again").isPresent();
    }
    assertThat(outbox.forgetDeliveriesBefore(day(41), 2)).as("nothing is gone through twice").isZero();
  }

  /**
   * An old event sent again on request holds up no other payment's log: each replaced event goes
   * once it has itself been settled for the retention. A resend settles the event anew, and the
   * job, which stopped at the first event settled after the cutoff, stopped at it and forgot
   * nothing newer, of any shop, until the retention had passed again since the resend.
   */
  @Test
  void an_old_event_sent_again_holds_up_no_other_payments_log() {
    WebhookOutbox outbox = adapters.webhookOutbox();
    Payment resent = paymentWithEvent(OLD);
    deliver(resent, OLD.plusSeconds(1), 200);
    Payment other = paymentWithEvent(OLD.plusSeconds(2));
    deliver(other, OLD.plusSeconds(3), 200);
    step(other, OperationType.CAPTURE, PaymentState.COMPLETED, OLD.plusSeconds(4));
    deliver(other, OLD.plusSeconds(5), 200);
    outbox.requeue(outbox.latestEvent(resent.id()).orElseThrow().id(), day(20));
    deliver(resent, day(20), 200);

    forget(day(10));
    assertThat(events(other)).as("its replaced event is older than the cutoff").containsExactly("COMPLETED DELIVERED");
    assertThat(events(resent)).containsExactly("AUTHORIZED DELIVERED");

    step(resent, OperationType.CAPTURE, PaymentState.COMPLETED, day(21));
    deliver(resent, day(21), 200);
    forget(day(15));
    assertThat(events(resent)).as("sent again on day 20: kept for the retention from then")
        .containsExactly("AUTHORIZED DELIVERED", "COMPLETED DELIVERED");
    forget(day(22));
    assertThat(events(resent)).containsExactly("COMPLETED DELIVERED");
  }

  /**
   * An event that commits after a later one (it takes its {@code seq} when written, and is seen
   * when its transaction commits) is gone through all the same: the job stays the retention
   * behind. It passed every event it could see, and one committed below its position then was
   * never looked at, so the event it replaced was kept for good.
   */
  @Test
  void an_event_committed_after_a_later_one_is_gone_through_too() {
    Payment captured = paymentWithEvent(OLD);
    deliver(captured, OLD.plusSeconds(1), 200);
    // the capture's transaction takes its seq now and commits only after the other payment's event
    long taken = db.jdbi().withHandle(h -> h.createQuery(
        "SELECT nextval(pg_get_serial_sequence('webhook_events', 'seq'))").mapTo(Long.class).one());
    Payment other = paymentWithEvent(day(5));
    deliver(other, day(5).plusSeconds(1), 200);
    forget(day(3));

    step(captured, OperationType.CAPTURE, PaymentState.COMPLETED, day(6));
    db.jdbi().useHandle(h -> h.createUpdate("UPDATE webhook_events SET seq = :seq WHERE payment_id = :payment "
        + "AND payment_state = 'COMPLETED'").bind("seq", taken).bind("payment", captured.id().value()).execute());
    deliver(captured, day(6).plusSeconds(1), 200);
    forget(day(10));

    assertThat(events(captured)).as("the AUTHORIZED event it replaced is forgotten").containsExactly(
        "COMPLETED DELIVERED");
    assertThat(events(other)).containsExactly("AUTHORIZED DELIVERED");
  }

  /** A backlog, as at the upgrade that brings the job: more attempts than events, batch after batch. */
  @Test
  void a_backlog_of_replaced_events_with_their_retries_goes_in_full() {
    List<Payment> payments = new java.util.ArrayList<>();
    for (int i = 0; i < 30; i++) {
      Payment p = paymentWithEvent(OLD.plusSeconds(10L * i));
      deliver(p, OLD.plusSeconds(10L * i + 1), 500);
      payments.add(p);
    }
    assertThat(deliverAll(day(3))).isEqualTo(30);
    for (int i = 0; i < 30; i++) {
      payments.set(i, step(payments.get(i), OperationType.CAPTURE, PaymentState.COMPLETED, day(3).plusSeconds(i)));
    }
    assertThat(deliverAll(day(4))).isEqualTo(30);
    forget(day(10));
    for (Payment p : payments) {
      assertThat(events(p)).containsExactly("COMPLETED DELIVERED");
      assertThat(adapters.webhookOutbox().attempts(p.id())).isEmpty();
    }
  }

  /** Runs the job's batches (of 4) at {@code cutoff} until one finds no more. */
  private void forget(Instant cutoff) {
    int batches = 0;
    while (adapters.webhookOutbox().forgetDeliveriesBefore(cutoff, 4) == 4) {
      assertThat(++batches).as("comes to an end").isLessThan(100);
    }
  }

  private static Instant day(int n) {
    return OLD.plus(Duration.ofDays(n));
  }

  private Payment paymentWithEvent(Instant at) {
    Payment created = adapters.payments().insert(Payment.create(draft(), PaymentState.CHECKOUT, at));
    return step(created, OperationType.DEPOSIT, PaymentState.AUTHORIZED, at);
  }

  private Payment step(Payment p, OperationType operation, PaymentState state, Instant at) {
    return adapters.payments().update(p.apply(operation, state, Outcome.NONE, at), stored ->
        new PaymentRepository.Effects(new WebhookOutbox.NewEvent(UUID.randomUUID().toString(), stored.id(),
            stored.shopId(), stored.state(), "https://merchant.example/hooks", "{}".getBytes(StandardCharsets.UTF_8),
            stored.updated()), null));
  }

  /** The payment's oldest pending event, claimed and answered {@code status} at {@code at}; a 500 is retried in two days. */
  private void deliver(Payment p, Instant at, int status) {
    WebhookOutbox outbox = adapters.webhookOutbox();
    WebhookOutbox.ClaimedEvent e = outbox.claim("test:" + UUID.randomUUID(), at, Duration.ofMinutes(1), 1000,
        List.of()).stream().filter(c -> c.paymentId().equals(p.id())).findFirst().orElseThrow();
    WebhookOutbox.Status outcome = status == 200 ? WebhookOutbox.Status.DELIVERED : WebhookOutbox.Status.PENDING;
    assertThat(outbox.recordAttempt(e, new WebhookOutbox.Attempt(e.id(), e.paymentState(), e.attempts() + 1,
        e.url(), at, Duration.ofMillis(5), status, null, outcome), outcome,
        status == 200 ? null : at.plus(Duration.ofDays(2)))).isTrue();
  }

  /** Every due event, claimed and answered 200 at {@code at}; how many. */
  private int deliverAll(Instant at) {
    WebhookOutbox outbox = adapters.webhookOutbox();
    List<WebhookOutbox.ClaimedEvent> due = outbox.claim("test:" + UUID.randomUUID(), at, Duration.ofMinutes(1),
        1000, List.of());
    for (WebhookOutbox.ClaimedEvent e : due) {
      assertThat(outbox.recordAttempt(e, new WebhookOutbox.Attempt(e.id(), e.paymentState(), e.attempts() + 1,
          e.url(), at, Duration.ofMillis(5), 200, null, WebhookOutbox.Status.DELIVERED),
          WebhookOutbox.Status.DELIVERED, null)).isTrue();
    }
    return due.size();
  }

  private List<String> events(Payment p) {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT payment_state || ' ' || status "
        + "FROM webhook_events WHERE payment_id = :payment ORDER BY seq").bind("payment", p.id().value())
        .mapTo(String.class).list());
  }

  private Payment.Draft draft() {
    return new Payment.Draft(PaymentId.random(), shop, PaymentType.DEPOSIT, PaymentMethod.BASIC_CARD,
        Money.of("5.00", CURRENCIES.require("EUR")), null, "desc", null, false,
        new CardDetails("400000******0002", "a".repeat(32), "ANN LEE", "12", "2045", "VISA", "US"),
        new Customer("cust-1", "DE", "Ann", "Lee", "1990-01-31", "ann@example.com", "49 30 1234", "de", "10.0.0.1"),
        new BillingAddress("Main 1", null, "Berlin", "DE", "10115", null),
        "https://shop.example/r", "https://shop.example/h", Map.of());
  }
}
