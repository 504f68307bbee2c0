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
  private static final Instant CUTOFF = OLD.plus(Duration.ofDays(10));
  private static final Instant RECENT = OLD.plus(Duration.ofDays(20));

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

  @Test
  void the_log_from_before_the_cutoff_goes_but_each_payments_newest_event_stays() {
    Payment replaced = paymentWithEvent(OLD);
    deliver(replaced, OLD.plusSeconds(1));
    replaced = step(replaced, OperationType.CAPTURE, PaymentState.COMPLETED, OLD.plusSeconds(2));
    deliver(replaced, OLD.plusSeconds(3));
    Payment single = paymentWithEvent(OLD.plusSeconds(4));
    deliver(single, OLD.plusSeconds(5));
    Payment stillPending = paymentWithEvent(OLD.plusSeconds(6));
    deliver(stillPending, OLD.plusSeconds(7));
    step(stillPending, OperationType.CAPTURE, PaymentState.COMPLETED, OLD.plusSeconds(8));
    Payment recent = paymentWithEvent(RECENT);
    deliver(recent, RECENT.plusSeconds(1));
    recent = step(recent, OperationType.CAPTURE, PaymentState.COMPLETED, RECENT.plusSeconds(2));
    deliver(recent, RECENT.plusSeconds(3));

    WebhookOutbox outbox = adapters.webhookOutbox();
    int batches = 0;
    while (outbox.forgetDeliveriesBefore(CUTOFF, 2) == 2) {
      batches++;
      assertThat(batches).as("comes to an end").isLessThan(20);
    }

    assertThat(events(replaced)).containsExactly("COMPLETED DELIVERED");
    assertThat(events(single)).containsExactly("AUTHORIZED DELIVERED");
    assertThat(events(stillPending)).containsExactly("COMPLETED PENDING");
    assertThat(events(recent)).containsExactly("AUTHORIZED DELIVERED", "COMPLETED DELIVERED");
    for (Payment old : List.of(replaced, single, stillPending)) {
      assertThat(outbox.attempts(old.id())).isEmpty();
      assertThat(outbox.latestEvent(old.id())).as("still there to be sent again").isPresent();
    }
    assertThat(outbox.attempts(recent.id())).hasSize(2);

    // what it kept is not read again: the next round looks at nothing before the cutoff
    assertThat(outbox.forgetDeliveriesBefore(CUTOFF, 2)).isZero();
    assertThat(outbox.forgetDeliveriesBefore(RECENT.plus(Duration.ofDays(10)), 50))
        .as("later, the recent log's turn comes").isPositive();
    assertThat(events(recent)).containsExactly("COMPLETED DELIVERED");
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

  /** The payment's oldest pending event, claimed and answered 200 at {@code at}. */
  private void deliver(Payment p, Instant at) {
    WebhookOutbox outbox = adapters.webhookOutbox();
    WebhookOutbox.ClaimedEvent e = outbox.claim("test:" + UUID.randomUUID(), at, Duration.ofMinutes(1), 1000,
        List.of()).stream().filter(c -> c.paymentId().equals(p.id())).findFirst().orElseThrow();
    assertThat(outbox.recordAttempt(e, new WebhookOutbox.Attempt(e.id(), e.paymentState(), e.attempts() + 1,
        e.url(), at, Duration.ofMillis(5), 200, null, WebhookOutbox.Status.DELIVERED),
        WebhookOutbox.Status.DELIVERED, null)).isTrue();
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
