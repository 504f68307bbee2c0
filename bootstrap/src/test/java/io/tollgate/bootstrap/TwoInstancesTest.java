package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.in.BackgroundWorkUseCase;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.application.service.ProcessingService;
import io.tollgate.domain.payment.PaymentId;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;

/** Background jobs of several instances on one database never process a payment twice. */
class TwoInstancesTest {

  @Test
  void two_instances_pay_out_a_batch_of_withdrawals_each_exactly_once() throws Exception {
    Map<String, String> slowJobs = Map.of("TOLLGATE_JOB_INTERVAL", "PT1H");
    try (TestGateway gw = TestGateway.start(slowJobs)) {
      String card = "\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";
      for (int i = 0; i < 200; i++) {
        assertThat(gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":1,\"currency\":\"EUR\","
            + card + "}").status()).isEqualTo(200);
      }
      Map<String, String> env = Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
          "TOLLGATE_DATA_DIR", ScratchDirectories.create("tollgate-second").toString(),
          "TOLLGATE_MASTER_KEY", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
          "TOLLGATE_JOB_INTERVAL", "PT0.02S");
      try (Tollgate first = Tollgate.start(TollgateConfig.from(env), gw.database);
          Tollgate second = Tollgate.start(TollgateConfig.from(env), gw.database)) {
        long deadline = System.currentTimeMillis() + 30_000;
        while (pending(gw) > 0 && System.currentTimeMillis() < deadline) {
          Thread.sleep(50);
        }
      }
      assertThat(pending(gw)).isZero();
      Map<String, Object> counts = gw.database.jdbi().withHandle(h -> h.createQuery("""
              SELECT count(*) FILTER (WHERE n = 1) AS once, count(*) FILTER (WHERE n <> 1) AS other FROM (
                SELECT p.id, count(o.id) AS n FROM payments p
                LEFT JOIN payment_operations o ON o.payment_id = p.id AND o.operation = 'WITHDRAWAL'
                WHERE p.payment_type = 'WITHDRAWAL' GROUP BY p.id) t
              """).mapToMap().one());
      assertThat(((Number) counts.get("once")).intValue()).isEqualTo(200);
      assertThat(((Number) counts.get("other")).intValue()).isZero();
      Integer payoutEntries = gw.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT count(*) FROM ledger_entries WHERE reason = 'withdrawal paid out'").mapTo(Integer.class).one());
      assertThat(payoutEntries).isEqualTo(200);
    }
  }

  /**
   * Behind a load balancer, the page a refused card form redirects to may be served by another
   * instance than the one that refused it: it shows the same errors and kept values. Another
   * payment's page, or a form someone edited, shows a fresh form.
   */
  @Test
  void a_refused_checkout_form_is_shown_by_whichever_instance_serves_its_page() throws Exception {
    try (TestGateway gw = TestGateway.start()) {
      Map<String, String> env = new java.util.HashMap<>(TestGateway.environment(gw.database, "tollgate-second-page"));
      env.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
      try (Tollgate second = Tollgate.start(TollgateConfig.from(env), gw.database)) {
        String id = gw.deposit("5.00", "EUR");
        java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
            .matcher(gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body());
        assertThat(csrf.find()).isTrue();
        TestGateway.Answer refused = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/checkout/" + id))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("csrf="
                + java.net.URLEncoder.encode(csrf.group(1), java.nio.charset.StandardCharsets.UTF_8)
                + "&cardNumber=4000000000000409&expiryMonth=12&expiryYear=2045&cardSecurityCode=123"
                + "&cardholderName=Ann+Lee")));
        assertThat(refused.status()).isEqualTo(303);
        String location = refused.header("Location");
        assertThat(location).startsWith("/checkout/" + id + "?form=").doesNotContain("Ann");

        String onSecond = gw.send(java.net.http.HttpRequest.newBuilder(second.baseUri().resolve(location)).GET()).body();
        assertThat(onSecond).contains("This is not a valid card number").contains("value=\"Ann Lee\"")
            .doesNotContain("4000000000000409");

        String form = location.substring(location.indexOf("?form=") + 6);
        String otherId = gw.deposit("5.00", "EUR");
        String otherPage = gw.send(java.net.http.HttpRequest.newBuilder(
            second.baseUri().resolve("/checkout/" + otherId + "?form=" + form)).GET()).body();
        assertThat(otherPage).contains("cardNumber").doesNotContain("Ann Lee").doesNotContain("This is not a valid card number");
        // a character in the middle: each of its six bits is the seal's (the last one's lowest
        // bits may be padding that decoding drops, which left the seal whole one run in four)
        int at = form.length() / 2;
        String edited = gw.send(java.net.http.HttpRequest.newBuilder(second.baseUri().resolve(
            "/checkout/" + id + "?form=" + form.substring(0, at) + (form.charAt(at) == 'A' ? 'B' : 'A')
                + form.substring(at + 1))).GET()).body();
        assertThat(edited).contains("cardNumber").doesNotContain("Ann Lee").doesNotContain("This is not a valid card number");
      }
    }
  }

  /**
   * A refund whose terminal has not decided yet is asked again a second later at the soonest,
   * however many instances run the jobs. Before, an instance that had found it due just before
   * another asked it (and left it as it was) asked its terminal again within milliseconds: a
   * look that leaves a payment as it was changes no version, so the payment still looked
   * unchanged to it.
   */
  @Test
  void a_refund_another_instance_has_just_asked_is_not_asked_again_at_once() throws Exception {
    Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();
    AtomicReference<String> first = new AtomicReference<>();
    AtomicReference<ProcessingService> other = new AtomicReference<>();
    // the jobs' first round is an hour away: the test runs the batches itself
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_JOB_INTERVAL", "PT1H"),
        sandbox -> undecidedRefunds(sandbox, asked, refund -> {
          if (refund.equals(first.get())) {
            // this instance has its batch; while it asks the first refund's terminal, the
            // other instance takes up the refunds no one holds
            CompletableFuture.runAsync(() -> other.get().processPayouts(50)).get(30, TimeUnit.SECONDS);
          }
        }))) {
      first.set(refund(gw, gw.completedDeposit("10.00", "EUR", gw.apiKey)));
      String second = refund(gw, gw.completedDeposit("10.00", "EUR", gw.apiKey));
      Map<String, String> env = new HashMap<>(TestGateway.environment(gw.database, "tollgate-second-refunds"));
      env.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
      other.set(Tollgate.Services.wire(TollgateConfig.from(env), gw.database, "http://127.0.0.1",
          PaymentMetrics.NONE, sandbox -> undecidedRefunds(sandbox, asked, refund -> { })).processing());

      assertThat(gw.app.services().processing().processPayouts(50))
          .as("both found, neither moved: the one by the other instance, the other left as it was")
          .isEqualTo(new BackgroundWorkUseCase.Batch(2, 0));

      assertThat(asked.get(first.get())).as("the first refund, by this instance").hasValue(1);
      assertThat(asked.get(second)).as("the second refund, by the other instance only").hasValue(1);
      assertThat(gw.get("/api/v1/payments/" + second).json().at("/result/state").asText()).isEqualTo("PENDING");
    }
  }

  private static String refund(TestGateway gw, String parent) {
    TestGateway.Answer created = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":1,"
        + "\"currency\":\"EUR\",\"parentPaymentId\":\"" + parent + "\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return created.json().at("/result/id").asText();
  }

  /**
   * The sandbox, whose refunds' terminal has not decided yet (PENDING), counting how often it
   * is asked for each refund and running {@code asking} with the refund's id as it is asked.
   */
  private static PaymentProcessor undecidedRefunds(PaymentProcessor sandbox, Map<String, AtomicInteger> asked,
      ThrowingConsumer<String> asking) {
    return (PaymentProcessor) java.lang.reflect.Proxy.newProxyInstance(TwoInstancesTest.class.getClassLoader(),
        new Class<?>[] {PaymentProcessor.class}, (proxy, method, args) -> {
          if (method.getName().equals("refund")) {
            String refund = ((PaymentId) args[0]).value();
            asked.computeIfAbsent(refund, r -> new AtomicInteger()).incrementAndGet();
            asking.accept(refund);
            return new PaymentProcessor.Result(PaymentProcessor.Result.Status.PENDING, null, "r-" + refund, "09",
                Map.of(), null);
          }
          try {
            return method.invoke(sandbox, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  private static int pending(TestGateway gw) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(
        "SELECT count(*) FROM payments WHERE payment_type = 'WITHDRAWAL' AND state = 'PENDING'").mapTo(Integer.class).one());
  }
}
