package io.tollgate.application.port.in;

import io.tollgate.application.port.out.WebhookOutbox.ClaimedEvent;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.List;

/**
 * What a webhook dispatcher drives: lease due events, report how each delivery went, and give
 * back what it could not send. Any number of dispatchers may run against one database.
 */
public interface WebhookDeliveryUseCase {

  /**
   * Leases up to {@code limit} due events under {@code leaseToken} for {@code lease}. A
   * dispatcher gives each claim a token of its own ({@code owner:n}), so that the report of an
   * attempt whose lease ran out cannot settle the event it leased again meanwhile.
   */
  default List<Delivery> claim(String leaseToken, int limit, Duration lease) {
    return claim(leaseToken, limit, lease, List.of());
  }

  /**
   * As {@link #claim(String, int, Duration)}, passing over the events of {@code skippedShops}:
   * those a dispatcher already sends to as many at once as one shop may have.
   */
  List<Delivery> claim(String leaseToken, int limit, Duration lease, List<ShopId> skippedShops);

  /**
   * {@code delivery} with its shop's signing keys, and its shop's webhook URL when the event has
   * none of its own, as they are now: for a delivery that waited for a slot of its shop after its
   * claim, during which the operator may have issued a new key (every attempt signs with it from
   * then on) or changed the URL. As claimed when the keys cannot be read now.
   */
  default Delivery refreshed(Delivery delivery) {
    return delivery;
  }

  /** Records the attempt and schedules the retry, or marks the event delivered or failed. */
  default void report(Delivery delivery, Result result) {
    reportAll(List.of(new Reported(delivery, result)));
  }

  /**
   * Records several attempts as {@link #report} does, in one transaction: one commit (and one
   * flush of the database's log) for all of them, and none of them if it fails.
   */
  void reportAll(List<Reported> reports);

  /** An attempt to record: the delivery and how it went. */
  record Reported(Delivery delivery, Result result) {}

  /** Releases every event still leased under the owner's token or its claims' ({@code owner:n}), due again at once. */
  void release(String owner);

  /**
   * One event to send.
   *
   * @param url where to send it; null when neither the payment nor the shop has a webhook URL
   * @param signingKey the shop's signing key for this environment (the HMAC key)
   * @param unsendable why the event cannot be sent this time (its attempt is recorded as failed
   *     with this error and retried on the schedule), or null
   * @param previousSigningKey the key the signing key replaced within the last day, also signed
   *     with in {@code Webhook-Signature}; null when there is none
   */
  record Delivery(ClaimedEvent event, String url, String signingKey, String unsendable, String previousSigningKey) {

    public Delivery(ClaimedEvent event, String url, String signingKey, String unsendable) {
      this(event, url, signingKey, unsendable, null);
    }

    public Delivery(ClaimedEvent event, String url, String signingKey) {
      this(event, url, signingKey, null, null);
    }

    public String eventId() {
      return event.id();
    }

    public byte[] body() {
      return event.body();
    }

    /** The number of this attempt, from 1. */
    public int attempt() {
      return event.attempts() + 1;
    }
  }

  /**
   * How one attempt went.
   *
   * @param statusCode the receiver's HTTP status, or null when none came back
   * @param error what went wrong without a status, or null
   * @param waited how long after its claim answered the attempt began (a claimed delivery may
   *     wait for a slot of its shop): a resend asked meanwhile is answered by this attempt
   */
  record Result(java.time.Instant started, Duration duration, Integer statusCode, String error, Duration waited) {

    /** An attempt that began as its event was claimed. */
    public Result(java.time.Instant started, Duration duration, Integer statusCode, String error) {
      this(started, duration, statusCode, error, Duration.ZERO);
    }

    public boolean delivered() {
      return statusCode != null && statusCode >= 200 && statusCode < 300;
    }
  }
}
