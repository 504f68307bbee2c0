package io.tollgate.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.tollgate.application.port.in.WebhookDeliveryUseCase;
import io.tollgate.application.port.out.DestinationPolicy;
import io.tollgate.application.port.out.WebhookOutbox.ClaimedEvent;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.application.port.in.WebhookDeliveryUseCase.Delivery;
import io.tollgate.application.port.in.WebhookDeliveryUseCase.Reported;
import io.tollgate.application.port.in.WebhookDeliveryUseCase.Result;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatcher against a real HTTP receiver, with the outbox replaced by a fake whose claims
 * answer by call number: what it sends and what it reports when the outbox fails.
 */
class WebhookDispatcherTest {

  private HttpServer receiver;
  private ExecutorService receiverThreads;
  private final CountDownLatch slowBodyEnds = new CountDownLatch(1);
  private final List<String> received = new CopyOnWriteArrayList<>();
  /** The {@code Signature} header of each event the slow receivers got, by event id. */
  private final java.util.Map<String, String> signatures = new java.util.concurrent.ConcurrentHashMap<>();

  @BeforeEach
  void startReceiver() throws Exception {
    receiverThreads = Executors.newCachedThreadPool();
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.setExecutor(receiverThreads);
    receiver.createContext("/hooks", this::accept);
    // answer 200 (or 500) at once, then start a body they do not finish
    receiver.createContext("/slow-body", slowBody(200));
    receiver.createContext("/slow-body-500", slowBody(500));
    receiver.start();
  }

  private void accept(com.sun.net.httpserver.HttpExchange exchange) throws java.io.IOException {
    received.add(exchange.getRequestHeaders().getFirst("Webhook-Id"));
    exchange.getRequestBody().readAllBytes();
    exchange.sendResponseHeaders(200, -1);
    exchange.close();
  }

  private com.sun.net.httpserver.HttpHandler slowBody(int status) {
    return exchange -> {
      received.add(exchange.getRequestHeaders().getFirst("Webhook-Id"));
      signatures.put(exchange.getRequestHeaders().getFirst("Webhook-Id"),
          exchange.getRequestHeaders().getFirst("Signature"));
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(status, 0);
      exchange.getResponseBody().write('{');
      exchange.getResponseBody().flush();
      try {
        slowBodyEnds.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.close();
    };
  }

  @AfterEach
  void stopReceiver() {
    slowBodyEnds.countDown();
    receiver.stop(0);
    receiverThreads.shutdownNow();
  }

  private ClaimedEvent event(String leaseToken) {
    return event(leaseToken, "/hooks");
  }

  private ClaimedEvent event(String leaseToken, String path) {
    return event(leaseToken, path, 1);
  }

  private ClaimedEvent event(String leaseToken, String path, long shop) {
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + path;
    return new ClaimedEvent(UUID.randomUUID().toString(), leaseToken, new PaymentId("ab".repeat(16)),
        new ShopId(shop), PaymentState.COMPLETED, url, null, "{}".getBytes(StandardCharsets.UTF_8), 0, 0, Instant.now());
  }

  /** An outbox whose claims answer from {@code claims}, by call number from 1. */
  private static class FakeOutbox implements WebhookDeliveryUseCase {
    final AtomicInteger claimCalls = new AtomicInteger();
    final List<Reported> reported = new CopyOnWriteArrayList<>();
    final List<String> claimTokens = new CopyOnWriteArrayList<>();
    final List<String> released = new CopyOnWriteArrayList<>();
    final IntFunction<List<ClaimedEvent>> claims;

    FakeOutbox(IntFunction<List<ClaimedEvent>> claims) {
      this.claims = claims;
    }

    final List<List<ShopId>> skipped = new CopyOnWriteArrayList<>();
    /** The shop's signing key from now on, once the test issues one; null while it is the claims'. */
    volatile String issuedKey;
    /** How long reading a delivery's keys again takes. */
    volatile Duration readingAgain = Duration.ZERO;

    @Override
    public Delivery refreshed(Delivery delivery) {
      try {
        Thread.sleep(readingAgain.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return issuedKey == null ? delivery : new Delivery(delivery.event(), delivery.url(), issuedKey);
    }

    @Override
    public List<Delivery> claim(String leaseToken, int limit, Duration lease, List<ShopId> skippedShops) {
      claimTokens.add(leaseToken);
      skipped.add(skippedShops);
      return claims.apply(claimCalls.incrementAndGet()).stream().map(e -> new Delivery(e, e.url(), "whsec_test"))
          .toList();
    }

    @Override
    public void reportAll(List<Reported> reports) {
      reported.addAll(reports);
    }

    @Override
    public void release(String leaseToken) {
      released.add(leaseToken);
    }
  }

  /**
   * The request timeout of the tests whose receivers hang: far longer than any test waits, so
   * that an attempt ended by it is never mistaken, on a slow machine, for one that went out at
   * once. Such a test lets its receivers answer before it closes the dispatcher, which waits
   * for the attempts in flight.
   */
  private static final Duration HANGING_TIMEOUT = Duration.ofSeconds(60);
  /** Well before {@link #HANGING_TIMEOUT}: what is sent at once is sent within this. */
  private static final Duration AT_ONCE = Duration.ofSeconds(20);

  /** Four slots, the {@link #HANGING_TIMEOUT}, and a lease that leaves an attempt all of it. */
  private static WebhookDispatcher.Settings hangingReceiverSettings() {
    return new WebhookDispatcher.Settings(4, Duration.ofMillis(20), HANGING_TIMEOUT, Duration.ofMinutes(5), "test");
  }

  private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
    await(what, Duration.ofSeconds(20), condition);
  }

  private static void await(String what, Duration within, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long until = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() < until).as(what).isTrue();
      Thread.sleep(10);
    }
  }

