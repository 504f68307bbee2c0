package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.user.Permission;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Per-key rate limits answer 429 with Retry-After, in the envelope, and keep keys apart. */
class AbuseLimitsTest {

  /**
   * A key gets its burst, then one request a second. Each request takes a moment, and on a busy
   * machine the burst may take long enough to earn another: the requests go on until refused, and
   * those let through are held to what the limit allows in the time they took.
   */
  @Test
  void a_key_over_its_rate_gets_429_with_retry_after_and_other_keys_do_not() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_RATE_LIMIT", "1", "TOLLGATE_RATE_LIMIT_BURST", "5"))) {
      long start = System.nanoTime();
      Limited reads = countUntilLimited(() -> gw.get("/api/v1/payments"));
      assertThat(reads.letThrough()).as("the burst, then one a second").isBetween(5, 5 + secondsSince(start));
      TestGateway.Answer limited = reads.refusal();
      assertThat(Integer.parseInt(limited.header("Retry-After"))).isBetween(1, 2);
      assertThat(limited.json().get("error").asText()).isEqualTo("Too Many Requests");
      assertThat(limited.json().get("message").asText())
          .startsWith("Too many requests for this key: at most 1 a second");
      assertThat(limited.json().get("path").asText()).isEqualTo("/api/v1/payments");
      int before = gw.countPayments();
      Limited creates = countUntilLimited(() -> gw.post("/api/v1/payments",
          "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}"));
      assertThat(gw.countPayments()).as("a refused create creates nothing").isEqualTo(before + creates.letThrough());

      String otherKey = gw.issueKey(gw.createShop(gw.merchant, "Quiet shop", false), gw.app.services().environment());
      assertThat(gw.get("/api/v1/payments", otherKey).status()).isEqualTo(200);

