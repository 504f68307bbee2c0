package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.PaymentId;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Captures and voids whose terminal's answer never reached the gateway: the step is committed as
 * asked before the terminal is asked, so a terminal that captured while its answer was lost
 * never sees a void of that payment, and the job for unanswered captures and voids asks it again
 * and completes the payment, with its ledger entry and webhook.
 */
class CaptureUnansweredTest {

  /** How the acquirer answers a payment's captures and voids. */
  enum Answering {
    /** Acts, and its answer is lost on the way back (the call times out). */
    ACTS_THEN_TIMES_OUT,
    /** Has not decided yet: PENDING, nothing done. */
    UNDECIDED,
    /** Refuses. */
    REFUSES,
    /** Takes two seconds to act and answer, as a slow acquirer may. */
    SLOW,
    /** Acts, and the service stops before its answer is back (an Error no request catches). */
    ACTS_THEN_SERVICE_STOPS
  }

  /**
   * The acquirer behind the sandbox for captures and voids: it de-duplicates a capture or void
   * made again by answering what it did, and refuses a void of what it captured and the reverse,
   * as a real one does.
   */
  static final class Acquirer implements PaymentProcessor {
    private final PaymentProcessor sandbox;
    final Map<String, Answering> answering = new ConcurrentHashMap<>();
    /** What the acquirer did of each payment: "captured 6.00 EUR", "voided". */
    final Map<String, List<String>> done = new ConcurrentHashMap<>();
    /** The calls it was sent, by payment. */
    final Map<String, List<String>> calls = new ConcurrentHashMap<>();

    Acquirer(PaymentProcessor sandbox) {
      this.sandbox = sandbox;
    }

    @Override
    public String terminalName() {
      return sandbox.terminalName();
    }

    @Override
    public Result authorize(CardCharge charge) {
      return sandbox.authorize(charge);
    }

    @Override
    public Result completeChallenge(CardCharge charge, boolean customerPassed) {
      return sandbox.completeChallenge(charge, customerPassed);
    }

    @Override
    public Result capture(PaymentId payment, Terminal terminal, String externalId, Money amount) {
      return act(payment, "captured " + amount);
    }

    @Override
    public Result voidAuthorization(PaymentId payment, Terminal terminal, String externalId) {
      return act(payment, "voided");
    }

    private synchronized Result act(PaymentId payment, String what) {
      calls.computeIfAbsent(payment.value(), p -> new CopyOnWriteArrayList<>()).add(what);
      List<String> did = done.computeIfAbsent(payment.value(), p -> new CopyOnWriteArrayList<>());
      Answering how = answering.get(payment.value());
      if (how == Answering.REFUSES || (!did.isEmpty() && !did.contains(what))) {
        return Result.declined(ErrorCode.E3_00_DECLINED_BY_ACQUIRER, "acq-" + payment.value(), "12");
      }
      if (how == Answering.SLOW) {
        try {
          wait(2_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (how == Answering.UNDECIDED) {
        return new Result(Result.Status.PENDING, null, null, "IN_PROGRESS", Map.of(), null);
      }
      if (!did.contains(what)) {
        did.add(what);
      }
      if (how == Answering.ACTS_THEN_SERVICE_STOPS) {
        throw new Error("the service stopped");
      }
      if (how == Answering.ACTS_THEN_TIMES_OUT) {
        throw new IllegalStateException("the terminal did not answer in time (it had received it)",
            new SocketTimeoutException("Read timed out"));
      }
      return Result.approved("acq-" + payment.value(), "00");
    }

    @Override
    public Result payout(CardCharge payout) {
      return sandbox.payout(payout);
    }

    @Override
    public Result bankPayout(PaymentId payout, Terminal terminal, Money amount,
        io.tollgate.domain.payment.Customer account) {
      return sandbox.bankPayout(payout, terminal, amount, account);
    }

    @Override
    public Result refund(PaymentId refund, PaymentId deposit, Terminal terminal, String depositExternalId,
        Money amount) {
      return sandbox.refund(refund, deposit, terminal, depositExternalId, amount);
    }

    @Override
    public Result startBankTransfer(PaymentId payment, Terminal terminal, Money amount,
        Map<String, String> additionalParameters) {
      return sandbox.startBankTransfer(payment, terminal, amount, additionalParameters);
    }

    @Override
    public Result bankTransferStatus(PaymentId payment, Terminal terminal, String externalId, Money expected,
        Map<String, String> additionalParameters) {
      return sandbox.bankTransferStatus(payment, terminal, externalId, expected, additionalParameters);
    }
  }

  static TestGateway gw;
  static Acquirer acquirer;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of(), sandbox -> acquirer = new Acquirer(sandbox));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static String authorized(String amount, Answering answering) {
    String id = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", amount, true);
    Answer a = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}");
    assertThat(a.json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
    if (answering != null) {
      acquirer.answering.put(id, answering);
    }
    return id;
  }

  private static List<String> steps(String id) {
    List<String> ops = new ArrayList<>();
    gw.get("/api/v1/payments/" + id + "/operations").json().get("result")
        .forEach(o -> ops.add(o.get("operation").asText() + ":" + o.get("paymentState").asText()));
    return ops;
  }

  /** Ages the payment past the time its terminal has to answer, for the job to ask it again. */
  private static void overdue(String id) {
    // the look moves back with the step, so that a step its merchant was told about stays so
    gw.database.jdbi().useHandle(h -> h.createUpdate(
        "UPDATE payments SET updated = updated - interval '3 minutes', asked_at = asked_at - interval '3 minutes',"
            + " checked = checked - interval '3 minutes' WHERE id = :id")
        .bind("id", id).execute());
  }

  /**
   * A capture of the whole amount with Idempotency-Key {@code key}, cut short (the service
   * stopped) once the acquirer answering {@link Answering#ACTS_THEN_SERVICE_STOPS} had it.
   */
  private static void captureCutShort(String id, String key) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gw.app.services().payments().once(gw.shop, key,
        "POST /payments/" + id + "/capture ", id, () -> gw.app.services().processing().capture(gw.shop, id, null)))
        .isInstanceOf(Error.class);
  }