  /**
   * What a receiver sees of an attempt: an HTTP/1.1 POST of the JSON body with its signature,
   * and nothing the client would add on its own (no compression asked for, no cookie sent
   * back). A redirect is the receiver's answer, not a place to send the webhook to.
   */
  @Test
  void a_receiver_gets_a_signed_post_its_redirect_is_not_followed_and_its_cookie_not_sent_back() throws Exception {
    List<com.sun.net.httpserver.HttpExchange> moved = new CopyOnWriteArrayList<>();
    receiver.createContext("/moved", exchange -> {
      exchange.getRequestBody().readAllBytes();
      moved.add(exchange);
      exchange.getResponseHeaders().add("Location", "/hooks");
      exchange.getResponseHeaders().add("Set-Cookie", "session=abc; Path=/");
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
    });
    ClaimedEvent first = event("lease-1", "/moved");
    ClaimedEvent second = event("lease-1", "/moved");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(first) : n == 2 ? List.of(second) : List.of());
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(20), Duration.ofSeconds(2), Duration.ofSeconds(30),
            "Tollgate-Webhooks/test"), Clock.systemUTC()).start()) {
      await("both attempts are reported", () -> outbox.reported.size() == 2);
    }
    assertThat(outbox.reported).allSatisfy(r -> {
      assertThat(r.result().delivered()).isFalse();
      assertThat(r.result().statusCode()).isEqualTo(302);
    });
    assertThat(received).as("the redirect's target").isEmpty();
    assertThat(moved).hasSize(2).allSatisfy(exchange -> {
      assertThat(exchange.getRequestMethod()).isEqualTo("POST");
      assertThat(exchange.getProtocol()).isEqualTo("HTTP/1.1");
      com.sun.net.httpserver.Headers headers = exchange.getRequestHeaders();
      assertThat(headers.getFirst("Content-Type")).isEqualTo("application/json");
      assertThat(headers.getFirst("User-Agent")).isEqualTo("Tollgate-Webhooks/test");
      assertThat(headers.getFirst("Signature")).isEqualTo(WebhookSignature.sign("whsec_test",
          "{}".getBytes(StandardCharsets.UTF_8)));
      assertThat(headers.getFirst("Webhook-Timestamp")).matches("[0-9]+");
      assertThat(headers.getFirst("Cookie")).isNull();
      assertThat(headers.getFirst("Accept-Encoding")).isNull();
    });
    assertThat(moved).extracting(exchange -> exchange.getRequestHeaders().getFirst("Webhook-Id"))
        .containsExactly(first.id(), second.id());
  }

  /**
   * A host whose DNS answer changes once it has been checked (DNS rebinding): a public address
   * when the URL is judged, this machine when the client connects. The connection goes only to
   * an address that passed the check, from the lookup that was checked, so the receiver here
   * gets nothing and the attempt is refused. The host is {@code localhost}, which the system
   * resolves to this machine too: a client that looked it up again by itself would reach the
   * receiver.
   */
  @Test
  void a_host_that_turns_from_public_to_loopback_after_the_check_is_not_connected_to() throws Exception {
    AtomicInteger lookups = new AtomicInteger();
    PublicDestinations rebinding = new PublicDestinations(host -> {
      try {
        return new InetAddress[] {InetAddress.getByName(lookups.incrementAndGet() == 1 ? "93.184.215.14" : "127.0.0.1")};
      } catch (java.net.UnknownHostException e) {
        throw new IllegalStateException(e);
      }
    });
    ClaimedEvent event = withUrl(event("lease-1"), "http://localhost:" + receiver.getAddress().getPort() + "/hooks");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(event) : List.of());
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, rebinding,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start()) {
      await("the attempt is reported", () -> !outbox.reported.isEmpty());
    }
    assertThat(received).isEmpty();
    assertThat(outbox.reported).singleElement().satisfies(r -> {
      assertThat(r.result().delivered()).isFalse();
      assertThat(r.result().statusCode()).isNull();
    });
    assertThat(lookups).as("one lookup, checked, and the connection goes to what it answered").hasValue(1);
  }

  /** A host that resolves to a loopback address is refused, and says so. */
  @Test
  void a_host_that_resolves_to_loopback_is_refused() throws Exception {
    PublicDestinations loopback = new PublicDestinations(host -> new InetAddress[] {InetAddress.getLoopbackAddress()});
    ClaimedEvent event = withUrl(event("lease-1"), "http://localhost:" + receiver.getAddress().getPort() + "/hooks");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(event) : List.of());
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, loopback,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start()) {
      await("the attempt is reported", () -> !outbox.reported.isEmpty());
    }
    assertThat(received).isEmpty();
    assertThat(outbox.reported).singleElement().satisfies(r -> assertThat(r.result().error())
        .isEqualTo("destination refused: host localhost resolves to a non-public address (127.0.0.1)"));
  }

  /**
   * A DNS server that is slow to answer, or never does, costs an attempt no more than its
   * timeout: the lookup is part of the request. Were it made before, an attempt could outlive
   * its lease, and another instance would send the same event while it still ran.
   */
  @Test
  void a_slow_lookup_ends_the_attempt_within_its_timeout() throws Exception {
    PublicDestinations slowDns = new PublicDestinations(host -> {
      try {
        Thread.sleep(6_000);
        return new InetAddress[] {InetAddress.getByName("93.184.215.14")};
      } catch (InterruptedException | java.net.UnknownHostException e) {
        return new InetAddress[0];
      }
    });
    ClaimedEvent event = withUrl(event("lease-1"), "http://hooks.merchant.example/hooks");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(event) : List.of());
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, slowDns,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(4), "test"),
        Clock.systemUTC()).start()) {
      await("the attempt is reported", () -> !outbox.reported.isEmpty());
    }
    assertThat(outbox.reported).singleElement().satisfies(r -> {
      assertThat(r.result().delivered()).isFalse();
      assertThat(r.result().duration()).as("ended by the 1 s timeout, inside the 4 s lease, not by the 6 s lookup")
          .isLessThan(Duration.ofMillis(3_500));
      assertThat(r.result().error()).isEqualTo("no complete answer within 1 s");
    });
  }

  /**
   * Over TLS the receiver's certificate must name the URL's host, whichever address the
   * connection went to: a certificate for localhost is good for https://localhost and not for
   * https://127.0.0.1, though both reach the same receiver.
   */
  @Test
  void over_tls_the_certificate_must_name_the_urls_host(@TempDir Path dir) throws Exception {
    Path keys = dir.resolve("receiver.p12");
    Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "receiver", "-keyalg", "EC", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost",
        "-validity", "2", "-storetype", "PKCS12", "-keystore", keys.toString(), "-storepass", "changeit")
        .redirectErrorStream(true).start();
    String said = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(keytool.waitFor()).as(said).isZero();
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (java.io.InputStream in = Files.newInputStream(keys)) {
      store.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(store, "changeit".toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), null, null);
    HttpsServer secure = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    secure.setHttpsConfigurator(new HttpsConfigurator(tls));
    secure.setExecutor(receiverThreads);
    secure.createContext("/hooks", this::accept);
    secure.start();
    ClaimedEvent byName = withUrl(event("lease-1"), "https://localhost:" + secure.getAddress().getPort() + "/hooks");
    ClaimedEvent byAddress = withUrl(event("lease-1"), "https://127.0.0.1:" + secure.getAddress().getPort() + "/hooks");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(byName) : n == 2 ? List.of(byAddress) : List.of());
    // the client trusts the receiver's certificate as it would one signed by a public authority
    System.setProperty("javax.net.ssl.trustStore", keys.toString());
    System.setProperty("javax.net.ssl.trustStorePassword", "changeit");
    System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(20), Duration.ofSeconds(5), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start()) {
      await("both attempts are reported", () -> outbox.reported.size() == 2);
    } finally {
      System.clearProperty("javax.net.ssl.trustStore");
      System.clearProperty("javax.net.ssl.trustStorePassword");
      System.clearProperty("javax.net.ssl.trustStoreType");
      secure.stop(0);
    }
    assertThat(received).containsExactly(byName.id());
    assertThat(outbox.reported).filteredOn(r -> r.delivery().eventId().equals(byName.id())).singleElement()
        .satisfies(r -> assertThat(r.result().delivered()).isTrue());
    assertThat(outbox.reported).filteredOn(r -> r.delivery().eventId().equals(byAddress.id())).singleElement()
        .satisfies(r -> {
          assertThat(r.result().delivered()).isFalse();
          assertThat(r.result().error()).startsWith("connection failed:");
        });
  }

  private static ClaimedEvent withUrl(ClaimedEvent e, String url) {
    return new ClaimedEvent(e.id(), e.leaseToken(), e.paymentId(), e.shopId(), e.paymentState(), url, null, e.body(),
        0, 0, e.created());
  }

  /**
   * A claim that fails (the database unreachable for a moment) must not keep the delivery slots
   * it had taken: the dispatcher would then wait for a free slot forever and send nothing more
   * until restarted.
   */
  @Test
  void after_a_failed_claim_the_next_claimed_event_is_still_sent() throws Exception {
    ClaimedEvent later = event("lease-1");
    FakeOutbox outbox = new FakeOutbox(n -> {
      if (n == 1) {
        throw new IllegalStateException("the database is not reachable");
      }
      return n == 2 ? List.of(later) : List.of();
    });
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(2, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start()) {
      await("the event claimed after the failure is sent", () -> received.contains(later.id()));
      await("and its attempt reported", () -> !outbox.reported.isEmpty());
      assertThat(outbox.reported).singleElement().satisfies(r -> {
        assertThat(r.delivery().eventId()).isEqualTo(later.id());
        assertThat(r.result().delivered()).isTrue();
      });
      assertThat(dispatcher.isRunning()).isTrue();
    }
  }

  /**
   * The request timeout holds for the whole answer, not only its headers: a receiver that
   * answers and never ends its body would otherwise hold the delivery's slot for as long as it
   * likes, past the event's lease, so that the event is claimed and sent again and, once every
   * slot is held so, no webhook of any shop goes out. A 2xx that came in time is still success
   * (CONTRACT §6); any other status whose body never ends is a failed attempt.
   */
  @Test
  void an_answer_whose_body_never_ends_frees_its_slot_within_the_timeout() throws Exception {
    ClaimedEvent stalled = event("lease-1", "/slow-body");
    ClaimedEvent stalledError = event("lease-1", "/slow-body-500");
    ClaimedEvent next = event("lease-1");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(stalled) : n == 2 ? List.of(stalledError)
        : n == 3 ? List.of(next) : List.of());
    // one slot: each event can only go out once the attempt before it has ended
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start()) {
      await("both stalled attempts are reported", () -> outbox.reported.stream()
          .anyMatch(r -> r.delivery().eventId().equals(stalledError.id())));
      assertThat(outbox.reported).filteredOn(r -> r.delivery().eventId().equals(stalled.id())).singleElement()
          .satisfies(r -> {
            assertThat(r.result().delivered()).isTrue();
            assertThat(r.result().statusCode()).isEqualTo(200);
            assertThat(r.result().duration()).isGreaterThanOrEqualTo(Duration.ofMillis(900));
          });
      assertThat(outbox.reported).filteredOn(r -> r.delivery().eventId().equals(stalledError.id())).singleElement()
          .satisfies(r -> {
            assertThat(r.result().delivered()).isFalse();
            assertThat(r.result().error()).contains("no complete answer within 1 s");
          });
      await("the next event is sent in the freed slot", () -> received.contains(next.id()));
      await("and reported delivered", () -> outbox.reported.stream()
          .anyMatch(r -> r.delivery().eventId().equals(next.id()) && r.result().delivered()));
    }
  }

  /**
   * The lag metric measures how long a state change took to reach its receiver; an event sent
   * again on request is no state change. A resend of a 60-day-old event was recorded as 60 days
   * of lag, and an operator's alert on the lag's maximum fired for a webhook nobody waited for.
   */
  @Test
  void a_resent_event_is_not_counted_as_lag() throws Exception {
    ClaimedEvent fresh = event("lease-1");
    ClaimedEvent old = event("lease-1");
    ClaimedEvent resent = new ClaimedEvent(old.id(), old.leaseToken(), old.paymentId(), old.shopId(),
        old.paymentState(), old.targetUrl(), null, old.body(), 1, 0, Instant.now().minus(Duration.ofDays(60)));
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(fresh) : n == 2 ? List.of(resent) : List.of());
    io.micrometer.core.instrument.simple.SimpleMeterRegistry metrics =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(20), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
        Clock.systemUTC(), metrics).start()) {
      await("both delivered", () -> outbox.reported.stream().filter(r -> r.result().delivered()).count() == 2);
    }
    io.micrometer.core.instrument.Timer lag = metrics.get("tollgate.webhooks.lag").timer();
    assertThat(lag.count()).as("the new event's delivery only").isEqualTo(1);
    assertThat(lag.max(TimeUnit.SECONDS)).isLessThan(60);
  }

  /**
   * A webhook delivered after a retry is minutes late, and a backlog can make it hours: the lag's
   * histogram reaches that far. Its buckets ended at 30 s, so every delivery that needed a retry
   * fell in +Inf and a 99th percentile read from them said 30 s however late the webhooks were.
   */
  @Test
  void the_lag_histogram_tells_minutes_late_from_hours_late() throws Exception {
    ClaimedEvent fresh = event("lease-1");
    ClaimedEvent late = new ClaimedEvent(fresh.id(), fresh.leaseToken(), fresh.paymentId(), fresh.shopId(),
        fresh.paymentState(), fresh.targetUrl(), null, fresh.body(), 1, 1, Instant.now().minus(Duration.ofMinutes(10)));
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(late) : List.of());
    var metrics = new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(20), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
        Clock.systemUTC(), metrics).start()) {
      await("delivered", () -> outbox.reported.stream().anyMatch(r -> r.result().delivered()));
    }
    var buckets = metrics.get("tollgate.webhooks.lag").timer().takeSnapshot().histogramCounts();
    double withinFiveMinutes = 0;
    double withinAnHour = 0;
    for (var bucket : buckets) {
      if (bucket.bucket(TimeUnit.SECONDS) <= 300) {
        withinFiveMinutes = Math.max(withinFiveMinutes, bucket.count());
      }
      if (bucket.bucket(TimeUnit.SECONDS) <= 3600) {
        withinAnHour = Math.max(withinAnHour, bucket.count());
      }
    }
    assertThat(withinFiveMinutes).as("10 minutes late is not within 5").isZero();
    assertThat(withinAnHour).as("but a bucket up to an hour holds it").isEqualTo(1);
    assertThat(buckets).as("and one as far as three days").anyMatch(b -> b.bucket(TimeUnit.HOURS) >= 72);
  }

  /**
   * Each claim leases under a token of its own: with one token for all, the late report of an
   * attempt whose lease ran out would settle the event this instance had leased again, and its
   * next event could overtake the second copy. Closing releases every claim of the instance.
   */
  @Test
  void each_claim_has_a_token_of_its_own_and_closing_releases_them_all() throws Exception {
    FakeOutbox outbox = new FakeOutbox(n -> n <= 2 ? List.of(event("ignored")) : List.of());
    WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(1, Duration.ofMillis(20), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start();
    await("three claims", () -> outbox.claimTokens.size() >= 3);
    dispatcher.close();
    assertThat(outbox.claimTokens).doesNotHaveDuplicates();
    assertThat(outbox.released).singleElement().satisfies(owner ->
        assertThat(outbox.claimTokens).allSatisfy(token -> assertThat(token).startsWith(owner + ":")));
  }

  /**
   * A shop whose receiver hangs holds at most all the delivery slots but a quarter: another
   * shop's webhook goes out at once instead of waiting for the hanging attempts to time out,
   * the claims pass the busy shop's events over meanwhile, and its waiting events go out as its
   * slots free up.
   */
  @Test
  void a_shop_whose_receiver_hangs_does_not_hold_up_another_shops_webhooks() throws Exception {
    List<ClaimedEvent> hanging = List.of(event("lease-1", "/slow-body-500", 1), event("lease-1", "/slow-body-500", 1),
        event("lease-1", "/slow-body-500", 1), event("lease-1", "/slow-body-500", 1));
    ClaimedEvent otherShop = event("lease-2", "/hooks", 2);
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? hanging : n == 2 ? List.of(otherShop) : List.of());
    long started = System.nanoTime();
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        hangingReceiverSettings(), Clock.systemUTC()).start()) {
      await("the other shop's webhook is delivered", () -> outbox.reported.stream()
          .anyMatch(r -> r.delivery().eventId().equals(otherShop.id()) && r.result().delivered()));
      assertThat(outbox.reported).as("while every hanging attempt still hangs").singleElement()
          .satisfies(r -> assertThat(r.delivery().eventId()).isEqualTo(otherShop.id()));
      assertThat(Duration.ofNanos(System.nanoTime() - started)).as("long before any hanging attempt timed out")
          .isLessThan(AT_ONCE);
      await("three of the hanging shop's four sent at once", () -> received.containsAll(
          List.of(hanging.get(0).id(), hanging.get(1).id(), hanging.get(2).id())));
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(AT_ONCE);
      assertThat(received).as("and only three: a slot is kept for other shops").doesNotContain(hanging.get(3).id());
      assertThat(outbox.skipped.get(1)).as("the second claim passes the busy shop over").containsExactly(new ShopId(1));
      slowBodyEnds.countDown();
      await("the waiting one is sent once a slot frees up", () -> outbox.reported.stream()
          .filter(r -> r.delivery().event().shopId().equals(new ShopId(1))).count() == 4);
    }
  }

  /** Four events of shop 1 to {@code path}: a shop sends three of four slots at once, so the fourth waits. */
  private List<ClaimedEvent> fourOfOneShop(String path) {
    return List.of(event("lease-1", path, 1), event("lease-1", path, 1), event("lease-1", path, 1),
        event("lease-1", path, 1));
  }

  /**
   * A delivery that waited for a slot of its shop is signed with the shop's key as it is when it
   * is sent: a key issued meanwhile signs it, as README promises of every attempt from then on. It
   * was signed with the key read at its claim, up to the lease's wait before, and a merchant who
   * had switched to the new key refused it.
   */
  @Test
  void a_delivery_that_waited_for_a_slot_is_signed_with_the_key_issued_meanwhile() throws Exception {
    List<ClaimedEvent> events = fourOfOneShop("/slow-body");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? events : List.of());
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        hangingReceiverSettings(), Clock.systemUTC()).start()) {
      await("three sent at once, the fourth waits for a slot", () -> signatures.size() == 3);
      outbox.issuedKey = "whsec_issued";
      slowBodyEnds.countDown();
      await("the fourth sent", () -> signatures.containsKey(events.get(3).id()));
    }
    byte[] body = events.get(0).body();
    for (int i = 0; i < 3; i++) {
      assertThat(signatures.get(events.get(i).id())).isEqualTo(WebhookSignature.sign("whsec_test", body));
    }
    assertThat(signatures.get(events.get(3).id())).as("signed with the key issued while it waited")
        .isEqualTo(WebhookSignature.sign("whsec_issued", body));
  }

  /**
   * A delivery that waited for a slot, whose keys took so long to read again that its lease no
   * longer leaves the attempt its time, is left to the next claim, not sent beside it: once the
   * lease ends another instance may claim and send the same event.
   */
  @Test
  void a_waiting_delivery_whose_lease_ran_short_while_its_keys_were_read_is_left_to_the_next_claim()
      throws Exception {
    List<ClaimedEvent> events = fourOfOneShop("/slow-body");
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? events : List.of());
    // a 7 s lease leaves an attempt of 2 s its time and half again until 4 s after the claim
    outbox.readingAgain = Duration.ofSeconds(5);
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(4, Duration.ofMillis(20), Duration.ofSeconds(2), Duration.ofSeconds(7), "test"),
        Clock.systemUTC()).start()) {
      await("three sent at once, the fourth waits for a slot", () -> signatures.size() == 3);
      slowBodyEnds.countDown();
      await("the three recorded", () -> outbox.reported.size() == 3);
      Thread.sleep(6_000);
      assertThat(signatures).as("the fourth not sent").doesNotContainKey(events.get(3).id());
      assertThat(outbox.reported).hasSize(3);
    }
  }

  /**
   * Two shops whose receivers hang, each within its own ceiling, do not take every slot
   * between them: a quarter is kept for shops that send nothing yet, so a third shop's webhook
   * goes out at once, not when a hanging attempt times out.
   */
  @Test
  void two_shops_whose_receivers_hang_do_not_hold_up_a_third_shops_webhooks() throws Exception {
    java.util.concurrent.ConcurrentLinkedDeque<ClaimedEvent> due = new java.util.concurrent.ConcurrentLinkedDeque<>();
    for (int i = 0; i < 3; i++) {
      due.add(event("lease-1", "/slow-body-500", 1));
      due.add(event("lease-1", "/slow-body-500", 2));
    }
    ClaimedEvent third = event("lease-1", "/hooks", 3);
    FakeOutbox outbox = new FakeOutbox(n -> List.of()) {
      @Override
      public synchronized List<Delivery> claim(String leaseToken, int limit, Duration lease,
          List<ShopId> skippedShops) {
        skipped.add(skippedShops);
        List<Delivery> claimed = new java.util.ArrayList<>();
        for (java.util.Iterator<ClaimedEvent> it = due.iterator(); it.hasNext() && claimed.size() < limit; ) {
          ClaimedEvent e = it.next();
          if (!skippedShops.contains(e.shopId())) {
            it.remove();
            claimed.add(new Delivery(e, e.url(), "whsec_test"));
          }
        }
        return claimed;
      }
    };
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        hangingReceiverSettings(), Clock.systemUTC()).start()) {
      await("the two shops' receivers hang with three attempts", () -> received.size() == 3);
      Thread.sleep(200);
      assertThat(received).as("the last slot is kept for a shop that sends nothing yet").hasSize(3);
      long added = System.nanoTime();
      due.add(third);
      await("the third shop's webhook is delivered", () -> outbox.reported.stream()
          .anyMatch(r -> r.delivery().eventId().equals(third.id()) && r.result().delivered()));
      assertThat(outbox.reported).as("while every hanging attempt still hangs").singleElement()
          .satisfies(r -> assertThat(r.delivery().eventId()).isEqualTo(third.id()));
      assertThat(Duration.ofNanos(System.nanoTime() - added)).as("long before any hanging attempt timed out")
          .isLessThan(AT_ONCE);
      assertThat(outbox.skipped).as("with only the reserve free, both sending shops were passed over")
          .anyMatch(l -> l.containsAll(List.of(new ShopId(1), new ShopId(2))));
      slowBodyEnds.countDown();
    }
  }

  /**
   * An Error in the poller (a class the jar replaced under a running service, memory short for
   * a moment) does not end it: with the thread gone, no webhook would leave this instance again
   * until someone restarted it.
   */
  @Test
  void an_error_while_claiming_does_not_stop_the_deliveries() throws Exception {
    ClaimedEvent later = event("lease-2");
    FakeOutbox outbox = new FakeOutbox(n -> {
      if (n == 1) {
        throw new OutOfMemoryError("a moment without memory (test)");
      }
      return n == 2 ? List.of(later) : List.of();
    });
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(2, Duration.ofMillis(20), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start()) {
      await("the next claim's webhook is delivered", () -> outbox.reported.stream()
          .anyMatch(r -> r.delivery().eventId().equals(later.id()) && r.result().delivered()));
      assertThat(dispatcher.isRunning()).isTrue();
    }
  }

  /**
   * A claim that took so long to answer (signing keys read one shop at a time, a pool short of
   * connections) that its leases would end before an attempt could is not sent: another claim
   * may take the same events once the leases end, and the receiver would get each twice at once.
   */
  @Test
  void a_claim_that_answered_too_late_for_its_lease_is_left_to_the_next_claim() throws Exception {
    ClaimedEvent late = event("lease-1");
    ClaimedEvent next = event("lease-2");
    FakeOutbox outbox = new FakeOutbox(n -> {
      if (n == 1) {
        try {
          Thread.sleep(700);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return List.of(late);
      }
      return n == 2 ? List.of(next) : List.of();
    });
    // a 1 s timeout wants 1.5 s of the 2 s lease left; the first claim leaves 1.3 s at most
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(2, Duration.ofMillis(20), Duration.ofSeconds(1), Duration.ofSeconds(2), "test"),
        Clock.systemUTC()).start()) {
      await("the next claim's webhook is delivered", () -> outbox.reported.stream()
          .anyMatch(r -> r.delivery().eventId().equals(next.id()) && r.result().delivered()));
    }
    assertThat(received).as("the late claim's event was not sent").containsExactly(next.id());
    assertThat(outbox.reported).as("nor reported: its lease runs out and a later claim sends it").hasSize(1);
  }

  /**
   * A delivery that waited for its shop's slot until its lease would end before its attempt
   * could is not sent: once the lease ends another claim may send the same event, and the two
   * would reach the receiver at once, out of order. The next claim takes it.
   */
  @Test
  void a_delivery_that_waited_past_its_lease_is_left_to_the_next_claim() throws Exception {
    List<ClaimedEvent> hanging = List.of(event("lease-1", "/slow-body-500", 1), event("lease-1", "/slow-body-500", 1),
        event("lease-1", "/slow-body-500", 1), event("lease-1", "/hooks", 1));
    FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? hanging : List.of());
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(4, Duration.ofMillis(20), Duration.ofSeconds(1), Duration.ofSeconds(2), "test"),
        Clock.systemUTC()).start()) {
      await("the three sent at once time out", () -> outbox.reported.size() == 3);
      Thread.sleep(500);
    }
    assertThat(received).as("the fourth waited a second for a slot, its lease ending within the timeout")
        .doesNotContain(hanging.get(3).id());
    assertThat(outbox.reported).hasSize(3);
  }

  /**
   * A shop alone is not held to its share: with no other shop's event due, it may have all the
   * slots but a quarter in flight. Held to half, one busy shop could send no faster than half
   * the slots' round trips allow, and the bench's payments outran its webhooks (p99 lag 17 s).
   */
  @Test
  void a_shop_alone_goes_past_its_share_up_to_all_the_slots_but_a_reserve() throws Exception {
    java.util.concurrent.ConcurrentLinkedQueue<ClaimedEvent> due = new java.util.concurrent.ConcurrentLinkedQueue<>();
    for (int i = 0; i < 6; i++) {
      due.add(event("lease-1", "/slow-body-500", 1));
    }
    FakeOutbox outbox = new FakeOutbox(n -> List.of()) {
      @Override
      public List<Delivery> claim(String leaseToken, int limit, Duration lease, List<ShopId> skippedShops) {
        skipped.add(skippedShops);
        // one event a claim, so that the shop's share is reached between claims
        ClaimedEvent e = skippedShops.contains(new ShopId(1)) ? null : due.poll();
        return e == null ? List.of() : List.of(new Delivery(e, e.url(), "whsec_test"));
      }
    };
    long started = System.nanoTime();
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        hangingReceiverSettings(), Clock.systemUTC()).start()) {
      await("three of the shop's webhooks in flight at once", () -> received.size() == 3);
      assertThat(outbox.reported).as("all three still hanging").isEmpty();
      assertThat(Duration.ofNanos(System.nanoTime() - started)).as("long before any attempt timed out")
          .isLessThan(AT_ONCE);
      assertThat(outbox.skipped).as("past its share, it was passed over first").anyMatch(l -> l.contains(new ShopId(1)));
      Thread.sleep(200);
      assertThat(received).as("and no fourth: one slot stays free for other shops").hasSize(3);
      slowBodyEnds.countDown();
    }
  }

  /**
   * A shop that uses its whole share of the slots is passed over by the claims; the dispatcher
   * claims again as soon as one of its slots frees up, not a poll interval later (with a
   * single busy shop, as in a benchmark, that waiting cut the delivery rate to a trickle).
   */
  @Test
  void a_shop_at_its_share_is_claimed_for_again_as_soon_as_a_slot_frees_up() throws Exception {
    java.util.concurrent.ConcurrentLinkedQueue<ClaimedEvent> due = new java.util.concurrent.ConcurrentLinkedQueue<>();
    for (int i = 0; i < 40; i++) {
      due.add(event("lease-1", "/hooks", 1));
    }
    List<List<ShopId>> skips = new CopyOnWriteArrayList<>();
    FakeOutbox outbox = new FakeOutbox(n -> List.of()) {
      @Override
      public List<Delivery> claim(String leaseToken, int limit, Duration lease, List<ShopId> skippedShops) {
        skips.add(skippedShops);
        List<Delivery> claimed = new java.util.ArrayList<>();
        while (claimed.size() < limit && !skippedShops.contains(new ShopId(1)) && !due.isEmpty()) {
          ClaimedEvent e = due.poll();
          claimed.add(new Delivery(e, e.url(), "whsec_test"));
        }
        return claimed;
      }
    };
    // two slots for the shop of four, and a poll interval no test outlives: a dispatcher that
    // waited for it even once would never deliver all 40
    try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
        new WebhookDispatcher.Settings(4, Duration.ofHours(1), Duration.ofSeconds(3), Duration.ofSeconds(30), "test"),
        Clock.systemUTC()).start()) {
      await("all 40 delivered without waiting a poll interval", Duration.ofSeconds(60),
          () -> outbox.reported.stream().filter(r -> r.result().delivered()).count() == 40);
    }
    assertThat(skips).as("the shop was passed over while at its share").anyMatch(l -> l.contains(new ShopId(1)));
  }

  /**
   * A receiver that answers bytes that are not HTTP, a NUL among them: the attempt fails with an
   * error that can be stored. PostgreSQL refuses a NUL in text, and an error quoting one made the
   * whole batch of attempts unrecordable, so every event in it was sent again, without end. The
   * error does not describe the client's connection either, which would show the merchant our
   * local address.
   */
  @Test
  void an_answer_that_is_not_http_is_reported_with_a_storable_error() throws Exception {
    try (ServerSocket garbage = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> {
        while (!garbage.isClosed()) {
          try (Socket s = garbage.accept()) {
            // the whole request first, so that the client reads the answer rather than failing to send
            readRequest(s);
            s.getOutputStream().write("\0\u0001GARBAGE NOT HTTP\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            Thread.sleep(200);
          } catch (Exception e) {
            return;
          }
        }
      });
      answering.start();
      ClaimedEvent event = new ClaimedEvent(UUID.randomUUID().toString(), "lease-1", new PaymentId("ab".repeat(16)),
          new ShopId(1), PaymentState.COMPLETED, "http://127.0.0.1:" + garbage.getLocalPort() + "/hooks", null,
          "{}".getBytes(StandardCharsets.UTF_8), 0, 0, Instant.now());
      FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(event) : List.of());
      try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
          new WebhookDispatcher.Settings(1, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(30), "test"),
          Clock.systemUTC()).start()) {
        await("the attempt is reported", () -> !outbox.reported.isEmpty());
        assertThat(outbox.reported).singleElement().satisfies(r -> {
          assertThat(r.result().delivered()).isFalse();
          assertThat(r.result().error()).startsWith("connection failed: the answer is not HTTP")
              .doesNotContain("\0", "\u0001", "127.0.0.1");
        });
      }
    }
  }

  /**
   * A receiver that answers a status line and then header lines without end: the attempt fails
   * once the head passes 16 KiB, with no status, long before the request timeout. Jetty's client
   * reads a head of any size unless told, so each such attempt used to hold every line in
   * memory until it timed out, and a few receivers doing so at once could exhaust the heap.
   */
  @Test
  void an_answer_whose_headers_never_end_fails_once_they_pass_the_limit() throws Exception {
    Reported r = attemptAnsweredBy(out -> {
      out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.ISO_8859_1));
      byte[] line = ("X-Filler: " + "a".repeat(1000) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
      // about 100 KiB a second, until the client hangs up
      while (true) {
        out.write(line);
        out.flush();
        Thread.sleep(10);
      }
    });
    assertThat(r.result().delivered()).isFalse();
    assertThat(r.result().statusCode()).isNull();
    assertThat(r.result().duration()).as("ended by the size of the head, not by the 10 s timeout")
        .isLessThan(Duration.ofSeconds(3));
    assertThat(r.result().error()).startsWith("connection failed:").doesNotContain("127.0.0.1");
  }

  /**
   * A 2xx head that came in time is success (CONTRACT §6) however its body ends: a receiver that
   * closes the connection partway through the body has taken the event, and counted as failed it
   * would be sent again up to ten times while the merchant's log showed failures. Any other
   * status cut short so is still a failed attempt.
   */
  @Test
  void a_2xx_whose_body_is_cut_short_is_delivered_at_the_first_attempt() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    try (ServerSocket cutting = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> {
        while (!cutting.isClosed()) {
          try (Socket s = cutting.accept()) {
            String target = readRequest(s);
            asked.add(target);
            String status = target.endsWith("-500") ? "500 Internal Server Error" : "200 OK";
            // 5 bytes of the 20 promised, then the connection closes
            s.getOutputStream().write(("HTTP/1.1 " + status + "\r\nContent-Length: 20\r\n\r\n{\"ok\"")
                .getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
          } catch (Exception e) {
            return;
          }
        }
      });
      answering.start();
      String base = "http://127.0.0.1:" + cutting.getLocalPort();
      ClaimedEvent cut = new ClaimedEvent(UUID.randomUUID().toString(), "lease-1", new PaymentId("ab".repeat(16)),
          new ShopId(1), PaymentState.COMPLETED, base + "/cut", null, "{}".getBytes(StandardCharsets.UTF_8), 0, 0,
          Instant.now());
      ClaimedEvent cutError = new ClaimedEvent(UUID.randomUUID().toString(), "lease-1",
          new PaymentId("cd".repeat(16)), new ShopId(1), PaymentState.COMPLETED, base + "/cut-500", null,
          "{}".getBytes(StandardCharsets.UTF_8), 0, 0, Instant.now());
      FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(cut) : n == 2 ? List.of(cutError) : List.of());
      // one slot, a timeout far off: only the cut body can end an attempt
      try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
          new WebhookDispatcher.Settings(1, Duration.ofMillis(50), Duration.ofSeconds(10), Duration.ofSeconds(30),
              "test"), Clock.systemUTC()).start()) {
        await("both attempts are reported", () -> outbox.reported.size() == 2);
        assertThat(asked).containsExactly("/cut", "/cut-500");
        assertThat(outbox.reported).filteredOn(r -> r.delivery().eventId().equals(cut.id())).singleElement()
            .satisfies(r -> {
              assertThat(r.result().delivered()).isTrue();
              assertThat(r.result().statusCode()).isEqualTo(200);
              assertThat(r.result().error()).isNull();
              assertThat(r.result().duration()).isLessThan(Duration.ofSeconds(5));
            });
        assertThat(outbox.reported).filteredOn(r -> r.delivery().eventId().equals(cutError.id())).singleElement()
            .satisfies(r -> assertThat(r.result().delivered()).isFalse());
      }
    }
  }

  /**
   * A 2xx head that came in time delivers the event even when the trailers of its chunked body
   * take the answer's head past the 16 KiB read (which ends the exchange with a failure): the
   * receiver took the event, and the README says so.
   */
  @Test
  void a_2xx_whose_trailers_pass_the_head_limit_is_delivered() throws Exception {
    Reported r = attemptAnsweredBy(out -> {
      out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n"
          .getBytes(StandardCharsets.ISO_8859_1));
      // 20 KiB of trailers, past the 16 KiB that the status line, headers and trailers share
      for (int i = 0; i < 20; i++) {
        out.write(("X-Trailer-" + i + ": " + "a".repeat(1000) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      }
      out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    });
    assertThat(r.result().delivered()).isTrue();
    assertThat(r.result().statusCode()).isEqualTo(200);
    assertThat(r.result().error()).isNull();
  }

  /** What a receiver writes after reading a request, on a raw socket: anything but HTTP as Jetty would. */
  private interface RawAnswer {
    void write(java.io.OutputStream out) throws Exception;
  }

  /**
   * One event sent by a dispatcher (one sender, 10 s timeout) to a raw receiver that reads each
   * request and answers it with {@code answer}, then waits for the client to hang up; the attempt
   * as reported.
   */
  private Reported attemptAnsweredBy(RawAnswer answer) throws Exception {
    try (ServerSocket receiver = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> {
        while (!receiver.isClosed()) {
          try (Socket s = receiver.accept()) {
            readRequest(s);
            answer.write(s.getOutputStream());
            s.getInputStream().read();
          } catch (Exception e) {
            // the client closed the connection: wait for the next one
          }
        }
      });
      answering.setDaemon(true);
      answering.start();
      ClaimedEvent event = withUrl(event("lease-1"), "http://127.0.0.1:" + receiver.getLocalPort() + "/hooks");
      FakeOutbox outbox = new FakeOutbox(n -> n == 1 ? List.of(event) : List.of());
      try (WebhookDispatcher dispatcher = new WebhookDispatcher(outbox, DestinationPolicy.ALLOW_ALL,
          new WebhookDispatcher.Settings(1, Duration.ofMillis(50), Duration.ofSeconds(10), Duration.ofSeconds(30),
              "test"), Clock.systemUTC()).start()) {
        await("the attempt is reported", () -> !outbox.reported.isEmpty());
      }
      assertThat(outbox.reported).hasSize(1);
      return outbox.reported.get(0);
    }
  }

  /** Reads a request's head and as much body as its Content-Length says; answers its target. */
  private static String readRequest(Socket s) throws java.io.IOException {
    java.io.InputStream in = s.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.append((char) b);
    }
    java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    in.readNBytes(length.find() ? Integer.parseInt(length.group(1)) : 0);
    // the request line's target: "POST /hooks HTTP/1.1"
    return head.toString().split(" ", 3)[1];
  }

  /**
   * When a batch of attempts cannot be recorded, the others are recorded one by one: one that
   * the database refuses must not take the outcomes of other shops' deliveries with it.
   */
  @Test
  void an_attempt_that_cannot_be_recorded_does_not_lose_the_others_of_its_batch() {
    ClaimedEvent poisoned = event("lease-1");
    ClaimedEvent fine = event("lease-1");
    List<Reported> stored = new CopyOnWriteArrayList<>();
    WebhookDeliveryUseCase refusing = new FakeOutbox(n -> List.of()) {
      @Override
      public void reportAll(List<Reported> reports) {
        if (reports.stream().anyMatch(r -> r.delivery().eventId().equals(poisoned.id()))) {
          throw new IllegalStateException("invalid byte sequence for encoding UTF8: 0x00");
        }
        stored.addAll(reports);
      }
    };
    WebhookDispatcher dispatcher = new WebhookDispatcher(refusing, DestinationPolicy.ALLOW_ALL,
        WebhookDispatcher.Settings.defaults("test"), Clock.systemUTC());
    Result ok = new Result(Instant.now(), Duration.ofMillis(5), 200, null);
    List<Reported> batch = List.of(new Reported(new Delivery(poisoned, poisoned.url(), "k"), ok),
        new Reported(new Delivery(fine, fine.url(), "k"), ok));
    dispatcher.recordOneByOne(batch, new IllegalStateException("the batch failed"));
    assertThat(stored).singleElement().satisfies(r -> assertThat(r.delivery().eventId()).isEqualTo(fine.id()));
  }

  @Test
  void an_error_is_stored_without_control_characters_or_broken_pairs_and_cut_to_length() {
    assertThat(WebhookDispatcher.printable("a\0b\nc\u007fd\ud800e\ud83d\ude00")).isEqualTo("a?b?c?d?e\ud83d\ude00");
    assertThat(WebhookDispatcher.printable("x".repeat(600))).hasSize(501).endsWith("…");
    assertThat(WebhookDispatcher.printable(null)).isNull();
  }

  @Test
  void the_log_says_an_event_without_a_url_was_not_sent_rather_than_naming_a_null_receiver() throws Exception {
    ClaimedEvent e = event("t");
    ClaimedEvent noUrl = new ClaimedEvent(e.id(), e.leaseToken(), e.paymentId(), e.shopId(), e.paymentState(), null,
        null, e.body(), 0, 0, e.created());
    String line = WebhookDispatcher.failureLine(new Delivery(noUrl, null, "whsec_test"),
        "neither the payment nor the shop has a webhook URL");
    assertThat(line).doesNotContain("null").isEqualTo("webhook " + e.id() + " of payment " + "ab".repeat(16)
        + " not sent (attempt 1): neither the payment nor the shop has a webhook URL");
    assertThat(WebhookDispatcher.failureLine(new Delivery(e, e.url(), "whsec_test"), "HTTP 500"))
        .contains(" to http://127.0.0.1:").doesNotContain("/hooks")
        .endsWith(" (path sha-256 " + sha256("/hooks").substring(0, 8) + ") failed (attempt 1): HTTP 500");
  }

  /**
   * A receiver's URL is logged without its password, its query or its path: for a Slack, Discord or Zapier
   * receiver the path is the credential, and every failed attempt wrote it to the log. A short fingerprint of the
   * path still tells a shop's receivers on one host apart.
   */
  @Test
  void the_log_shows_a_receivers_url_without_its_password_query_or_path() throws Exception {
    assertThat(WebhookDispatcher.forLog("https://hook:S3cret@merchant.example:8443/hooks/in?token=abc#x"))
        .isEqualTo("https://merchant.example:8443 (path sha-256 " + sha256("/hooks/in").substring(0, 8) + ")");
    String slack = WebhookDispatcher.forLog("https://hooks.slack.com/services/T0ABCDEF/B0ABCDEF/XyZ123sEcReT456");
    assertThat(slack).startsWith("https://hooks.slack.com (path sha-256 ").doesNotContain("services")
        .doesNotContain("T0ABCDEF").doesNotContain("XyZ123sEcReT456");
    assertThat(WebhookDispatcher.forLog("https://hooks.slack.com/services/T0ABCDEF/B0ABCDEF/another"))
        .as("another receiver on the same host").isNotEqualTo(slack);
    assertThat(WebhookDispatcher.forLog("http://merchant.example")).isEqualTo("http://merchant.example");
    assertThat(WebhookDispatcher.forLog("http://merchant.example/")).isEqualTo("http://merchant.example/");
    assertThat(WebhookDispatcher.forLog("not a url")).doesNotContain("not a url");
  }

  private static String sha256(String text) throws Exception {
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
        .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }
}