      String[] user = gw.merchantUser(gw.merchant, "limits@shop.example", Permission.SHOP_EDIT);
      start = System.nanoTime();
      assertThat(countUntilLimited(() -> gw.merchantGet("/merchant-api/v1/shops", user)).letThrough())
          .as("a merchant user's burst, then one a second").isBetween(5, 5 + secondsSince(start));
      assertThat(gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/health/live")).GET()).status())
          .as("health checks are never limited").isEqualTo(200);
    }
  }

  /**
   * Requests refused before they reach an API's routes, over the rate limit or with a body
   * declared over the limit, are counted in {@code http_server_requests} as every other answer: an
   * operator alerting on the rate of 429s or 413s, or tuning the limits by it, saw none.
   */
  @Test
  void requests_refused_before_routing_are_counted_in_the_request_metrics() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_RATE_LIMIT", "1", "TOLLGATE_RATE_LIMIT_BURST", "1"))) {
      countUntilLimited(() -> gw.get("/api/v1/payments"));
      assertThat(gw.get("/api/v1/payments").status()).isEqualTo(429);
      String otherKey = gw.issueKey(gw.createShop(gw.merchant, "Big bodies", false), gw.app.services().environment());
      TestGateway.Answer big = gw.post("/api/v1/payments", "{\"description\":\"" + "x".repeat(70_000) + "\"}",
          otherKey, null);
      assertThat(big.status()).isEqualTo(413);
      // refused by its declared length before it is sent, by the body reader in front of the API
      try (java.net.Socket client = new java.net.Socket("127.0.0.1", gw.app.port())) {
        client.getOutputStream().write(("POST /api/v1/payments HTTP/1.1\r\nHost: localhost\r\n"
            + "Content-Type: application/json\r\nAuthorization: Bearer " + otherKey + "\r\n"
            + "Content-Length: 2000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        client.setSoTimeout(30_000);
        String answer = new java.io.BufferedReader(new java.io.InputStreamReader(client.getInputStream(),
            StandardCharsets.US_ASCII)).readLine();
        assertThat(answer).startsWith("HTTP/1.1 413");
      }
      assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/openapi.json")).GET()).status()).isEqualTo(200);

      String scrape = gw.send(HttpRequest.newBuilder(gw.uri("/metrics")).GET()).body();
      assertThat(OperabilityTest.metric(scrape, "http_server_requests_seconds_count", "api=\"gateway\"",
          "method=\"GET\"", "status=\"429\"")).isEqualTo(2);
      assertThat(OperabilityTest.metric(scrape, "http_server_requests_seconds_count", "api=\"gateway\"",
          "method=\"POST\"", "status=\"413\"")).as("each counted once").isEqualTo(2);
      assertThat(OperabilityTest.metric(scrape, "http_server_requests_seconds_count", "route=\"UNMATCHED\"",
          "status=\"200\"")).as("the documents are no refusal").isZero();
    }
  }

  /** The exact counts, on a made-up clock: the burst at once, then a token a second, each key its own. */
  @Test
  void a_key_gets_its_burst_at_once_then_one_request_a_second() {
    RateLimitFilter limit = new RateLimitFilter(1, 5);
    long second = 1_000_000_000L;
    for (int i = 0; i < 5; i++) {
      assertThat(limit.take("key:a", 0)).isZero();
    }
    assertThat(limit.take("key:a", 0)).as("a second to wait, what Retry-After says").isEqualTo(second);
    assertThat(limit.take("key:a", second / 2)).as("half a token").isEqualTo(second / 2);
    assertThat(limit.take("key:a", second)).isZero();
    assertThat(limit.take("key:a", second)).isPositive();
    assertThat(limit.take("key:b", second)).as("another key has its own burst").isZero();
    int allowed = 0;
    while (limit.take("key:a", 10 * second) == 0) {
      allowed++;
    }
    assertThat(allowed).as("nine seconds on, never more than the burst").isEqualTo(5);
  }

  /**
   * A key or user is one bucket however its header is written: the scheme's case, spaces before
   * the key, the e-mail address's case. Each spelling used to open a bucket of its own, so one
   * key could send without limit.
   */
  @Test
  void another_spelling_of_the_same_credential_shares_its_bucket() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_RATE_LIMIT", "1", "TOLLGATE_RATE_LIMIT_BURST", "3"))) {
      // each spelling in turn until refused: with a bucket of its own, each would be let through
      // three times, twelve in all
      String[] spellings = {"Bearer ", "bearer ", "BEARER  ", "bEaReR   "};
      int[] sent = {0};
      long start = System.nanoTime();
      Limited key = countUntilLimited(() -> gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/api/v1/payments"))
          .GET().header("Authorization", spellings[sent[0]++ % spellings.length] + gw.apiKey)));
      assertThat(key.letThrough()).as("the key's burst is 3").isBetween(3, 3 + secondsSince(start));

      String password = gw.merchantUser(gw.merchant, "spelled2@shop.example", Permission.SHOP_EDIT)[1];
      String[] emails = {"spelled2@shop.example", "Spelled2@shop.example", "SPELLED2@SHOP.EXAMPLE",
          "spelled2@Shop.Example"};
      sent[0] = 0;
      start = System.nanoTime();
      Limited user = countUntilLimited(() -> gw.merchantGet("/merchant-api/v1/shops",
          new String[] {emails[sent[0]++ % emails.length], password}));
      assertThat(user.letThrough()).as("the user's burst is 3").isBetween(3, 3 + secondsSince(start));
    }
  }

  @Test
  void a_credential_names_the_key_or_user_whatever_its_spelling() {
    String basic = java.util.Base64.getEncoder().encodeToString("Ann@Shop.Example:pw".getBytes(StandardCharsets.UTF_8));
    String lower = java.util.Base64.getEncoder().encodeToString("ann@shop.example:pw".getBytes(StandardCharsets.UTF_8));
    assertThat(RateLimitFilter.credential("bAsIc  " + basic)).isEqualTo(RateLimitFilter.credential("Basic " + lower));
    assertThat(RateLimitFilter.credential("Basic " + lower))
        .as("another password is another credential: a guess does not drain the user's bucket")
        .isNotEqualTo(RateLimitFilter.credential("Basic " + java.util.Base64.getEncoder()
            .encodeToString("ann@shop.example:other".getBytes(StandardCharsets.UTF_8))));
    assertThat(RateLimitFilter.credential("Bearer tg_1")).isEqualTo(RateLimitFilter.credential(" BEARER   tg_1 "))
        .isNotEqualTo(RateLimitFilter.credential("Bearer tg_2"));
  }

  /**
   * A made-up credential per request does not escape the limit: failures count per address, on
   * both APIs together. Each guess costs a password check, and the address earns a guess back
   * every second, so on a busy machine five guesses may take long enough to earn a sixth. Hence
   * the guesses go on until the address is refused, and those let through are held to what the
   * limit allows in the time they took: the burst, then one a second. A guess that takes a second
   * or more (a loaded machine) earns its own way back; then the user's sign-in limit ends the
   * guesses after ten, and its refusals, answered at once, count against the address as well.
   */
  @Test
  void guesses_with_a_new_credential_each_time_are_limited_by_address() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_RATE_LIMIT", "1", "TOLLGATE_RATE_LIMIT_BURST", "5"))) {
      String[] user = gw.merchantUser(gw.merchant, "guessed@shop.example", Permission.SHOP_EDIT);
      long start = System.nanoTime();
      int refused = 0;
      TestGateway.Answer guess;
      while ((guess = gw.merchantGet("/merchant-api/v1/shops", new String[] {user[0], "guess-" + refused}))
          .status() == 401 || guess.status() == 429 && guess.json().get("message").asText()
              .startsWith("Too many failed sign-ins")) {
        refused++;
        assertThat(refused).as("guesses let through").isLessThan(50);
      }
      assertThat(guess.status()).isEqualTo(429);
      assertThat(guess.json().get("message").asText()).startsWith("Too many refused credentials from this address");
      assertThat(refused).isBetween(5, 5 + secondsSince(start));

      start = System.nanoTime();
      int gatewayGuesses = 0;
      TestGateway.Answer answer;
      while ((answer = gw.get("/api/v1/payments", "tg_test_made_up_key_number_" + gatewayGuesses)).status() == 401) {
        gatewayGuesses++;
        assertThat(gatewayGuesses).as("gateway guesses let through").isLessThan(50);
      }
      assertThat(answer.status()).isEqualTo(429);
      assertThat(gatewayGuesses).as("the address has used its burst").isLessThanOrEqualTo(secondsSince(start));
      assertThat(answer.json().get("message").asText())
          .as("it is the address that is held back, not the key it tried")
          .startsWith("Too many refused credentials from this address");
    }
  }

  /**
   * Every path outside the two APIs is limited per client address: the checkout page and its
   * forms, the docs, unknown paths. A made-up credential per request does not escape it; a
   * checkout page is refused with a page of the checkout's, which a browser shows, anything else
   * in the envelope; the health checks and metrics are never held back, nor the APIs by it.
   * Before, one address could send these as fast as it liked.
   */
  @Test
  void paths_outside_the_apis_are_limited_per_address_but_never_the_health_checks() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_PAGE_RATE_LIMIT", "1"))) {
      String payment = gw.deposit("10.00", "EUR");
      long start = System.nanoTime();
      int shown = 0;
      TestGateway.Answer page;
      while ((page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + payment)).GET()
          .header("Authorization", "Bearer made-up-" + shown))).status() == 200) {
        shown++;
        assertThat(shown).as("pages let through").isLessThan(50);
      }
      assertThat(page.status()).isEqualTo(429);
      assertThat(shown).as("the burst is twice the rate").isBetween(2, 2 + secondsSince(start));
      assertThat(Integer.parseInt(page.header("Retry-After"))).isBetween(1, 2);
      assertThat(page.header("Content-Type")).isEqualToIgnoringWhitespace("text/html;charset=utf-8");
      assertThat(page.header("Content-Security-Policy")).startsWith("default-src 'none'");
      assertThat(page.header("Cache-Control")).isEqualTo("no-store");
      assertThat(page.body()).contains("<h1>Too many requests</h1>").contains("then reload the page");

      TestGateway.Answer form = untilLimited(gw, () -> HttpRequest.newBuilder(
          gw.uri("/checkout/" + payment + "/cancel")).POST(HttpRequest.BodyPublishers.ofString("csrf=x"))
          .header("Content-Type", "application/x-www-form-urlencoded"));
      assertThat(form.header("Content-Type")).isEqualToIgnoringWhitespace("text/html;charset=utf-8");
      assertThat(form.header("Retry-After")).isNotNull();
      assertThat(form.body()).contains("<h1>Too many requests</h1>");
      for (String path : new String[] {"/docs/", "/no/such/path"}) {
        TestGateway.Answer limited = untilLimited(gw, () -> HttpRequest.newBuilder(gw.uri(path)).GET());
        assertThat(limited.header("Content-Type")).isEqualTo("application/json");
        assertThat(limited.header("Retry-After")).isNotNull();
        assertThat(limited.json().get("message").asText())
            .startsWith("Too many requests from this address: at most 1 a second");
        assertThat(limited.json().get("path").asText()).isEqualTo(path);
      }
      for (int i = 0; i < 20; i++) {
        for (String path : OpsServlet.PATHS) {
          assertThat(gw.send(HttpRequest.newBuilder(gw.uri(path)).GET()).status()).as(path).isEqualTo(200);
        }
      }
      assertThat(gw.get("/api/v1/payments").status()).as("the APIs have their own limit").isEqualTo(200);
    }
  }

  /** The first 429 {@code request} is answered with, once the few requests the limit may let through are. */
  private static TestGateway.Answer untilLimited(TestGateway gw,
      java.util.function.Supplier<HttpRequest.Builder> request) {
    for (int i = 0; i < 10; i++) {
      TestGateway.Answer answer = gw.send(request.get());
      if (answer.status() == 429) {
        return answer;
      }
    }
    throw new AssertionError("never limited");
  }

  /**
   * Someone guessing a merchant user's password gets ten wrong guesses checked, then 429 in the
   * envelope, before the password is looked at, even the right one; another user is not held
   * back. Before, a client could have every guess checked at the rate its address was allowed.
   */
  @Test
  void guessing_a_merchant_user_s_password_is_held_back_after_ten_wrong_guesses() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of())) {
      String[] user = gw.merchantUser(gw.merchant, "guessed2@shop.example", Permission.SHOP_EDIT);
      String[] other = gw.merchantUser(gw.merchant, "bystander@shop.example", Permission.SHOP_EDIT);
      for (int i = 0; i < 10; i++) {
        assertThat(gw.merchantGet("/merchant-api/v1/shops", new String[] {user[0], "guess number " + i}).status())
            .isEqualTo(401);
      }
      TestGateway.Answer held = gw.merchantGet("/merchant-api/v1/shops", user);
      assertThat(held.status()).isEqualTo(429);
      assertThat(Integer.parseInt(held.header("Retry-After"))).as("a minute, less the time the guesses took")
          .isBetween(40, 60);
      assertThat(held.json().get("error").asText()).isEqualTo("Too Many Requests");
      assertThat(held.json().get("message").asText())
          .startsWith("Too many failed sign-ins for this user; retry after ");
      assertThat(held.json().get("path").asText()).isEqualTo("/merchant-api/v1/shops");
      assertThat(gw.merchantGet("/merchant-api/v1/shops", other).status()).isEqualTo(200);
    }
  }

  /**
   * A client out of guesses for a user is answered 429 by the sign-in limit, without a password
   * check, and those refusals count against its address as a 401 does. Uncounted, it went on
   * sending a new password per request, each the first of its own bucket, as fast as it liked.
   * The address's burst (15) outlasts the ten guesses the sign-in limit allows; those and the
   * refusals after them let through are held to the burst, then one a second.
   */
  @Test
  void sign_ins_refused_for_too_many_guesses_count_against_the_address() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_RATE_LIMIT", "1", "TOLLGATE_RATE_LIMIT_BURST", "15"))) {
      String[] user = gw.merchantUser(gw.merchant, "held@shop.example", Permission.SHOP_EDIT);
      long start = System.nanoTime();
      for (int i = 0; i < 10; i++) {
        assertThat(gw.merchantGet("/merchant-api/v1/shops", new String[] {user[0], "guess number " + i}).status())
            .isEqualTo(401);
      }
      int heldBack = 0;
      TestGateway.Answer answer;
      while ((answer = gw.merchantGet("/merchant-api/v1/shops", new String[] {user[0], "held guess " + heldBack}))
          .status() == 429 && answer.json().get("message").asText().startsWith("Too many failed sign-ins")) {
        heldBack++;
        assertThat(heldBack).as("refused sign-ins let through").isLessThan(50);
      }
      assertThat(answer.status()).isEqualTo(429);
      assertThat(answer.json().get("message").asText()).startsWith("Too many refused credentials from this address");
      assertThat(10 + heldBack).isBetween(15, 15 + secondsSince(start));
    }
  }

  /**
   * Behind a trusted load balancer each client is the address it forwards: someone guessing from
   * one is held back, the user's own integration from another is not. Without the setting every
   * client had the balancer's address, and ten guesses held the user back for everyone.
   */
  @Test
  void behind_a_trusted_proxy_guesses_are_held_back_per_forwarded_client() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_TRUSTED_PROXIES", "127.0.0.1, ::1"))) {
      String[] user = gw.merchantUser(gw.merchant, "behind@shop.example", Permission.SHOP_EDIT);
      for (int i = 0; i < 10; i++) {
        assertThat(signIn(gw, user[0], "guess number " + i, "203.0.113.9")).isEqualTo(401);
      }
      assertThat(signIn(gw, user[0], user[1], "203.0.113.9")).isEqualTo(429);
      assertThat(signIn(gw, user[0], user[1], "198.51.100.7")).isEqualTo(200);
    }
  }

  private static int signIn(TestGateway gw, String email, String password, String forwardedFor) {
    return gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/merchant-api/v1/shops")).GET()
        .header("Authorization", TestGateway.basic(new String[] {email, password}))
        .header("X-Forwarded-For", forwardedFor)).status();
  }

  /** The 429 a run of requests ended with, and how many were let through (200) before it. */
  private record Limited(int letThrough, TestGateway.Answer refusal) {}

  /** Sends {@code request} until it is answered 429, each answer before it a 200. */
  private static Limited countUntilLimited(java.util.function.Supplier<TestGateway.Answer> request) {
    int letThrough = 0;
    TestGateway.Answer answer;
    while ((answer = request.get()).status() != 429) {
      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      letThrough++;
      assertThat(letThrough).as("requests let through").isLessThan(50);
    }
    return new Limited(letThrough, answer);
  }

  /** Whole seconds since {@code start}, rounded up. */
  private static int secondsSince(long start) {
    return (int) Math.ceil((System.nanoTime() - start) / 1e9);
  }

  /**
   * A flood of new addresses or keys past the bound used to clear every bucket, an address held
   * back for its refused credentials with them. Only buckets that have filled up again go now.
   */
  @Test
  void a_flood_of_new_clients_does_not_free_an_address_held_back() {
    RateLimitFilter limit = new RateLimitFilter(10, 50, 1_000);
    long second = 1_000_000_000L;
    for (int i = 0; i < 50; i++) {
      assertThat(limit.take("failed:203.0.113.9", 0)).isZero();
    }
    assertThat(limit.waitFor("failed:203.0.113.9", 0)).as("held back").isPositive();
    // three seconds of new clients, a thousand a second: each takes one token and is full again
    // a tenth of a second later
    for (int i = 0; i < 3_000; i++) {
      limit.take("ip:198.51.100." + i, i * second / 1_000);
    }
    assertThat(limit.buckets()).as("bounded").isLessThanOrEqualTo(1_001);
    // three seconds at 10 a second have given the address 30 tries back, not a fresh 50
    int allowed = 0;
    while (limit.take("failed:203.0.113.9", 3 * second) == 0) {
      allowed++;
    }
    assertThat(allowed).isEqualTo(30);
  }

  @Test
  void the_limit_refills_with_time() throws Exception {
    RateLimitFilter limit = new RateLimitFilter(10, 2);
    long t = 0;
    assertThat(limit.take("k", t)).isZero();
    assertThat(limit.take("k", t)).isZero();
    long wait = limit.take("k", t);
    assertThat(wait).isBetween(90_000_000L, 110_000_000L);
    assertThat(limit.take("k", t + 100_000_000L)).isZero();
    assertThat(limit.take("other", t)).isZero();
  }
}