  /** Ages the claim of {@code key} past the time a retry takes its request for cut short. */
  private static void claimTakenForCutShort(String key) {
    gw.database.jdbi().useHandle(h -> h.createUpdate(
        "UPDATE idempotency_keys SET created = created - interval '3 minutes' WHERE idempotency_key = :key")
        .bind("key", key).execute());
  }

  private static long events(String id, String state) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(
        "SELECT count(*) FROM webhook_events WHERE payment_id = :id AND payment_state = :state")
        .bind("id", id).bind("state", state).mapTo(Long.class).one());
  }

  @Test
  void a_capture_whose_answer_was_lost_is_never_voided_and_the_job_completes_it() throws Exception {
    String id = authorized("10.00", Answering.ACTS_THEN_TIMES_OUT);
    java.math.BigDecimal before = gw.ledgerSum(gw.shop, "EUR")[0];

    Answer lost = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":6.00}");
    assertThat(lost.status()).as(lost.body()).isEqualTo(500);
    assertThat(acquirer.done.get(id)).containsExactly("captured 6.00 EUR");
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
    assertThat(steps(id)).as("the contract's steps: a CAPTURE once captured").first().isEqualTo("DEPOSIT:AUTHORIZED");

    Answer voided = gw.post("/api/v1/payments/" + id + "/void", "");
    assertThat(voided.status()).as("a void after a capture the terminal may have made").isEqualTo(409);
    assertThat(voided.json().get("message").asText())
        .isEqualTo("1.00 Illegal Workflow State: capture of 6.00 EUR waits for the terminal's answer");
    Answer otherAmount = gw.post("/api/v1/payments/" + id + "/capture", "{\"amount\":7.00}");
    assertThat(otherAmount.status()).isEqualTo(409);
    assertThat(acquirer.calls.get(id)).as("neither was sent to the terminal").containsExactly("captured 6.00 EUR");

    // answering first: a job round between the two would find it undecided, and wait long to ask again
    acquirer.answering.remove(id);
    overdue(id);
    assertThat(gw.awaitStateOtherThan(id, "AUTHORIZED", Duration.ofSeconds(10)).get("amount").decimalValue())
        .isEqualByComparingTo("6.00");
    assertThat(steps(id)).startsWith("CAPTURE:COMPLETED", "DEPOSIT:AUTHORIZED");
    assertThat(acquirer.done.get(id)).containsExactly("captured 6.00 EUR");
    assertThat(gw.ledgerSum(gw.shop, "EUR")[0].subtract(before)).isEqualByComparingTo("6.00");
    assertThat(events(id, "COMPLETED")).isEqualTo(1);
  }

  /**
   * A pre-authorization captured minutes after it was authorized, at a slow terminal: the job
   * waits two minutes from the capture, not from the authorization, before it asks again, so
   * the request is answered the capture it asked for, and the terminal is asked once.
   */
  @Test
  void a_slow_capture_of_an_old_authorization_is_left_to_its_request() {
    String id = authorized("3.00", Answering.SLOW);
    overdue(id);
    Answer captured = gw.post("/api/v1/payments/" + id + "/capture", "");
    assertThat(captured.status()).as(captured.body()).isEqualTo(200);
    assertThat(captured.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(acquirer.calls.get(id)).containsExactly("captured 3.00 EUR");
  }

  @Test
  void a_capture_the_terminal_has_not_decided_is_asked_again_by_the_same_request() {
    String id = authorized("8.00", Answering.UNDECIDED);
    Answer waiting = gw.post("/api/v1/payments/" + id + "/capture", "", gw.apiKey, "capture-" + id);
    assertThat(waiting.status()).as(waiting.body()).isEqualTo(409);
    assertThat(waiting.json().get("message").asText()).startsWith("The terminal has not answered the capture of "
        + "8.00 EUR yet");
    assertThat(gw.post("/api/v1/payments/" + id + "/void", "").status()).isEqualTo(409);

    acquirer.answering.remove(id);
    Answer again = gw.post("/api/v1/payments/" + id + "/capture", "", gw.apiKey, "capture-" + id);
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(acquirer.calls.get(id)).containsExactly("captured 8.00 EUR", "captured 8.00 EUR");
    assertThat(steps(id)).startsWith("CAPTURE:COMPLETED", "DEPOSIT:AUTHORIZED");
  }

  /**
   * Told to make the capture again to learn its answer, a merchant whose capture the job has
   * since completed is answered the payment, with its Idempotency-Key or without, not the 409 of
   * a capture of a payment no longer AUTHORIZED; another amount is that 409.
   */
  @Test
  void a_capture_made_again_after_the_job_captured_it_is_answered_the_payment() throws Exception {
    String id = authorized("9.00", Answering.UNDECIDED);
    String path = "/api/v1/payments/" + id + "/capture";
    long overdueBefore = unanswered(Duration.ofMinutes(2));
    long askedBefore = unanswered(Duration.ofMinutes(-1));
    assertThat(gw.post(path, "{\"amount\":5.00}", gw.apiKey, "late-" + id).status()).isEqualTo(409);
    assertThat(unanswered(Duration.ofMinutes(2))).as("not overdue yet").isEqualTo(overdueBefore);
    assertThat(unanswered(Duration.ofMinutes(-1))).as("counted, asked just now").isEqualTo(askedBefore + 1);
    acquirer.answering.remove(id);
    overdue(id);
    gw.awaitStateOtherThan(id, "AUTHORIZED", Duration.ofSeconds(10));
    assertThat(unanswered(Duration.ofMinutes(-1))).as("answered, for the operators' alert").isEqualTo(askedBefore);

    Answer keyed = gw.post(path, "{\"amount\":5.00}", gw.apiKey, "late-" + id);
    assertThat(keyed.status()).as(keyed.body()).isEqualTo(200);
    assertThat(keyed.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(keyed.json().at("/result/amount").decimalValue()).isEqualByComparingTo("5.00");
    assertThat(gw.post(path, "{\"amount\":5.0}").status()).as("without a key").isEqualTo(200);
    assertThat(gw.post(path, "{\"amount\":4.00}").status()).as("another capture").isEqualTo(409);
    assertThat(gw.post("/api/v1/payments/" + id + "/void", "").status()).isEqualTo(409);
    assertThat(acquirer.done.get(id)).containsExactly("captured 5.00 EUR");
    assertThat(events(id, "COMPLETED")).isEqualTo(1);
  }

  /**
   * A full capture (no amount, or only the currency) made after a partial capture its terminal
   * first left unanswered, and the job has since completed, is another capture: the 409 of a
   * payment no longer AUTHORIZED, as the one naming the full amount is. It is not the request
   * made again, whose answer is the payment.
   */
  @Test
  void a_full_capture_after_a_partial_one_answered_since_is_another_capture() throws Exception {
    String id = authorized("9.00", Answering.UNDECIDED);
    String path = "/api/v1/payments/" + id + "/capture";
    assertThat(gw.post(path, "{\"amount\":5.00}").status()).isEqualTo(409);
    acquirer.answering.remove(id);
    overdue(id);
    gw.awaitStateOtherThan(id, "AUTHORIZED", Duration.ofSeconds(10));
    assertThat(gw.post(path, "{\"amount\":5.00}").status()).as("the partial capture made again").isEqualTo(200);

    assertThat(gw.post(path, "{\"amount\":9.00}").status()).as("the full amount named").isEqualTo(409);
    Answer none = gw.post(path, "");
    assertThat(none.status()).as("the full capture, without a body: " + none.body()).isEqualTo(409);
    Answer empty = gw.post(path, "{}");
    assertThat(empty.status()).as("the full capture, {}: " + empty.body()).isEqualTo(409);
    Answer currency = gw.post(path, "{\"currency\":\"EUR\"}");
    assertThat(currency.status()).as("the full capture, its currency named: " + currency.body()).isEqualTo(409);
    assertThat(acquirer.done.get(id)).containsExactly("captured 5.00 EUR");
  }

  /**
   * A capture its terminal keeps leaving undecided when the job asks: the job asks again less
   * and less often, as it does an unanswered deposit, not on every round.
   */
  @Test
  void the_job_asks_a_terminal_that_has_not_decided_again_later_not_at_once() throws Exception {
    String id = authorized("2.00", Answering.UNDECIDED);
    assertThat(gw.post("/api/v1/payments/" + id + "/capture", "").status()).isEqualTo(409);
    overdue(id);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (acquirer.calls.get(id).size() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(acquirer.calls.get(id)).as("asked by the job").hasSize(2);
    Thread.sleep(2_000);
    assertThat(acquirer.calls.get(id)).as("not again on the next rounds").hasSize(2);
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
  }

  /**
   * The payments whose terminal's answer has been missing for longer than {@code for}, as the
   * operators' gauge counts them (for two minutes); a negative one counts those asked just now.
   */
  private static long unanswered(Duration missingFor) {
    return gw.app.services().persistence().payments().countUnanswered(java.time.Instant.now().minus(missingFor));
  }

  @Test
  void a_refused_capture_leaves_the_pre_auth_to_void() {
    String id = authorized("5.00", Answering.REFUSES);
    Answer refused = gw.post("/api/v1/payments/" + id + "/capture", "");
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.json().get("message").asText()).startsWith("The processor refused the capture");
    assertThat(steps(id)).first().isEqualTo("DEPOSIT:AUTHORIZED");

    acquirer.answering.remove(id);
    Answer voided = gw.post("/api/v1/payments/" + id + "/void", "");
    assertThat(voided.status()).as(voided.body()).isEqualTo(200);
    assertThat(voided.json().at("/result/state").asText()).isEqualTo("CANCELLED");
  }

  /**
   * A capture with a key whose terminal's answer was lost (a 500, after the step was committed
   * as asked) changed nothing yet: the key is free, and its retry asks the terminal again and is
   * answered its capture, not replayed the AUTHORIZED payment as if that were the first answer.
   */
  @Test
  void a_keyed_capture_that_failed_after_it_asked_is_asked_again_by_its_retry() {
    String id = authorized("6.00", Answering.ACTS_THEN_TIMES_OUT);
    String path = "/api/v1/payments/" + id + "/capture";
    assertThat(gw.post(path, "", gw.apiKey, "lost-" + id).status()).isEqualTo(500);

    acquirer.answering.remove(id);
    Answer retry = gw.post(path, "", gw.apiKey, "lost-" + id);
    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isNull();
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(acquirer.calls.get(id)).containsExactly("captured 6.00 EUR", "captured 6.00 EUR");
    assertThat(acquirer.done.get(id)).containsExactly("captured 6.00 EUR");

    Answer again = gw.post(path, "", gw.apiKey, "lost-" + id);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().at("/result/state").asText()).isEqualTo("COMPLETED");
  }

  /**
   * The same lost answer stored by the job before the retry: the retry is answered the payment
   * the job captured.
   */
  @Test
  void a_keyed_capture_that_failed_after_it_asked_is_answered_the_jobs_capture_on_its_retry() throws Exception {
    String id = authorized("5.50", Answering.ACTS_THEN_TIMES_OUT);
    String path = "/api/v1/payments/" + id + "/capture";
    assertThat(gw.post(path, "", gw.apiKey, "lost-then-job-" + id).status()).isEqualTo(500);
    // answering first: a job round between the two would find it undecided, and wait long to ask again
    acquirer.answering.remove(id);
    overdue(id);
    assertThat(gw.awaitStateOtherThan(id, "AUTHORIZED", Duration.ofSeconds(10)).get("state").asText())
        .isEqualTo("COMPLETED");

    Answer retry = gw.post(path, "", gw.apiKey, "lost-then-job-" + id);
    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(acquirer.done.get(id)).containsExactly("captured 5.50 EUR");
  }

  /**
   * A capture with a key cut short once it had asked the terminal, retried with its key two
   * minutes on while the terminal has still not decided: the retry takes the claim over and is
   * told to make the request again, and the request made again at once asks the terminal again,
   * as it was told, not the 409 of a key whose request is still being processed.
   */
  @Test
  void a_keyed_capture_cut_short_then_told_not_answered_is_asked_again_by_its_next_retry() throws Exception {
    String id = authorized("6.50", Answering.ACTS_THEN_SERVICE_STOPS);
    String key = "stopped-then-undecided-" + id;
    String path = "/api/v1/payments/" + id + "/capture";
    captureCutShort(id, key);
    acquirer.answering.put(id, Answering.UNDECIDED);
    overdue(id);
    claimTakenForCutShort(key);

    Answer tookOver = gw.post(path, "", gw.apiKey, key);
    assertThat(tookOver.status()).as(tookOver.body()).isEqualTo(409);
    assertThat(tookOver.json().get("message").asText()).startsWith("The terminal has not answered");
    Answer again = gw.post(path, "", gw.apiKey, key);
    assertThat(again.status()).as(again.body()).isEqualTo(409);
    assertThat(again.json().get("message").asText()).startsWith("The terminal has not answered");

    acquirer.answering.remove(id);
    Answer answered = gw.post(path, "", gw.apiKey, key);
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(answered.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(acquirer.done.get(id)).containsExactly("captured 6.50 EUR");
  }

  /**
   * A capture with a key cut short (the service stopped) once it had asked the terminal, which
   * captured, and answered later by the job: that capture is the key's, and its retry, once the
   * claim is taken for cut short, is answered with it as a replay, and asks nothing again.
   */
  @Test
  void a_capture_cut_short_after_it_asked_the_terminal_answers_the_retry_with_the_jobs_capture() throws Exception {
    String id = authorized("7.00", Answering.ACTS_THEN_SERVICE_STOPS);
    String key = "asked-then-stopped-" + id;
    captureCutShort(id, key);
    // answering first: a job round between the two would find it undecided, and wait long to ask again
    acquirer.answering.remove(id);
    overdue(id);
    assertThat(gw.awaitStateOtherThan(id, "AUTHORIZED", Duration.ofSeconds(10)).get("state").asText())
        .isEqualTo("COMPLETED");
    claimTakenForCutShort(key);

    Answer retry = gw.post("/api/v1/payments/" + id + "/capture", "", gw.apiKey, key);

    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().at("/result/state").asText()).isEqualTo("COMPLETED");
    assertThat(acquirer.calls.get(id)).as("by the request, then the job").hasSize(2);
  }

  @Test
  void a_void_whose_answer_was_lost_is_cancelled_by_the_job() throws Exception {
    String id = authorized("4.00", Answering.ACTS_THEN_TIMES_OUT);
    assertThat(gw.post("/api/v1/payments/" + id + "/void", "").status()).isEqualTo(500);
    assertThat(gw.post("/api/v1/payments/" + id + "/capture", "").status()).isEqualTo(409);
    assertThat(acquirer.calls.get(id)).containsExactly("voided");

    // answering first: a job round between the two would find it undecided, and wait long to ask again
    acquirer.answering.remove(id);
    overdue(id);
    assertThat(gw.awaitStateOtherThan(id, "AUTHORIZED", Duration.ofSeconds(10)).get("state").asText())
        .isEqualTo("CANCELLED");
    assertThat(events(id, "CANCELLED")).isEqualTo(1);
  }
}
