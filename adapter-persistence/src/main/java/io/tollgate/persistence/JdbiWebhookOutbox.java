package io.tollgate.persistence;

import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

final class JdbiWebhookOutbox implements WebhookOutbox {

  private final Jdbi jdbi;

  JdbiWebhookOutbox(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /**
   * Oldest due events first, each only if no older event of its payment is pending. That check
   * says "not delivered and not failed" rather than "pending" on purpose: it then matches no
   * partial index on pending events and stays a probe of {@code webhook_events_payment} by
   * payment, whatever the statistics say.
   *
   * <p>Leases are stamped and judged by the database's clock, the one clock every instance
   * shares: an instance whose own clock ran ahead would otherwise take over events another
   * instance is still sending, and the receiver would get them twice. {@code now} only says
   * which events are due.
   */
  @Override
  public List<ClaimedEvent> claim(String leaseToken, Instant now, Duration lease, int limit, List<ShopId> skippedShops) {
    return jdbi.inTransaction(h -> {
      // Planned afresh each time: a cached generic plan is made once, while the outbox is small,
      // and kept until the next ANALYZE; with a backlog that plan walked the whole table per claim.
      h.execute("SET LOCAL plan_cache_mode = force_custom_plan");
      return h.createQuery("""
            WITH due AS (
                SELECT e.id FROM webhook_events e
                WHERE e.status = 'PENDING' AND e.next_attempt_at <= :now
                  AND (e.lease_until IS NULL OR e.lease_until < statement_timestamp())
                  AND e.shop_id <> ALL (CAST(:skipped AS bigint[]))
                  AND NOT EXISTS (SELECT 1 FROM webhook_events earlier
                                  WHERE earlier.payment_id = e.payment_id AND earlier.seq < e.seq
                                    AND earlier.status NOT IN ('DELIVERED', 'FAILED'))
                ORDER BY e.next_attempt_at, e.seq
                LIMIT :limit
                FOR UPDATE OF e SKIP LOCKED)
            UPDATE webhook_events w SET lease_token = :token, leased_at = statement_timestamp(),
                lease_until = statement_timestamp() + :leaseMillis * interval '1 millisecond', resend_asked_at = NULL
            FROM due, shops s
            WHERE w.id = due.id AND s.id = w.shop_id
            RETURNING w.id, w.payment_id, w.shop_id, w.payment_state, w.target_url, s.webhook_url AS shop_url,
                w.body, w.attempts, w.failures_in_row, w.created, w.seq
            """)
        .bind("now", now).bind("leaseMillis", lease.toMillis()).bind("token", leaseToken).bind("limit", limit)
        .bind("skipped", skippedShops.stream().map(ShopId::value).toArray(Long[]::new))
        .map((rs, ctx) -> new ClaimedEvent(rs.getString("id"), leaseToken,
            new PaymentId(rs.getString("payment_id")), new ShopId(rs.getLong("shop_id")),
            PaymentState.valueOf(rs.getString("payment_state")), rs.getString("target_url"),
            rs.getString("shop_url"), rs.getBytes("body"), rs.getInt("attempts"), rs.getInt("failures_in_row"),
            rs.getTimestamp("created").toInstant()))
        .list();
    });
  }

  @Override
  public boolean recordAttempt(ClaimedEvent event, Attempt a, Status status, Instant nextAttemptAt) {
    return settle(List.of(new Outcome(event, a, status, nextAttemptAt))) == 1;
  }

  @Override
  public void recordAttempts(List<Outcome> outcomes) {
    if (!outcomes.isEmpty()) {
      settle(outcomes);
    }
  }

  /**
   * Settles each outcome's event and logs its attempt, for the events whose lease is still
   * ours, both or neither; a retried event's later events wait for its next attempt instead of
   * being looked at (and passed over) by every claim meanwhile. One statement for a whole
   * batch (one round trip and one commit), from arrays of the outcomes' values.
   *
   * <p>A resend counts as asked during the attempt when it was asked once the attempt began: its
   * claim's time plus how long it waited after the claim, by the database's clock as the ask's
   * time is (the dispatcher's clock may differ, and its wait is measured from after the claim,
   * never longer than it was). An event claimed and waiting for a slot of its shop when the
   * resend was asked is then sent once, by the attempt that began after the ask, when that
   * attempt delivered it; one that failed leaves it due again on a fresh schedule, as asked.
   *
   * @return the attempts logged
   */
  private int settle(List<Outcome> outcomes) {
    int n = outcomes.size();
    String[] events = new String[n];
    String[] tokens = new String[n];
    String[] statuses = new String[n];
    String[] nexts = new String[n];
    String[] finished = new String[n];
    String[] payments = new String[n];
    String[] states = new String[n];
    Integer[] numbers = new Integer[n];
    String[] urls = new String[n];
    String[] started = new String[n];
    Long[] durations = new Long[n];
    Integer[] codes = new Integer[n];
    String[] errors = new String[n];
    Long[] waited = new Long[n];
    for (int i = 0; i < n; i++) {
      Outcome o = outcomes.get(i);
      Attempt a = o.attempt();
      events[i] = o.event().id();
      tokens[i] = o.event().leaseToken();
      statuses[i] = o.status().name();
      nexts[i] = o.nextAttemptAt() == null ? null : o.nextAttemptAt().toString();
      finished[i] = o.status() == Status.PENDING ? null : a.started().plus(a.duration()).toString();
      payments[i] = o.event().paymentId().value();
      states[i] = a.paymentState().name();
      numbers[i] = a.number();
      urls[i] = a.url();
      started[i] = a.started().toString();
      durations[i] = a.duration().toMillis();
      codes[i] = a.statusCode();
      errors[i] = a.error();
      // in whole microseconds, rounded down (the resolution of timestamptz)
      waited[i] = o.waited().toNanos() / 1000;
    }
    return jdbi.withHandle(h -> h.createUpdate("""
            WITH input AS (
                SELECT i.*, i.waited_us * interval '1 microsecond' AS waited
                FROM unnest(CAST(:events AS uuid[]), CAST(:tokens AS text[]), CAST(:statuses AS text[]),
                    CAST(:nexts AS timestamptz[]), CAST(:finished AS timestamptz[]), CAST(:payments AS text[]),
                    CAST(:states AS text[]), CAST(:numbers AS int[]), CAST(:urls AS text[]),
                    CAST(:started AS timestamptz[]), CAST(:durations AS bigint[]), CAST(:codes AS int[]),
                    CAST(:errors AS text[]), CAST(:waited AS bigint[]))
                    WITH ORDINALITY AS i(event, token, status, next, finished, payment, state, attempt, url, started,
                        duration, code, error, waited_us, n)),
            -- a resend asked during the delivery (once it began), or before it began when it was
            -- not delivered, makes the event due again at the time it was asked for, with a fresh
            -- schedule, unless a newer event of the payment has overtaken it (requeue's rule); the
            -- ask is read from the row as the update locks it, so one made after this statement
            -- began still counts, and is then not checked against newer events
            overtaken AS (
                SELECT e.id FROM webhook_events e JOIN input i ON e.id = i.event
                WHERE e.resend_asked_at IS NOT NULL
                  AND EXISTS (SELECT 1 FROM webhook_events n WHERE n.payment_id = e.payment_id AND n.seq > e.seq)),
            settled AS (
                UPDATE webhook_events w
                SET status = CASE WHEN (w.resend_asked_at >= w.leased_at + i.waited
                            OR w.resend_asked_at IS NOT NULL AND i.status <> 'DELIVERED') AND o.id IS NULL
                        THEN 'PENDING' ELSE i.status END,
                    attempts = w.attempts + 1,
                    failures_in_row = CASE WHEN i.status = 'DELIVERED'
                        OR w.resend_asked_at IS NOT NULL AND o.id IS NULL THEN 0
                        ELSE w.failures_in_row + 1 END,
                    next_attempt_at = CASE WHEN (w.resend_asked_at >= w.leased_at + i.waited
                            OR w.resend_asked_at IS NOT NULL AND i.status <> 'DELIVERED') AND o.id IS NULL
                        THEN w.next_attempt_at ELSE coalesce(i.next, w.next_attempt_at) END,
                    lease_token = NULL, lease_until = NULL, leased_at = NULL,
                    finished = CASE WHEN (w.resend_asked_at >= w.leased_at + i.waited
                            OR w.resend_asked_at IS NOT NULL AND i.status <> 'DELIVERED') AND o.id IS NULL
                        THEN NULL ELSE i.finished END,
                    resend_asked_at = NULL
                FROM input i LEFT JOIN overtaken o ON o.id = i.event
                WHERE w.id = i.event AND w.lease_token = i.token
                RETURNING w.id, w.payment_id, w.seq, w.status, w.next_attempt_at, i.n),
            held_back AS (
                UPDATE webhook_events later SET next_attempt_at = settled.next_attempt_at
                FROM settled
                WHERE settled.status = 'PENDING' AND later.payment_id = settled.payment_id
                  AND later.seq > settled.seq AND later.status = 'PENDING'
                  AND later.next_attempt_at < settled.next_attempt_at)
            -- the attempt logs the event's status as settled, PENDING again when a resend was asked
            INSERT INTO webhook_attempts (event_id, payment_id, payment_state, attempt, url, started,
                duration_ms, status_code, error, event_status)
            SELECT settled.id, i.payment, i.state, i.attempt, i.url, i.started, i.duration, i.code, i.error,
                settled.status
            FROM settled JOIN input i ON i.n = settled.n
            ORDER BY i.n
            """)
        .bind("events", events).bind("tokens", tokens).bind("statuses", statuses).bind("nexts", nexts)
        .bind("finished", finished).bind("payments", payments).bind("states", states).bind("numbers", numbers)
        .bind("urls", urls).bind("started", started).bind("durations", durations).bind("codes", codes)
        .bind("errors", errors).bind("waited", waited)
        .execute());
  }

  @Override
  public void release(String leaseToken) {
    jdbi.useHandle(h -> h.createUpdate("""
            UPDATE webhook_events SET lease_token = NULL, lease_until = NULL, leased_at = NULL, resend_asked_at = NULL
            WHERE status = 'PENDING' AND (lease_token = :token OR starts_with(lease_token, :token || ':'))
            """).bind("token", leaseToken).execute());
  }

  /**
   * One instance at a time (a transaction's advisory lock; another finds it taken and leaves the
   * batch to it): two deleting the same rows in different orders could deadlock.
   *
   * <p>Attempts go oldest first by id (an attempt's id grows with the time it was recorded): a
   * batch reads only the first rows of the primary key. Events are gone through in {@code seq}
   * order from where the last batch stopped ({@code maintenance_positions}), up to the first one
   * written after the cutoff, or whose payment has an older event that must stay yet: one not
   * settled before the cutoff, or any while this one is pending. The position so stays the
   * retention behind: an event commits after it takes its {@code seq}, and one committed after a
   * later one was passed would be below the position, never gone through, and the event it
   * replaced kept for good. Each event passed replaces the older events of its payment,
   * settled before the cutoff, which go with their attempts (all of which started before they
   * settled). The events passed stay, each payment's newest among them; an older one replaced
   * later goes when the newer one is passed in turn.
   *
   * <p>An event's own settling time stops nothing: a resend settles it anew, and an old event
   * sent again held up the forgetting of every later event of every shop for the whole
   * retention after the resend.
   */
  @Override
  public int forgetDeliveriesBefore(Instant cutoff, int batch) {
    return jdbi.inTransaction(h -> {
      if (!h.createQuery("SELECT pg_try_advisory_xact_lock(hashtext('tollgate: webhook log retention'))")
          .mapTo(Boolean.class).one()) {
        return 0;
      }
      int attempts = h.createUpdate("""
              DELETE FROM webhook_attempts
              WHERE id IN (SELECT id FROM webhook_attempts ORDER BY id LIMIT :batch) AND started < :cutoff
              """)
          .bind("cutoff", cutoff).bind("batch", batch).execute();
      List<Map<String, Object>> passed = h.createQuery("""
              WITH batch AS (
                  SELECT seq, payment_id, status, created FROM webhook_events
                  WHERE seq > coalesce((SELECT position FROM maintenance_positions WHERE job = 'webhook events'), 0)
                  ORDER BY seq LIMIT :batch),
                frontier AS (
                  SELECT min(b.seq) AS seq FROM batch b
                  WHERE b.created >= :cutoff
                     OR EXISTS (SELECT 1 FROM webhook_events o
                                WHERE o.payment_id = b.payment_id AND o.seq < b.seq
                                  AND (b.status = 'PENDING' OR o.finished IS NULL OR o.finished >= :cutoff)))
              SELECT b.seq, b.payment_id FROM batch b, frontier f WHERE f.seq IS NULL OR b.seq < f.seq ORDER BY b.seq
              """)
          .bind("cutoff", cutoff).bind("batch", batch).mapToMap().list();
      if (passed.isEmpty()) {
        return attempts;
      }
      Long[] seqs = passed.stream().map(r -> ((Number) r.get("seq")).longValue()).toArray(Long[]::new);
      String[] payments = passed.stream().map(r -> (String) r.get("payment_id")).toArray(String[]::new);
      String replaced = """
          SELECT o.id FROM webhook_events o
          JOIN unnest(CAST(:seqs AS bigint[]), CAST(:payments AS bpchar[])) AS p(seq, payment_id)
            ON o.payment_id = p.payment_id AND o.seq < p.seq
          WHERE o.status <> 'PENDING' AND o.finished < :cutoff
          """;
      h.createUpdate("DELETE FROM webhook_attempts WHERE event_id IN (" + replaced + ")")
          .bind("seqs", seqs).bind("payments", payments).bind("cutoff", cutoff).execute();
      h.createUpdate("DELETE FROM webhook_events WHERE id IN (" + replaced + ")")
          .bind("seqs", seqs).bind("payments", payments).bind("cutoff", cutoff).execute();
      h.createUpdate("""
              INSERT INTO maintenance_positions (job, position) VALUES ('webhook events', :position)
              ON CONFLICT (job) DO UPDATE SET position = greatest(maintenance_positions.position, excluded.position)
              """)
          .bind("position", seqs[seqs.length - 1]).execute();
      return Math.max(attempts, passed.size());
    });
  }

  @Override
  public List<Attempt> attempts(PaymentId payment) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT event_id, payment_state, attempt, url, started, duration_ms, status_code, error, event_status
            FROM webhook_attempts WHERE payment_id = :payment ORDER BY id DESC
            """)
        .bind("payment", payment.value())
        .map(JdbiWebhookOutbox::attempt)
        .list());
  }

  @Override
  public Page<Attempt> attempts(PaymentId payment, int offset, int limit) {
    List<Attempt> rows = jdbi.withHandle(h -> h.createQuery("""
            SELECT event_id, payment_state, attempt, url, started, duration_ms, status_code, error, event_status
            FROM webhook_attempts WHERE payment_id = :payment ORDER BY id DESC LIMIT :limit OFFSET :offset
            """)
        .bind("payment", payment.value()).bind("limit", limit + 1).bind("offset", offset)
        .map(JdbiWebhookOutbox::attempt)
        .list());
    return new Page<>(rows.subList(0, Math.min(limit, rows.size())), rows.size() > limit);
  }

  private static Attempt attempt(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
      throws java.sql.SQLException {
    return new Attempt(rs.getString("event_id"), PaymentState.valueOf(rs.getString("payment_state")),
        rs.getInt("attempt"), rs.getString("url"), rs.getTimestamp("started").toInstant(),
        Duration.ofMillis(rs.getLong("duration_ms")), (Integer) rs.getObject("status_code"),
        rs.getString("error"), Status.valueOf(rs.getString("event_status")));
  }

  @Override
  public Optional<EventSummary> latestEvent(PaymentId payment) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT id, payment_state, status, attempts, created FROM webhook_events
            WHERE payment_id = :payment ORDER BY seq DESC LIMIT 1
            """)
        .bind("payment", payment.value())
        .map((rs, ctx) -> new EventSummary(rs.getString("id"), PaymentState.valueOf(rs.getString("payment_state")),
            Status.valueOf(rs.getString("status")), rs.getInt("attempts"), rs.getTimestamp("created").toInstant()))
        .findOne());
  }

  @Override
  public long pendingCount() {
    return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_events WHERE status = 'PENDING'")
        .mapTo(Long.class).one());
  }

  /**
   * The payment's earlier events still pending go first, in order (the claim holds the event
   * back until they are settled): those waiting for a retry are made due now too, with a fresh
   * schedule, or the resend would wait for that retry, up to a day. One being delivered is left
   * to its delivery.
   *
   * <p>The payment's row is locked first: every state change updates it in the transaction that
   * writes its event. A change not yet committed is waited for, and the check for a newer event,
   * made in a statement after the lock, sees its event; one begun meanwhile waits for this
   * resend. Without the lock the check read the outbox as it was before a capture committed,
   * and a claim could send the capture's event before the older one sent again, out of order.
   */
  @Override
  public void requeue(String eventId, Instant now) {
    jdbi.useTransaction(h -> {
      // FOR SHARE: it conflicts with a state change's update of the row, not with other resends
      h.createQuery("""
              SELECT p.id FROM payments p
              WHERE p.id = (SELECT payment_id FROM webhook_events WHERE id = :id)
              FOR SHARE OF p
              """).bind("id", UUID.fromString(eventId)).mapTo(String.class).findOne();
      h.createUpdate("""
              WITH resent AS (
                  UPDATE webhook_events w
                  SET status = 'PENDING', failures_in_row = 0, next_attempt_at = :now, finished = NULL,
                      -- claimed: sent again once its delivery has ended, however it ends, if that
                      -- delivery began before this (settle's rule); by the database's clock
                      resend_asked_at = CASE WHEN w.status = 'PENDING' AND w.lease_token IS NOT NULL
                          THEN statement_timestamp() END
                  WHERE id = :id
                    -- only while it is the payment's newest: an older one sent again after a newer
                    -- state's event went out would tell the receiver the payment went back
                    AND NOT EXISTS (SELECT 1 FROM webhook_events n
                                    WHERE n.payment_id = w.payment_id AND n.seq > w.seq)
                  RETURNING w.payment_id, w.seq)
              UPDATE webhook_events earlier
              SET failures_in_row = 0, next_attempt_at = least(earlier.next_attempt_at, :now)
              FROM resent
              WHERE earlier.payment_id = resent.payment_id AND earlier.seq < resent.seq
                AND earlier.status = 'PENDING' AND earlier.lease_token IS NULL
              """).bind("id", UUID.fromString(eventId)).bind("now", now).execute();
    });
  }
}
