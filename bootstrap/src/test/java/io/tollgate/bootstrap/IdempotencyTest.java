package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.bootstrap.TestGateway.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class IdempotencyTest {

  static TestGateway gw;
  static final String BODY = "{\"paymentType\":\"DEPOSIT\",\"amount\":12.34,\"currency\":\"EUR\",\"referenceId\":\"idem\"}";

  /** The deposits whose next authorization fails with an error, once, as a dropped connection does. */
  static final Set<String> FAIL_NEXT_AUTHORIZATION = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of(), sandbox -> UnansweringTerminal.around(sandbox, (method, args) ->
        method.equals("authorize")
            && FAIL_NEXT_AUTHORIZATION.remove(((PaymentProcessor.CardCharge) args[0]).payment().value())));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void the_same_key_and_body_returns_the_first_payment_and_creates_nothing() {
    Answer first = gw.post("/api/v1/payments", BODY, gw.apiKey, "key-1");
    int count = gw.countPayments();
    // Same request with its keys in another order and other white space.
    Answer again = gw.post("/api/v1/payments",
        "{ \"referenceId\":\"idem\", \"currency\":\"EUR\", \"amount\":12.340, \"paymentType\":\"DEPOSIT\" }",
        gw.apiKey, "key-1");

    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().at("/result/id").asText()).isEqualTo(first.json().at("/result/id").asText());
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(gw.countPayments()).isEqualTo(count);
  }

  /**
   * A client that lost the first response retries with the key, possibly after the payment
   * moved on: it gets the first answer again, the deposit's redirectUrl with it.
   */
  @Test
  void a_replay_answers_as_the_first_time_though_the_payment_moved_on() {
    String card = "{\"paymentType\":\"DEPOSIT\",\"amount\":12.34,\"currency\":\"EUR\",\"card\":{"
        + "\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}";
    Answer first = gw.post("/api/v1/payments", card, gw.apiKey, "key-moved-on");
    String id = first.json().at("/result/id").asText();
    assertThat(first.json().at("/result/state").asText()).isEqualTo("CHECKOUT");
    assertThat(first.json().at("/result/redirectUrl").asText()).isNotBlank();
    assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}").json().at("/result/state")
        .asText()).isEqualTo("COMPLETED");

    Answer again = gw.post("/api/v1/payments", card, gw.apiKey, "key-moved-on");
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().get("result")).isEqualTo(first.json().get("result"));
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  @Test
  void the_same_key_with_another_body_is_a_409() {
    gw.post("/api/v1/payments", BODY, gw.apiKey, "key-2");
    int count = gw.countPayments();
    Answer other = gw.post("/api/v1/payments", BODY.replace("12.34", "99.00"), gw.apiKey, "key-2");
    assertThat(other.status()).isEqualTo(409);
    assertThat(other.json().get("error").asText()).isEqualTo("Conflict");
    assertThat(gw.countPayments()).isEqualTo(count);
  }

  /**
   * The security code is never kept, not even inside the digest that tells a retry from another
   * request: a retry that differs only in it is answered as the first request.
   */
  @Test
  void the_security_code_is_no_part_of_what_the_key_remembers() {
    String card = """
        {"paymentType":"DEPOSIT","amount":3.00,"currency":"EUR",
         "card":{"cardNumber":"4000000000000408","cardSecurityCode":"%s","expiryMonth":"12","expiryYear":"2045"}}""";
    Answer first = gw.post("/api/v1/payments", card.formatted("123"), gw.apiKey, "key-cvv");
    assertThat(first.status()).isEqualTo(200);
    Answer again = gw.post("/api/v1/payments", card.formatted("999"), gw.apiKey, "key-cvv");
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().at("/result/id").asText()).isEqualTo(first.json().at("/result/id").asText());
    Answer other = gw.post("/api/v1/payments", card.formatted("123").replace("3.00", "4.00"), gw.apiKey, "key-cvv");
    assertThat(other.status()).as("the rest of the card still counts").isEqualTo(409);
  }

  /** A key is remembered for 24 hours, and then forgotten by the background jobs, digest and all. */
  @Test
  void a_key_past_its_24_hours_is_forgotten() throws Exception {
    gw.post("/api/v1/payments", BODY, gw.apiKey, "key-forgotten");
    gw.database.jdbi().useHandle(h -> h.execute(
        "UPDATE idempotency_keys SET created = created - interval '25 hours' WHERE idempotency_key = 'key-forgotten'"));
    assertThat(awaitForgotten("key-forgotten")).isZero();
  }

  /**
   * The other side of the 24 hours: a key used 23 hours ago outlives the background jobs that
   * forget one used 25 hours ago, and its retry is still answered with the first payment.
   */
  @Test
  void a_key_within_its_24_hours_outlives_the_jobs_and_is_still_replayed() throws Exception {
    Answer first = gw.post("/api/v1/payments", BODY, gw.apiKey, "key-kept");
    gw.post("/api/v1/payments", BODY, gw.apiKey, "key-expiring");
    // both at once: the jobs that forget the one have seen the other
    gw.database.jdbi().useHandle(h -> h.execute("""
        UPDATE idempotency_keys
           SET created = created - CASE idempotency_key WHEN 'key-kept' THEN interval '23 hours'
                                                        ELSE interval '25 hours' END
         WHERE idempotency_key IN ('key-kept', 'key-expiring')"""));
    assertThat(awaitForgotten("key-expiring")).as("the jobs ran").isZero();
    assertThat(keys("key-kept")).isEqualTo(1);

    int count = gw.countPayments();
    Answer again = gw.post("/api/v1/payments", BODY, gw.apiKey, "key-kept");
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().get("result")).isEqualTo(first.json().get("result"));
    assertThat(gw.countPayments()).isEqualTo(count);
  }

  /** How many of the rows of {@code key} are left once the jobs forget them, or 10 s have passed. */
  private static long awaitForgotten(String key) throws InterruptedException {
    long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    long left;
    do {
      Thread.sleep(50);
      left = keys(key);
    } while (left > 0 && System.nanoTime() < until);
    return left;
  }

  private static long keys(String key) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(
        "SELECT count(*) FROM idempotency_keys WHERE idempotency_key = :key").bind("key", key).mapTo(Long.class).one());
  }

  @Test
  void keys_are_scoped_to_the_shop() {
    var otherShop = gw.createShop(gw.merchant, "Second", false);
    String otherKey = gw.issueKey(otherShop, io.tollgate.domain.shop.Environment.SANDBOX);
    Answer mine = gw.post("/api/v1/payments", BODY, gw.apiKey, "shared-key");
    Answer theirs = gw.post("/api/v1/payments", BODY, otherKey, "shared-key");
    assertThat(theirs.status()).isEqualTo(200);
    assertThat(theirs.json().at("/result/id").asText()).isNotEqualTo(mine.json().at("/result/id").asText());
  }

  @Test
  void a_key_over_255_characters_is_a_400() {
    Answer a = gw.post("/api/v1/payments", BODY, gw.apiKey, "k".repeat(256));
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().at("/errors/0/field").asText()).isEqualTo("Idempotency-Key");
  }

  @Test
  void a_refused_request_does_not_use_up_the_key() {
    assertThat(gw.post("/api/v1/payments", BODY.replace("EUR", "XXX"), gw.apiKey, "key-3").status()).isEqualTo(400);
    assertThat(gw.post("/api/v1/payments", BODY, gw.apiKey, "key-3").status()).isEqualTo(200);
  }

  @Test
  void twenty_concurrent_requests_with_one_key_create_exactly_one_payment() throws Exception {
    int before = gw.countPayments();
    ExecutorService pool = Executors.newFixedThreadPool(20);
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Answer>> answers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      answers.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return gw.post("/api/v1/payments", BODY, gw.apiKey, "concurrent-key");
      }, pool));
    }
    go.countDown();
    Set<String> ids = new HashSet<>();
    for (CompletableFuture<Answer> f : answers) {
      Answer a = f.get();
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      ids.add(a.json().at("/result/id").asText());
    }
    pool.shutdown();
    assertThat(ids).hasSize(1);
    assertThat(gw.countPayments()).isEqualTo(before + 1);
  }

  /**
   * A host-to-host PATCH whose answer was lost is retried with its key: the deposit is executed
   * once and the retry gets the first answer, marked as a replay, where without a key it is a
   * 409. The same key with another body is a 409 and changes nothing.
   */
  @Test
  void a_host_to_host_patch_retried_with_its_key_executes_once_and_answers_as_the_first_time() {
    String id = cardDeposit("4000000000000408");
    Answer first = patch(id, "{\"customerIp\":\"203.0.113.7\",\"browserLanguage\":\"de\"}", "h2h-lost-answer");
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(first.header("Idempotent-Replayed")).isNull();

    Answer again = patch(id, "{ \"browserLanguage\": \"de\", \"customerIp\": \"203.0.113.7\" }", "h2h-lost-answer");
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().get("result")).isEqualTo(first.json().get("result"));

    Answer otherBody = patch(id, "{\"customerIp\":\"203.0.113.8\"}", "h2h-lost-answer");
    assertThat(otherBody.status()).isEqualTo(409);
    assertThat(otherBody.json().get("message").asText()).contains("Idempotency-Key");
    Answer withoutKey = patch(id, "{\"customerIp\":\"203.0.113.7\"}", null);
    assertThat(withoutKey.status()).isEqualTo(409);
    assertThat(withoutKey.json().get("message").asText()).isEqualTo("1.00 Illegal Workflow State");
    assertThat(depositSteps(id)).as("charged once").isEqualTo(1);
  }

  /**
   * A PATCH that fails after it changed the deposit (its terminal committed, or, as here, its
   * answer stored, and then the request failed): the key keeps the deposit as that request left
   * it, and the retry gets it as a replay instead of executing again or a 409.
   */
  @Test
  void a_patch_that_failed_after_it_changed_the_deposit_answers_the_retry_with_the_deposit() throws Exception {
    String id = cardDeposit("4000000000000408");
    var command = new io.tollgate.application.port.in.PaymentActionsUseCase.HostToHostCommand("203.0.113.7", null,
        null, null, null, null, null, null, null, null, null);
    failPatchWithKey(id, "h2h-failed-late", () -> gw.app.services().processing().executeHostToHost(gw.shop, id, command));

    Answer retry = patch(id, H2H_BODY, "h2h-failed-late");

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(depositSteps(id)).as("charged once").isEqualTo(1);
  }

  /**
   * A PATCH whose terminal call fails with an error (a 500) once the deposit was committed as sent
   * to it: the retry with the key is answered with the deposit as it stands, PENDING while nobody
   * knows its outcome and COMPLETED once the job for unanswered deposits asked the terminal again,
   * not as the failed request left it for the key's 24 hours.
   */
  @Test
  void a_patch_whose_terminal_call_failed_answers_the_retry_with_the_deposit_as_it_stands() throws Exception {
    String id = cardDeposit("4000000000000408");
    FAIL_NEXT_AUTHORIZATION.add(id);
    Answer failed = patch(id, H2H_BODY, "h2h-terminal-failed");
    assertThat(failed.status()).as(failed.body()).isEqualTo(500);
    assertThat(patch(id, H2H_BODY, "h2h-terminal-failed").json().at("/result/state").asText()).isEqualTo("PENDING");

    completedByTheJob(id);
    Answer retry = patch(id, H2H_BODY, "h2h-terminal-failed");

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(depositSteps(id)).as("charged once").isEqualTo(1);
  }

  /**
   * A PATCH cut short (the service stopped) while its terminal charged: the retry that takes its
   * claim over is answered with the deposit PENDING, as it stands, and a retry after the job for
   * unanswered deposits completed it with the deposit COMPLETED, not as the first retry found it.
   */
  @Test
  void a_patch_cut_short_while_its_terminal_charged_answers_each_retry_with_the_deposit_as_it_stands()
      throws Exception {
    String id = cardDeposit("4000000000000408");
    FAIL_NEXT_AUTHORIZATION.add(id);
    var command = new io.tollgate.application.port.in.PaymentActionsUseCase.HostToHostCommand("203.0.113.7", null,
        null, null, null, null, null, null, null, null, null);
    String request = patchRequest(id);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gw.app.services().payments().once(gw.shop,
        "h2h-cut-short-charging", request, id, () -> {
          org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> gw.app.services().processing().executeHostToHost(gw.shop, id, command))
              .hasMessageContaining("did not answer");
          throw new Error("the service stopped");
        })).isInstanceOf(Error.class);
    age("h2h-cut-short-charging");
    Answer taken = patch(id, H2H_BODY, "h2h-cut-short-charging");
    assertThat(taken.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(taken.json().at("/result/state").asText()).isEqualTo("PENDING");

    completedByTheJob(id);
    Answer retry = patch(id, H2H_BODY, "h2h-cut-short-charging");

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(depositSteps(id)).as("charged once").isEqualTo(1);
  }

  /** Two minutes on, the terminal's answer to the PENDING deposit is overdue: the job asks it again. */
  private static void completedByTheJob(String id) throws InterruptedException {
    gw.database.jdbi().useHandle(h -> h.createUpdate(
        "UPDATE payments SET updated = updated - interval '3 minutes' WHERE id = :id").bind("id", id).execute());
    assertThat(gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10)).get("state").asText())
        .isEqualTo("COMPLETED");
  }

  private static final String H2H_BODY = "{\"customerIp\":\"203.0.113.7\"}";

  /** What the gateway fingerprints a PATCH with {@link #H2H_BODY} as. */
  private static String patchRequest(String id) throws Exception {
    return "PATCH /payments/" + id + " " + io.tollgate.rest.common.Json.fingerprint(
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(H2H_BODY));
  }

  /**
   * The PATCH with {@link #H2H_BODY} and the key, as the gateway runs it, failing with an error
   * after {@code before} (a part of the action, or nothing).
   */
  private static void failPatchWithKey(String id, String key, Runnable before) throws Exception {
    String request = patchRequest(id);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gw.app.services().payments().once(gw.shop, key, request, id,
        () -> {
          before.run();
          throw new IllegalStateException("the request failed");
        })).isInstanceOf(IllegalStateException.class);
  }

  /** A PATCH that failed before it changed anything leaves its key free: the retry executes. */
  @Test
  void a_patch_that_failed_before_it_changed_anything_leaves_the_key_to_the_retry() throws Exception {
    String id = cardDeposit("4000000000000408");
    failPatchWithKey(id, "h2h-failed-early", () -> { });

    Answer retry = patch(id, H2H_BODY, "h2h-failed-early");

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isNull();
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  /**
   * A PATCH cut short (the service stopped) after it changed the deposit and before it recorded
   * its answer: once its claim is old enough to be taken for cut short, the retry is answered with
   * the deposit as it stands, and it is not executed again.
   */
  @Test
  void a_patch_cut_short_after_it_changed_the_deposit_answers_the_retry_with_the_deposit() {
    String id = cardDeposit("4000000000000408");
    assertThat(patch(id, H2H_BODY, "h2h-cut-short").status()).isEqualTo(200);
    // as the request leaves the key when it stops between its last write and its answer
    gw.database.jdbi().useHandle(h -> h.createUpdate("""
            UPDATE idempotency_keys SET payment_id = NULL, answer = NULL, created = created - interval '3 minutes'
            WHERE idempotency_key = 'h2h-cut-short'""").execute());

    Answer retry = patch(id, H2H_BODY, "h2h-cut-short");

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(depositSteps(id)).as("charged once").isEqualTo(1);
  }

  /**
   * A capture with a key cut short before it changed anything, and a void without a key
   * meanwhile: the retry is not answered with the voided payment as if its capture had been
   * made (a replay only answers what the key's own request changed), but runs, and is refused.
   */
  @Test
  void a_capture_cut_short_is_not_answered_with_a_void_made_meanwhile() {
    String id = authorized("9.00");
    cutShort(id, "capture-cut-short", () -> { });
    assertThat(gw.post("/api/v1/payments/" + id + "/void", "").json().at("/result/state").asText())
        .isEqualTo("CANCELLED");
    age("capture-cut-short");

    Answer retry = gw.post("/api/v1/payments/" + id + "/capture", "", gw.apiKey, "capture-cut-short");

    assertThat(retry.status()).as(retry.body()).isEqualTo(409);
    assertThat(retry.header("Idempotent-Replayed")).isNull();
    assertThat(retry.json().get("message").asText()).isEqualTo("1.00 Illegal Workflow State");
  }

  /**
   * A capture with a key that fails with an error while a void without a key commits: the key
   * is not completed with the voided payment, and its retry runs, and is refused.
   */
  @Test
  void a_capture_that_failed_is_not_answered_with_a_void_made_meanwhile() {
    String id = authorized("8.00");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gw.app.services().payments().once(gw.shop,
        "capture-failed", captureRequest(id), id, () -> {
          assertThat(gw.post("/api/v1/payments/" + id + "/void", "").status()).isEqualTo(200);
          throw new IllegalStateException("the request failed");
        })).isInstanceOf(IllegalStateException.class);

    Answer retry = gw.post("/api/v1/payments/" + id + "/capture", "", gw.apiKey, "capture-failed");

    assertThat(retry.status()).as(retry.body()).isEqualTo(409);
    assertThat(retry.header("Idempotent-Replayed")).isNull();
  }

  /**
   * A retry that took a cut-short claim over and then failed with a 503 before acting gives the
   * claim back as it found it, as a refusal does: the next retry, which the 503 asks for, runs
   * the capture at once. It waited 30 s and was told the key's request was still being
   * processed, for two minutes.
   */
  @Test
  void a_retry_that_took_a_claim_over_and_got_a_503_lets_the_next_retry_run() {
    String id = authorized("7.00");
    cutShort(id, "capture-503", () -> { });
    age("capture-503");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gw.app.services().payments().once(gw.shop,
        "capture-503", captureRequest(id), id, () -> {
          throw new io.tollgate.domain.DomainException.Unavailable("the database is unavailable");
        })).isInstanceOf(io.tollgate.domain.DomainException.Unavailable.class);

    Answer retry = gw.post("/api/v1/payments/" + id + "/capture", "", gw.apiKey, "capture-503");

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  /**
   * A capture with a key cut short after it captured: its own step is its answer, whoever moved
   * the payment after it (here nobody could: a void of a captured payment is refused).
   */
  @Test
  void a_capture_cut_short_after_it_captured_answers_the_retry_with_its_capture() {
    String id = authorized("6.00");
    cutShort(id, "capture-done", () -> gw.app.services().processing().capture(gw.shop, id, null));
    age("capture-done");

    Answer retry = gw.post("/api/v1/payments/" + id + "/capture", "", gw.apiKey, "capture-done");

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  /** A pre-authorization of that amount, AUTHORIZED. */
  static String authorized(String amount) {
    String id = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", amount, true);
    assertThat(gw.patch("/api/v1/payments/" + id, H2H_BODY).json().at("/result/state").asText())
        .isEqualTo("AUTHORIZED");
    return id;
  }

  /** What the gateway fingerprints a capture without a body as. */
  static String captureRequest(String id) {
    return "POST /payments/" + id + "/capture ";
  }

  /**
   * A capture without a body with the key, as the gateway runs it, stopped after {@code before}
   * by an Error, which the claim is not given back for, as when the service stops: its claim is
   * left unfinished.
   */
  private static void cutShort(String id, String key, Runnable before) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gw.app.services().payments().once(gw.shop, key,
        captureRequest(id), id, () -> {
          before.run();
          throw new Error("the service stopped");
        })).isInstanceOf(Error.class);
  }

  /** Makes the key's unfinished claim old enough to be taken for cut short. */
  private static void age(String key) {
    gw.database.jdbi().useHandle(h -> h.createUpdate("""
            UPDATE idempotency_keys SET created = created - interval '3 minutes' WHERE idempotency_key = :key""")
        .bind("key", key).execute());
  }

  /** A 3-D Secure deposit: the retry gets the challenge's redirectUrl again. */
  @Test
  void a_retried_host_to_host_patch_of_a_3ds_card_gets_its_redirect_url_again() {
    String id = cardDeposit("4000000000000002");
    Answer first = patch(id, "{\"customerIp\":\"203.0.113.7\"}", "h2h-3ds");
    assertThat(first.json().at("/result/state").asText()).isEqualTo("PENDING");
    assertThat(first.json().at("/result/redirectUrl").asText()).isNotBlank();
    Answer again = patch(id, "{\"customerIp\":\"203.0.113.7\"}", "h2h-3ds");
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().get("result")).isEqualTo(first.json().get("result"));
  }

  @Test
  void concurrent_host_to_host_patches_with_one_key_execute_the_deposit_once_and_all_get_its_answer() throws Exception {
    String id = cardDeposit("4000000000000408");
    ExecutorService pool = Executors.newFixedThreadPool(10);
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Answer>> answers = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      answers.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return patch(id, "{\"customerIp\":\"203.0.113.7\"}", "h2h-concurrent");
      }, pool));
    }
    go.countDown();
    for (CompletableFuture<Answer> f : answers) {
      Answer a = f.get();
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    }
    pool.shutdown();
    assertThat(depositSteps(id)).isEqualTo(1);
  }

  /** Every violation at once (CONTRACT section 0): a key too long is listed with the body's own. */
  @Test
  void a_key_over_255_characters_is_listed_with_the_bodys_violations() {
    int before = gw.countPayments();
    Answer a = gw.post("/api/v1/payments", "{\"amount\":5,\"currency\":\"EUR\"}", gw.apiKey, "k".repeat(256));
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder("Idempotency-Key", "paymentType");
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  @Test
  void a_host_to_host_patch_with_a_key_over_255_characters_is_a_400_and_executes_nothing() {
    String id = cardDeposit("4000000000000408");
    Answer a = patch(id, "{\"customerIp\":\"203.0.113.7\"}", "k".repeat(256));
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().at("/errors/0/field").asText()).isEqualTo("Idempotency-Key");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
  }

  /** A deposit of this card in CHECKOUT, created without a key. */
  static String cardDeposit(String card) {
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":7.00,\"currency\":\"EUR\",\"card\":{"
        + "\"cardNumber\":\"" + card + "\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}", gw.apiKey, null);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  static Answer patch(String id, String body, String idempotencyKey) {
    java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + id))
        .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + gw.apiKey);
    if (idempotencyKey != null) {
      b.header("Idempotency-Key", idempotencyKey);
    }
    return gw.send(b);
  }

  /** How many DEPOSIT operations the payment has: one per execution. */
  static long depositSteps(String id) {
    var ops = gw.get("/api/v1/payments/" + id + "/operations").json().get("result");
    long n = 0;
    for (var op : ops) {
      if (op.get("operation").asText().equals("DEPOSIT")) {
        n++;
      }
    }
    return n;
  }
}
