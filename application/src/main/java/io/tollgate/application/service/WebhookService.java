package io.tollgate.application.service;

import io.tollgate.application.port.in.WebhookDeliveryUseCase;
import io.tollgate.application.port.in.PageRequest;
import io.tollgate.application.port.in.WebhookLogUseCase;
import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.application.port.out.WebhookOutbox.Attempt;
import io.tollgate.application.port.out.WebhookOutbox.ClaimedEvent;
import io.tollgate.application.port.out.WebhookOutbox.Status;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Webhook delivery bookkeeping: leases due events to dispatchers, applies the retry schedule to
 * each reported attempt, and serves the delivery log and resend to merchants.
 */
public final class WebhookService implements WebhookDeliveryUseCase, WebhookLogUseCase {

  /** The contract's schedule: the delays before the 2nd, 3rd, ... attempt. */
  public static final List<Duration> DEFAULT_RETRY_SCHEDULE = List.of(
      Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofHours(1),
      Duration.ofHours(3), Duration.ofHours(6), Duration.ofHours(12), Duration.ofHours(24),
      Duration.ofHours(24), Duration.ofHours(24));

  private final WebhookOutbox outbox;
  private final PaymentRepository payments;
  private final ShopService keys;
  private final ShopRepository shops;
  private final ShopScope scope;
  private final List<Duration> retrySchedule;
  private final Clock clock;

  public WebhookService(WebhookOutbox outbox, PaymentRepository payments, ShopRepository shops,
      ReferenceData reference, ShopService keys, List<Duration> retrySchedule, Clock clock) {
    this.outbox = outbox;
    this.payments = payments;
    this.keys = keys;
    this.shops = shops;
    this.scope = new ShopScope(shops, reference);
    this.retrySchedule = List.copyOf(retrySchedule);
    this.clock = clock;
  }

  @Override
  public List<Delivery> claim(String leaseToken, int limit, Duration lease, List<ShopId> skippedShops) {
    List<ClaimedEvent> claimed = outbox.claim(leaseToken, clock.instant(), lease, limit, skippedShops);
    Map<ShopId, SigningKey> signingKeys = new HashMap<>();
    List<Delivery> deliveries = new ArrayList<>(claimed.size());
    for (ClaimedEvent e : claimed) {
      SigningKey key = signingKeys.computeIfAbsent(e.shopId(), this::signingKey);
      deliveries.add(new Delivery(e, e.url(), key.key(), key.problem(), key.previous()));
    }
    return deliveries;
  }

  @Override
  public Delivery refreshed(Delivery delivery) {
    ClaimedEvent e = delivery.event();
    SigningKey key = signingKey(e.shopId());
    if (key.problem() != null) {
      // cannot be read now (a pool short of connections): sent as claimed, with the keys read then
      return delivery;
    }
    String url = e.targetUrl() != null ? e.targetUrl()
        : shops.findCurrent(e.shopId()).map(Shop::webhookUrl).orElse(null);
    return new Delivery(e, url, key.key(), key.problem(), key.previous());
  }

  /** A shop's signing key, none (null key), or why it could not be read; the key it replaced lately, or null. */
  private record SigningKey(String key, String problem, String previous) {
    SigningKey(String key, String problem) {
      this(key, problem, null);
    }
  }

  /**
   * The leases are committed already: a key that cannot be read (a damaged row, a key sealed
   * under another master key, the database gone for a moment) fails that shop's events as
   * attempts, retried on the schedule, instead of the whole batch, whose leases would then run
   * out unrecorded, again and again.
   */
  private SigningKey signingKey(ShopId shop) {
    try {
      ShopService.SigningKeys both = keys.signingKeys(shop);
      return new SigningKey(both.active(), null, both.previous());
    } catch (DomainException.NotFound e) {
      return new SigningKey(null, null);
    } catch (RuntimeException e) {
      // the dispatcher logs the failed attempt with this reason, and the merchant's log shows it
      return new SigningKey(null, "the shop's signing key could not be read (" + e.getClass().getSimpleName() + ")");
    }
  }

  @Override
  public void reportAll(List<Reported> reports) {
    List<WebhookOutbox.Outcome> outcomes = new ArrayList<>(reports.size());
    for (Reported r : reports) {
      outcomes.add(outcome(r.delivery(), r.result()));
    }
    outbox.recordAttempts(outcomes);
  }

  private WebhookOutbox.Outcome outcome(Delivery delivery, Result result) {
    ClaimedEvent e = delivery.event();
    Status status;
    Instant next = null;
    if (result.delivered()) {
      status = Status.DELIVERED;
    } else if (delivery.url() == null) {
      // Nowhere to send it; the merchant can set a URL and ask for it again (resend).
      status = Status.FAILED;
    } else if (e.failuresInRow() < retrySchedule.size()) {
      status = Status.PENDING;
      next = result.started().plus(result.duration()).plus(retrySchedule.get(e.failuresInRow()));
    } else {
      status = Status.FAILED;
    }
    Attempt attempt = new Attempt(e.id(), e.paymentState(), delivery.attempt(), Shop.withoutPassword(delivery.url()),
        result.started(), result.duration(), result.statusCode(), result.error(), status);
    return new WebhookOutbox.Outcome(e, attempt, status, next, result.waited());
  }

  @Override
  public void release(String leaseToken) {
    outbox.release(leaseToken);
  }

  @Override
  public Page<Attempt> attempts(MerchantUser user, PaymentId payment, PageRequest page) {
    visibleTo(user, payment);
    page.requireValid();
    // an attempt recorded by an older release kept the password it was sent with
    return outbox.attempts(payment, page.offset(), page.limit()).map(a -> new Attempt(a.eventId(), a.paymentState(),
        a.number(), Shop.withoutPassword(a.url()), a.started(), a.duration(), a.statusCode(), a.error(),
        a.eventStatus()));
  }

  @Override
  public void resend(MerchantUser user, PaymentId payment) {
    visibleTo(user, payment);
    user.require(Permission.SHOP_EDIT);
    var latest = outbox.latestEvent(payment)
        .orElseThrow(() -> new DomainException.NotFound("The payment has no webhook event yet"));
    outbox.requeue(latest.id(), clock.instant());
  }

  @Override
  public int forgetDeliveriesOlderThan(Duration kept, int batch) {
    return outbox.forgetDeliveriesBefore(clock.instant().minus(kept), batch);
  }

  /** Another merchant's payment, or one of a shop outside a scoped user's shop group, is not found. */
  private void visibleTo(MerchantUser user, PaymentId id) {
    Payment p = payments.find(id).orElseThrow(() -> new DomainException.NotFound("Payment not found"));
    if (!scope.sees(user, p.shopId())) {
      throw new DomainException.NotFound("Payment not found");
    }
  }
}
