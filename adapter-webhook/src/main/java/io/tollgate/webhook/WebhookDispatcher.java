package io.tollgate.webhook;

import io.tollgate.application.port.in.WebhookDeliveryUseCase;
import io.tollgate.application.port.in.WebhookDeliveryUseCase.Delivery;
import io.tollgate.application.port.in.WebhookDeliveryUseCase.Reported;
import io.tollgate.application.port.in.WebhookDeliveryUseCase.Result;
import io.tollgate.application.port.out.DestinationPolicy;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import io.tollgate.domain.shop.ShopId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.client.ProxyAuthenticationProtocolHandler;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.WWWAuthenticationProtocolHandler;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the webhook outbox: leases due events, POSTs each signed body to its URL, and reports
 * every attempt so the application can schedule the retry. Many payments go out in parallel;
 * the lease query hands out only the oldest pending event of a payment, so each payment's
 * events arrive in order.
 *
 * <p>Attempts are recorded by one thread, as many at once as have finished meanwhile, in one
 * transaction: one commit (and one wait for the database's log to reach the disk) for a batch
 * instead of one per delivery. A delivery keeps its slot until its attempt is recorded, so the
 * recording cannot fall behind the sending.
 *
 * <p>Closing stops leasing, lets deliveries in flight finish (each is bounded by the request
 * timeout), records their attempts and gives back what was leased but not sent. An instance that dies keeps nothing:
 * its leases run out and other instances take the events over.
 */
public final class WebhookDispatcher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookDispatcher.class);

  /** The most attempts recorded in one transaction. */
  private static final int RECORD_BATCH = 128;
  private static final int MAX_ERROR_LENGTH = 500;
  /**
   * The most bytes of a receiver's status line, headers and trailers read; an answer with more
   * is cut short there, which fails the attempt unless a 2xx head already came (see
   * {@link #exchange}). Jetty's client reads any amount unless told, and a receiver that kept
   * sending header lines had them all held in memory until the request timed out.
   */
  static final int MAX_ANSWER_HEAD_BYTES = 16 * 1024;

  /**
   * @param parallelism deliveries in flight at once
   * @param pollInterval how long to wait before looking again when nothing was due
   * @param requestTimeout how long a receiver has to answer (the contract says 10 s)
   * @param lease how long a leased event stays ours; longer than the request timeout
   */
  public record Settings(int parallelism, Duration pollInterval, Duration requestTimeout, Duration lease,
      String userAgent) {

    public Settings {
      if (parallelism < 1) {
        throw new IllegalArgumentException("parallelism must be at least 1");
      }
      if (lease.compareTo(requestTimeout.multipliedBy(2)) < 0) {
        throw new IllegalArgumentException("the lease must outlast a delivery: at least twice the request timeout");
      }
    }

    public static Settings defaults(String version) {
      return new Settings(16, Duration.ofMillis(250), Duration.ofSeconds(10), Duration.ofMinutes(2),
          "Tollgate-Webhooks/" + version);
    }
  }

  private final WebhookDeliveryUseCase deliveries;
  private final DestinationPolicy destinations;
  private final Settings settings;
  private final Clock clock;
  private final HttpClient http;
  private final String leaseToken = UUID.randomUUID().toString();
  /** Claims made so far; the poller's alone. */
  private long claims;
  private final Semaphore slots;
  private final ExecutorService senders;
  private final Thread poller;
  private final Thread recorder;
  private final BlockingQueue<Reported> toRecord = new LinkedBlockingQueue<>();
  private volatile boolean sending = true;
  private final AtomicInteger inFlight = new AtomicInteger();
  /** Deliveries each shop has in flight and waiting; guarded by this dispatcher's lock. */
  private final Map<ShopId, ShopLoad> shopLoads = new HashMap<>();
  /** Released when a delivery's slot frees up: wakes a poller that waits on busy shops. */
  private final Semaphore slotFreed = new Semaphore(0);
  /** Deliveries of one shop in flight from which claims prefer other shops' events: half the slots. */
  private final int shopShare;
  /**
   * The most deliveries one shop may have in flight: all the slots but a quarter, kept for
   * other shops. A shop goes past its share only when no other shop has an event due.
   */
  private final int shopCeiling;
  /**
   * Slots kept for shops that send nothing yet: the quarter above {@link #shopCeiling}. Each shop
   * stays within its ceiling, but two shops whose receivers hang could hold every slot between
   * them; once only the reserve is free, claims pass over every shop already sending, and a shop
   * that sends already gets no slot of the reserve from a claim.
   */
  private final int reserve;
  private volatile boolean running = true;
  private final MeterRegistry metrics;
  private final Timer lag;

  public WebhookDispatcher(WebhookDeliveryUseCase deliveries, DestinationPolicy destinations, Settings settings,
      Clock clock) {
    this(deliveries, destinations, settings, clock, new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
  }

  /**
   * @param metrics receives {@code tollgate.webhooks.attempts} (by outcome),
   *     {@code tollgate.webhooks.lag} (event written to delivered; resends left out) and
   *     {@code tollgate.webhooks.inflight}
   */
  public WebhookDispatcher(WebhookDeliveryUseCase deliveries, DestinationPolicy destinations, Settings settings,
      Clock clock, MeterRegistry metrics) {
    this.metrics = metrics;
    // a delivery after a retry is minutes late, one after a backlog or an outage hours: the
    // histogram's buckets reach three days (Micrometer's default range ends at 30 s)
    this.lag = Timer.builder("tollgate.webhooks.lag").description("from the state change to its delivery")
        .publishPercentileHistogram().maximumExpectedValue(Duration.ofDays(3)).register(metrics);
    io.micrometer.core.instrument.Gauge.builder("tollgate.webhooks.inflight", inFlight, AtomicInteger::get)
        .description("deliveries in flight in this instance").register(metrics);
    this.deliveries = deliveries;
    this.destinations = destinations;
    this.settings = settings;
    this.clock = clock;
    this.slots = new Semaphore(settings.parallelism());
    this.shopShare = Math.max(1, settings.parallelism() / 2);
    this.shopCeiling = Math.max(shopShare, settings.parallelism() - Math.max(1, settings.parallelism() / 4));
    this.reserve = settings.parallelism() - shopCeiling;
    AtomicInteger n = new AtomicInteger();
    this.senders = Executors.newFixedThreadPool(settings.parallelism(), r -> {
      Thread t = new Thread(r, "webhook-sender-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.http = newClient(destinations, settings);
    this.poller = new Thread(this::poll, "webhook-dispatcher");
    this.poller.setDaemon(true);
    this.recorder = new Thread(this::record, "webhook-recorder");
    this.recorder.setDaemon(true);
  }

  /**
   * Jetty's client rather than the JDK's, because it lets us choose the addresses a connection
   * goes to. It sends HTTP/1.1, follows no redirects, keeps no cookies and opens as many
   * connections to one receiver as deliveries can be in flight.
   */
  private static HttpClient newClient(DestinationPolicy destinations, Settings settings) {
    SslContextFactory.Client tls = new SslContextFactory.Client();
    // the receiver's certificate must name the URL's host, whichever of its addresses we reach
    tls.setEndpointIdentificationAlgorithm("HTTPS");
    ClientConnector connector = new ClientConnector();
    connector.setSslContextFactory(tls);
    HttpClient http = new HttpClient(new HttpClientTransportOverHTTP(connector));
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("webhook-http");
    threads.setDaemon(true);
    http.setExecutor(threads);
    http.setScheduler(new ScheduledExecutorScheduler("webhook-http-scheduler", true));
    http.setFollowRedirects(false);
    http.setHttpCookieStore(new HttpCookieStore.Empty());
    http.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, settings.userAgent()));
    http.setConnectTimeout(settings.requestTimeout().toMillis());
    // An idle connection closes after Jetty's 30 s, or after the request timeout if that is
    // longer: idleness must not end an attempt before its own timeout does.
    long idle = Math.max(30_000, settings.requestTimeout().toMillis() + 1_000);
    http.setIdleTimeout(idle);
    // a receiver nobody sends to any more is forgotten, with its pool, rather than kept for good
    http.setDestinationIdleTimeout(idle);
    http.setMaxConnectionsPerDestination(settings.parallelism());
    // counts the status line, the headers and a chunked body's trailers
    http.setMaxResponseHeadersSize(MAX_ANSWER_HEAD_BYTES);
    // With PublicDestinations the client connects only to addresses it let through, from the
    // lookup it judged: a lookup of the client's own could answer otherwise. Other policies judge
    // no addresses (ALLOW_ALL in the sandbox and in tests, which send to receivers on this
    // machine), and there the client looks hosts up itself.
    if (destinations instanceof PublicDestinations publicOnly) {
      http.setSocketAddressResolver(new PublicAddressResolver(publicOnly, threads));
    }
    return http;
  }

  public WebhookDispatcher start() {
    try {
      http.start();
    } catch (Exception e) {
      throw new IllegalStateException("could not start the webhook HTTP client", e);
    }
    // Added by start, and not ours: a decoder would ask receivers to compress the body we
    // drop, and the authentication handlers would buffer a 401's or 407's body and fail the
    // attempt when it is large, where we only want its status.
    http.getContentDecoderFactories().clear();
    http.getProtocolHandlers().remove(WWWAuthenticationProtocolHandler.NAME);
    http.getProtocolHandlers().remove(ProxyAuthenticationProtocolHandler.NAME);
    recorder.start();
    poller.start();
    return this;
  }

  private void poll() {
    while (running) {
      int free = 0;
      try {
        slots.acquire();
        free = 1 + slots.drainPermits();
        // only the reserve is left: it is claimed for shops that send nothing yet
        boolean reserveOnly = free <= reserve;
        // a token per claim: an attempt whose lease ran out cannot settle the event leased again
        List<ShopId> busy = shopsSending(reserveOnly ? 1 : shopShare);
        // the leases run from the database's claim, after this: their end is no earlier than this
        long leasedUntil = System.nanoTime() + settings.lease().toNanos();
        List<Delivery> due = running
            ? deliveries.claim(leaseToken + ":" + ++claims, free, settings.lease(), busy) : List.of();
        int room = free - due.size() - reserve;
        if (running && !reserveOnly && room > 0 && !busy.isEmpty()) {
          // Nothing else is due: a shop past its share may have the slots left, but the reserve.
          // Capped at its share alone, one shop could not send faster than half the slots'
          // round trips allow (the bench's S1 outran that and its webhooks fell behind).
          List<ShopId> full = shopsSending(shopCeiling);
          if (full.size() < busy.size()) {
            List<Delivery> more = deliveries.claim(leaseToken + ":" + ++claims, room, settings.lease(), full);
            if (!more.isEmpty()) {
              due = new ArrayList<>(due);
              due.addAll(more);
            }
          }
        }
        // after the claims answered, so after the database stamped their leases: a delivery's wait
        // counted from here is never longer than it was (see Result.waited)
        long claimed = System.nanoTime();
        List<Delivery> now = admit(due, leasedUntil, claimed, settings.parallelism() - free);
        slots.release(free - now.size());
        inFlight.addAndGet(now.size());
        free = 0;
        // A claim slow to answer (signing keys read one shop at a time, a pool short of
        // connections) may have used up the leases: those events are left to the next claim,
        // as a parked delivery is, not sent beside it.
        boolean inTime = outlasts(leasedUntil);
        for (Delivery d : now) {
          if (inTime) {
            send(d, claimed, false, leasedUntil);
          } else {
            LOG.debug("webhook event {} was claimed too late to send in its lease; left to the next claim",
                d.eventId());
            done(d);
          }
        }
        if (due.isEmpty()) {
          if (busy.isEmpty()) {
            Thread.sleep(settings.pollInterval().toMillis());
          } else {
            // a busy shop's events may be due: claim again as soon as one of its slots frees up
            // (a permit left from before the claim only costs one claim more)
            if (reserveOnly || anyBusyShop()) {
              slotFreed.tryAcquire(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
            }
            slotFreed.drainPermits();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException | Error e) {
        // the slots taken for a claim that failed are free again: kept, they would stall the dispatcher
        slots.release(free);
        if (e instanceof Error) {
          // Nothing may end this thread, an Error neither (a class the jar replaced under a running
          // service, memory short for a moment): no webhook would go out of this instance again.
          LOG.error("leasing webhook events failed with an error; trying again shortly", e);
        } else {
          LOG.warn("could not lease webhook events; trying again shortly: {}", e.toString());
        }
        sleepQuietly(Math.max(1000, settings.pollInterval().toMillis()));
      }
    }
  }

  /**
   * Sends a delivery in the slot it holds; the slot is given on when its attempt is recorded.
   *
   * @param claimedNanos when its claim answered, by {@link System#nanoTime}
   * @param waited whether it waited for a slot of its shop: it is sent with the shop's signing
   *     keys and URL as they are now, not as they were at its claim (up to the lease's wait
   *     before), and only if its lease still leaves the attempt its time once they are read
   * @param leasedUntilNanos when its lease ends at the earliest, for one that waited
   */
  private void send(Delivery claimed, long claimedNanos, boolean waited, long leasedUntilNanos) {
    senders.execute(() -> {
      Delivery d = waited ? refreshed(claimed) : claimed;
      if (waited && !outlasts(leasedUntilNanos)) {
        // the reads took what the lease had left (a pool short of connections): left to the next
        // claim, as a parked delivery whose lease runs short is, not sent beside it
        LOG.debug("webhook event {} waited past its lease; it is left to the next claim", d.eventId());
        done(d);
        return;
      }
      Reported sent = null;
      try {
        sent = new Reported(d, deliver(d, claimedNanos));
      } finally {
        if (sent == null) {
          done(d);
        } else {
          toRecord.add(sent);
        }
      }
    });
  }

  /** {@link WebhookDeliveryUseCase#refreshed}, or the delivery as claimed when that cannot be read. */
  private Delivery refreshed(Delivery claimed) {
    try {
      return deliveries.refreshed(claimed);
    } catch (RuntimeException e) {
      LOG.warn("webhook event {}: its shop's keys could not be read again; sent as claimed: {}", claimed.eventId(),
          e.toString());
      return claimed;
    }
  }

  /**
   * Of the claimed deliveries, those their shops may have sent now; the others wait, leased,
   * for one of their shop's deliveries to end. A shop sends at most {@link #shopCeiling} at
   * once, and once it sends {@link #shopShare} the claims pass its events over unless no other
   * shop's are due: a receiver that hangs holds up its own shop's webhooks, not every shop's
   * (with one queue for all, 160 webhooks to a receiver that never answered held another
   * shop's for 99 s, in review). Nor does a shop that sends already get a slot of the
   * {@link #reserve}, whatever its share: two shops whose receivers hang would hold them all.
   *
   * @param claimedNanos when their claim answered
   * @param inUse the slots taken before these deliveries (sending, or recording their attempts)
   */
  private synchronized List<Delivery> admit(List<Delivery> due, long leasedUntil, long claimedNanos, int inUse) {
    List<Delivery> now = new ArrayList<>(due.size());
    for (Delivery d : due) {
      ShopLoad load = shopLoads.computeIfAbsent(d.event().shopId(), id -> new ShopLoad());
      if (load.sending < shopCeiling && (load.sending == 0 || inUse < shopCeiling)) {
        load.sending++;
        inUse++;
        now.add(d);
      } else {
        load.waiting.add(new Parked(d, leasedUntil, claimedNanos));
      }
    }
    return now;
  }

  /**
   * A claimed delivery waiting for a slot of its shop, when its lease ends at the earliest, and
   * when its claim answered: a resend asked while it waits is answered by its delivery, which
   * reports how long it waited.
   */
  private record Parked(Delivery delivery, long leasedUntilNanos, long claimedNanos) {}

  /**
   * The next delivery of a shop that may still be sent: one whose lease would end before its
   * attempt could (a slot that freed up late, records that were slow to write) is not sent,
   * since once its lease ends another claim may send the same event at the same time; it is
   * left to that claim, and passed over here.
   */
  private Parked nextSendable(ShopLoad load) {
    Parked next;
    while ((next = load.waiting.poll()) != null) {
      if (outlasts(next.leasedUntilNanos())) {
        return next;
      }
      LOG.debug("webhook event {} waited past its lease; it is left to the next claim", next.delivery().eventId());
    }
    return null;
  }

  /** Whether a lease ending then leaves an attempt its timeout, and half as long again to record it. */
  private boolean outlasts(long leasedUntilNanos) {
    return leasedUntilNanos - System.nanoTime() > settings.requestTimeout().toNanos() * 3 / 2;
  }

  private synchronized boolean anyBusyShop() {
    return shopLoads.values().stream().anyMatch(load -> load.sending >= shopShare);
  }

  /** The shops that send at least {@code deliveries} webhooks at once. */
  private synchronized List<ShopId> shopsSending(int deliveries) {
    List<ShopId> busy = new ArrayList<>();
    shopLoads.forEach((shop, load) -> {
      if (load.sending >= deliveries) {
        busy.add(shop);
      }
    });
    return busy;
  }

  /**
   * A delivery's attempt has ended (and is recorded): its slot goes to the next delivery of its
   * shop that waits, else it is free again.
   */
  private void done(Delivery finished) {
    Parked next;
    synchronized (this) {
      ShopLoad load = shopLoads.get(finished.event().shopId());
      next = running && load != null ? nextSendable(load) : null;
      if (next == null && load != null) {
        load.sending--;
        if (load.sending <= 0 && load.waiting.isEmpty()) {
          shopLoads.remove(finished.event().shopId());
        }
      }
    }
    if (next != null) {
      try {
        send(next.delivery(), next.claimedNanos(), true, next.leasedUntilNanos());
        return;
      } catch (java.util.concurrent.RejectedExecutionException stopping) {
        // closing: the waiting delivery stays leased until close() releases this instance's leases
        synchronized (this) {
          ShopLoad load = shopLoads.get(finished.event().shopId());
          if (load != null) {
            load.sending--;
          }
        }
      }
    }
    inFlight.decrementAndGet();
    slots.release();
    slotFreed.release();
  }

  /** What one shop's webhooks hold of this dispatcher. */
  private static final class ShopLoad {
    int sending;
    final ArrayDeque<Parked> waiting = new ArrayDeque<>();
  }

  /** Records finished attempts in batches until the senders have stopped and all are recorded. */
  private void record() {
    List<Reported> batch = new ArrayList<>(RECORD_BATCH);
    while (true) {
      try {
        Reported first = toRecord.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          if (!sending && toRecord.isEmpty()) {
            return;
          }
          continue;
        }
        batch.add(first);
        toRecord.drainTo(batch, RECORD_BATCH - 1);
        deliveries.reportAll(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException | Error e) {
        // Nothing may end this thread: every delivery slot would stay taken for good. Attempts
        // left unrecorded are sent again once their lease ends.
        try {
          if (e instanceof RuntimeException failure) {
            recordOneByOne(batch, failure);
          } else {
            LOG.error("recording {} webhook attempts failed with an error; they are sent again", batch.size(), e);
          }
        } catch (RuntimeException | Error again) {
          LOG.error("recording {} webhook attempts one by one failed; they are sent again", batch.size(), again);
        }
      } finally {
        for (Reported r : batch) {
          done(r.delivery());
        }
        batch.clear();
      }
    }
  }

  /**
   * After a batch could not be recorded, records its attempts one at a time, so that one that
   * cannot be stored does not take the others' outcomes with it (they would be sent again,
   * although their receivers had answered). An attempt that still fails is sent again when its
   * lease runs out: at least once, never lost.
   */
  void recordOneByOne(List<Reported> batch, RuntimeException batchFailure) {
    if (batch.size() == 1) {
      LOG.warn("could not record a webhook attempt: {}", batchFailure.toString());
      return;
    }
    int failed = 0;
    RuntimeException last = batchFailure;
    for (Reported one : batch) {
      try {
        deliveries.reportAll(List.of(one));
      } catch (RuntimeException e) {
        failed++;
        last = e;
      }
    }
    if (failed > 0) {
      LOG.warn("could not record {} of {} webhook attempts: {}", failed, batch.size(), last.toString());
    }
  }

  /**
   * The {@code Webhook-Signature} value: with the signing key, and for a day after a key issue
   * also with the key it replaced, space-separated as Standard Webhooks lists several, so that a
   * receiver verifies with either while it changes keys.
   */
  private static String standardSignatures(Delivery d, long sent) {
    String current = WebhookSignature.standard(d.signingKey(), d.eventId(), sent, d.body());
    return d.previousSigningKey() == null ? current
        : current + " " + WebhookSignature.standard(d.previousSigningKey(), d.eventId(), sent, d.body());
  }

  private Result deliver(Delivery d, long claimedNanos) {
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    Duration waited = Duration.ofNanos(Math.max(0, t0 - claimedNanos));
    Integer status = null;
    String error = null;
    try {
      error = problemBeforeSending(d);
      if (error == null) {
        long sent = clock.instant().getEpochSecond();
        URI target = URI.create(d.url());
        Request request = http.newRequest(target)
            .method(HttpMethod.POST)
            .timeout(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
            .headers(h -> h.put("Signature", WebhookSignature.sign(d.signingKey(), d.body()))
                .put("Webhook-Id", d.eventId())
                .put("Webhook-Timestamp", Long.toString(sent))
                .put("Webhook-Signature", standardSignatures(d, sent)))
            .body(new BytesRequestContent("application/json", d.body()));
        if (target.getUserInfo() != null) {
          // a URL with credentials (https://user:password@host/...) is answered with them, as
          // Basic authentication: left out, the receiver refused every webhook with a 401. A
          // token alone (https://token@host/...) is a user with an empty password, as curl sends
          // it: without the colon RFC 7617's receivers cannot read it, and refused every webhook.
          String credentials = target.getUserInfo().indexOf(':') < 0 ? target.getUserInfo() + ":"
              : target.getUserInfo();
          request.headers(h -> h.put("Authorization", "Basic " + java.util.Base64.getEncoder()
              .encodeToString(credentials.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        }
        Answer answer = exchange(request);
        status = answer.status();
        error = answer.error();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      error = "interrupted by shutdown";
    } catch (IllegalArgumentException e) {
      error = "invalid URL: " + e.getMessage();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    Result result = new Result(started, took, status, printable(error), waited);
    metrics.counter("tollgate.webhooks.attempts", "outcome", result.delivered() ? "delivered"
        : status != null ? "http_" + (status / 100) + "xx" : "error").increment();
    if (result.delivered() && !d.event().requeued()) {
      // a resend is no state change: an event sent again 60 days on was recorded as 60 days late
      lag.record(Duration.between(d.event().created(), clock.instant()));
    }
    if (!result.delivered()) {
      LOG.info(failureLine(d, status != null ? "HTTP " + status : result.error()));
    }
    return result;
  }

  /** How an exchange ended: the receiver's status, or why there is none. */
  private record Answer(Integer status, String error) {
  }

  /**
   * Sends one attempt and waits for the receiver's whole answer, within the request timeout from
   * start to end; its body is read and dropped. The timeout holds for the body too: a receiver
   * that trickles or never ends its body would otherwise hold the delivery's slot past its lease,
   * and the event would be claimed and sent again while the first attempt still waited. A 2xx
   * status that came in time is success (CONTRACT §6), however slowly its body follows and
   * however it ends.
   */
  private Answer exchange(Request request) throws InterruptedException {
    AtomicInteger answered = new AtomicInteger();
    BlockingQueue<org.eclipse.jetty.client.Result> ended = new LinkedBlockingQueue<>();
    request.onResponseHeaders(response -> answered.set(response.getStatus())).send(ended::add);
    org.eclipse.jetty.client.Result result;
    try {
      result = ended.take();
    } catch (InterruptedException e) {
      request.abort(e);
      throw e;
    }
    if (result.isSucceeded()) {
      return new Answer(result.getResponse().getStatus(), null);
    }
    Throwable failure = result.getFailure();
    int status = answered.get();
    if (status >= 200 && status < 300) {
      // The receiver took the event once its 2xx head came in time (a timeout ends the exchange
      // before any later head is seen). Whatever cut the body short after it, a timeout, a close
      // or a reset, counted as failure would send the event again, up to ten times, and show the
      // merchant failed deliveries of a webhook it had accepted.
      return new Answer(status, null);
    }
    return new Answer(null, whyFailed(failure));
  }

  /**
   * What a failed exchange is reported with. Jetty's own message is not used where it
   * describes its connection object, which names our local address.
   */
  private String whyFailed(Throwable failure) {
    if (failure instanceof PublicDestinations.Refused refused) {
      return "destination refused: " + refused.getMessage();
    }
    if (failure instanceof TimeoutException || failure instanceof SocketTimeoutException) {
      return "no complete answer within " + settings.requestTimeout().toSeconds() + " s";
    }
    if (failure instanceof ConnectException || failure instanceof UnknownHostException) {
      return "connection refused or unreachable";
    }
    if (failure instanceof HttpResponseException) {
      return "connection failed: the answer is not HTTP"
          + (failure.getCause() instanceof HttpException bad ? " (" + bad.getReason() + ")" : "");
    }
    if (failure instanceof EOFException) {
      return "connection failed: closed before a complete answer";
    }
    return "connection failed: " + (failure.getMessage() == null ? failure.getClass().getSimpleName()
        : failure.getMessage());
  }

  /**
   * An attempt's error as it may be stored and logged. An error may quote what a receiver sent,
   * and those bytes may hold a NUL, which PostgreSQL refuses in text, or control characters that
   * forge log lines: each such character becomes '?', as does half of a surrogate pair, and the
   * text is cut at 500 characters.
   */
  static String printable(String error) {
    if (error == null) {
      return null;
    }
    int length = Math.min(error.length(), MAX_ERROR_LENGTH);
    StringBuilder out = new StringBuilder(length + 1);
    for (int i = 0; i < length; i++) {
      char c = error.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(error.charAt(i + 1))) {
        out.append(c).append(error.charAt(++i));
      } else if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
        out.append('?');
      } else {
        out.append(c);
      }
    }
    return error.length() > MAX_ERROR_LENGTH ? out.append('…').toString() : out.toString();
  }

  /**
   * The log line of an attempt that failed: where it went and why, or, for an event with no
   * URL to send to, that it was not sent.
   */
  static String failureLine(Delivery d, String why) {
    String event = "webhook " + d.eventId() + " of payment " + d.event().paymentId().value();
    return d.url() == null
        ? event + " not sent (attempt " + d.attempt() + "): " + why
        : event + " to " + forLog(d.url()) + " failed (attempt " + d.attempt() + "): " + why;
  }

  /**
   * A receiver's URL as the log may show it: scheme, host and port, and of its path only the first 8 hex digits
   * of its SHA-256, which tell a shop's receivers apart and let an operator check a URL they have in hand
   * ({@code printf %s /the/path | sha256sum}). A password in its user part, a token in its query, and for many a
   * receiver (Slack, Discord, Zapier) the path itself, are the merchant's secret: each failed attempt logged it.
   */
  static String forLog(String url) {
    if (url == null) {
      return null;
    }
    try {
      URI uri = URI.create(url);
      String origin = uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
      String path = uri.getRawPath();
      return path == null || path.isEmpty() || path.equals("/") ? origin + (path == null ? "" : path)
          : origin + " (path sha-256 " + pathFingerprint(path) + ")";
    } catch (IllegalArgumentException e) {
      return "(an unreadable URL)";
    }
  }

  private static String pathFingerprint(String path) {
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(path.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(digest, 0, 4);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private String problemBeforeSending(Delivery d) {
    if (d.unsendable() != null) {
      return d.unsendable();
    }
    if (d.url() == null) {
      return "neither the payment nor the shop has a webhook URL";
    }
    if (d.signingKey() == null) {
      return "the shop has no signing key in this environment";
    }
    if (destinations instanceof PublicDestinations) {
      // The client's resolver looks the host up and judges it inside the request, where the
      // request's timeout bounds the lookup too: looked up here first, a slow or unanswered DNS
      // server could hold the attempt past its lease, and another instance would send the same
      // event meanwhile. Here only what needs no lookup.
      return PublicDestinations.refusalWithoutLookup(d.url()).map(r -> "destination refused: " + r).orElse(null);
    }
    Optional<String> refused = destinations.refusal(d.url());
    return refused.map(r -> "destination refused: " + r).orElse(null);
  }

  /** Whether the dispatcher is leasing and sending (false once closed or if its thread died). */
  public boolean isRunning() {
    return running && poller.isAlive() && recorder.isAlive();
  }

  /** Deliveries in flight right now. */
  public int inFlight() {
    return inFlight.get();
  }

  @Override
  public void close() {
    running = false;
    poller.interrupt();
    try {
      poller.join(5_000);
      senders.shutdown();
      long wait = settings.requestTimeout().plusSeconds(2).toMillis();
      if (!senders.awaitTermination(wait, TimeUnit.MILLISECONDS)) {
        senders.shutdownNow();
      }
      sending = false;
      recorder.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      senders.shutdownNow();
    }
    try {
      http.stop();
    } catch (Exception e) {
      LOG.warn("could not stop the webhook HTTP client: {}", e.toString());
    }
    try {
      deliveries.release(leaseToken);
    } catch (RuntimeException e) {
      LOG.warn("could not release leased webhook events; they come due when the lease runs out: {}", e.toString());
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
