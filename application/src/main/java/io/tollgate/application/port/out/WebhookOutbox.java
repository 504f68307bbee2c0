package io.tollgate.application.port.out;

import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The transactional outbox of webhook events and the log of their delivery attempts.
 *
 * <p>Events are written by {@link PaymentRepository} in the same statement as the state change
 * that caused them (see {@link PaymentRepository.Effects}), so an event exists exactly when
 * that change was committed. Claims are leases: an event claimed by an instance that
 * dies becomes due again when its lease runs out.
 */
public interface WebhookOutbox {

  /**
   * Leases up to {@code limit} due events, at most one per payment and only the oldest pending
   * event of each payment, skipping rows other instances hold ({@code FOR UPDATE SKIP LOCKED}).
   * {@code now} says which events are due; a lease runs for {@code lease} by the store's own
   * clock, shared by every instance, so that one whose clock runs ahead cannot end another's.
   */
  default List<ClaimedEvent> claim(String leaseToken, Instant now, Duration lease, int limit) {
    return claim(leaseToken, now, lease, limit, List.of());
  }

  /** As {@link #claim(String, Instant, Duration, int)}, passing over the events of {@code skippedShops}. */
  List<ClaimedEvent> claim(String leaseToken, Instant now, Duration lease, int limit, List<ShopId> skippedShops);

  /**
   * Records one attempt and the event's new status, if the lease is still ours. A resend asked
   * during the attempt (of an event no newer one has overtaken) leaves the event PENDING instead,
   * and the attempt is logged with the status the event is left in. The attempt is taken to have
   * begun as the event was claimed ({@link Outcome#waited} zero).
   *
   * @return false when the lease was lost (the event was released or re-claimed meanwhile)
   */
  boolean recordAttempt(ClaimedEvent event, Attempt attempt, Status status, Instant nextAttemptAt);

  /**
   * Forgets a batch of the delivery log from before {@code cutoff}: attempts, and settled events
   * that a newer event of the same payment has replaced. Each payment's newest event stays, so
   * that it can be sent again, as does a pending one and one an attempt still refers to.
   *
   * @return how many rows it deleted or looked at, up to {@code batch}; {@code batch} when more
   *     may be left
   */
  int forgetDeliveriesBefore(Instant cutoff, int batch);

  /**
   * Records attempts as {@link #recordAttempt} does, all in one transaction (one commit); an
   * attempt whose lease was lost is skipped.
   */
  void recordAttempts(List<Outcome> outcomes);

  /**
   * One attempt to record, with the event's new status and next attempt (null unless PENDING).
   *
   * @param waited how long after its claim the attempt began, never more than it was: a resend
   *     asked before the attempt began is answered by it, one asked after makes the event due
   *     again once the attempt is recorded. A claimed event may wait for a slot of its shop.
   */
  record Outcome(ClaimedEvent event, Attempt attempt, Status status, Instant nextAttemptAt, Duration waited) {

    /** An attempt that began as its event was claimed. */
    public Outcome(ClaimedEvent event, Attempt attempt, Status status, Instant nextAttemptAt) {
      this(event, attempt, status, nextAttemptAt, Duration.ZERO);
    }
  }

  /**
   * Gives claimed events back undelivered (on shutdown); they are due again at once.
   *
   * @param owner the instance's token: events leased under it or under any claim token
   *     {@code owner:...} are released
   */
  void release(String owner);

  /**
   * Every attempt for the payment, newest first, however many: what users read goes by
   * {@link #attempts(PaymentId, int, int)}.
   */
  List<Attempt> attempts(PaymentId payment);

  /** A page of the payment's attempts, newest first: {@code limit} of them after the {@code offset} newest. */
  Page<Attempt> attempts(PaymentId payment, int offset, int limit);

  /** The newest event of the payment. */
  Optional<EventSummary> latestEvent(PaymentId payment);

  /** Events still to be delivered (the outbox depth). */
  long pendingCount();

  /**
   * Makes an event due again now, with a fresh retry schedule, while it is still its payment's
   * newest (a newer one is on its way, and the older must not follow it). An event being
   * delivered at that moment is sent again once that delivery has ended; one claimed whose
   * delivery has not begun yet is sent by that delivery alone, unless it fails. The payment's earlier
   * events still pending, which go before it, are made due now as well, with fresh schedules,
   * unless one is being delivered.
   */
  void requeue(String eventId, Instant now);

  enum Status { PENDING, DELIVERED, FAILED }

  /**
   * @param targetUrl the payment's own webhook URL, or null to use the shop's at delivery time
   * @param body the exact bytes to deliver and sign
   */
  record NewEvent(String id, PaymentId paymentId, ShopId shopId, PaymentState paymentState,
      String targetUrl, byte[] body, Instant created) {}

  /**
   * A leased event.
   *
   * @param failuresInRow failed attempts since it was (re)queued; picks the next retry delay
   * @param shopWebhookUrl the shop's current webhook URL
   */
  record ClaimedEvent(String id, String leaseToken, PaymentId paymentId, ShopId shopId,
      PaymentState paymentState, String targetUrl, String shopWebhookUrl, byte[] body,
      int attempts, int failuresInRow, Instant created) {

    public String url() {
      return targetUrl != null ? targetUrl : shopWebhookUrl;
    }

    /**
     * Whether it was queued again after earlier attempts, as a resend does (of this event, or of
     * a later one of its payment that this one goes before): its failures in a row then count
     * from 0 again, below its attempts.
     */
    public boolean requeued() {
      return attempts > failuresInRow;
    }
  }

  /**
   * One delivery attempt.
   *
   * @param statusCode the receiver's HTTP status, or null when none came back
   * @param error why the attempt failed without a status (timeout, refused connection), or null
   */
  record Attempt(String eventId, PaymentState paymentState, int number, String url, Instant started,
      Duration duration, Integer statusCode, String error, Status eventStatus) {}

  record EventSummary(String id, PaymentState paymentState, Status status, int attempts, Instant created) {}
}
