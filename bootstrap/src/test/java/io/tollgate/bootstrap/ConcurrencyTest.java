package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Racing requests on one payment: exactly one wins, the others get 409, never a 500. */
class ConcurrencyTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** Runs the calls at once (released together) and returns their HTTP statuses. */
  static List<Integer> race(List<Callable<Integer>> calls) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(calls.size());
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    for (Callable<Integer> c : calls) {
      results.add(pool.submit(() -> {
        go.await();
        return c.call();
      }));
    }
    go.countDown();
    List<Integer> statuses = new ArrayList<>();
    for (Future<Integer> f : results) {
      statuses.add(f.get());
    }
    pool.shutdown();
    return statuses;
  }

  static List<String> operations(String id) {
    List<String> ops = new ArrayList<>();
    gw.get("/api/v1/payments/" + id + "/operations").json().get("result").forEach(o -> ops.add(o.get("operation").asText()));
    return ops;
  }

  @Test
  void captures_and_voids_racing_on_one_pre_auth_leave_exactly_one_winner() throws Exception {
    for (int round = 0; round < 3; round++) {
      String id = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", "50.00", true);
      assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.5\"}").json().at("/result/state")
          .asText()).isEqualTo("AUTHORIZED");
      List<Callable<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        String action = i % 2 == 0 ? "capture" : "void";
        calls.add(() -> gw.post("/api/v1/payments/" + id + "/" + action, "{}").status());
      }
      List<Integer> statuses = race(calls);
      assertThat(statuses).containsOnly(200, 409);
      assertThat(statuses.stream().filter(s -> s == 200)).hasSize(1);
      String state = gw.get("/api/v1/payments/" + id).json().at("/result/state").asText();
      assertThat(state).isIn("COMPLETED", "CANCELLED");
      List<String> ops = operations(id);
      assertThat(ops.stream().filter(o -> o.equals("CAPTURE") || o.equals("VOID"))).hasSize(1);
    }
  }

  @Test
  void a_deposit_patched_many_times_at_once_is_processed_once() throws Exception {
    String id = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", "9.99", false);
    List<Callable<Integer>> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      calls.add(() -> gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.6\"}").status());
    }
    List<Integer> statuses = race(calls);
    assertThat(statuses).containsOnly(200, 409);
    assertThat(statuses.stream().filter(s -> s == 200)).hasSize(1);
    assertThat(operations(id).stream().filter("DEPOSIT"::equals)).hasSize(1);
    assertThat(gw.ledgerSum(gw.shop, "EUR")[0]).isGreaterThanOrEqualTo(new java.math.BigDecimal("9.99"));
    long entries = gw.database.jdbi().withHandle(h -> h.createQuery(
        "SELECT count(*) FROM ledger_entries WHERE payment_id = :id").bind("id", id).mapTo(Long.class).one());
    assertThat(entries).as("one ledger entry for one completed deposit").isEqualTo(1);
  }

  /**
   * Approvals and rejections of one withdrawal at once: one decision wins, and only it shows: the
   * state it answered, its one operation, and the held money paid out or given back once.
   */
  @Test
  void approvals_and_rejections_racing_on_one_withdrawal_leave_one_decision() throws Exception {
    for (int round = 0; round < 3; round++) {
      var shop = gw.createShop(gw.merchant, "Approval shop " + round, true);
      String key = gw.issueKey(shop, gw.app.services().environment());
      gw.completedDeposit("20.00", "EUR", key);
      String id = gw.post("/api/v1/payments", """
          {"paymentType":"WITHDRAWAL","amount":3,"currency":"EUR",
           "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""", key, null)
          .json().at("/result/id").asText();
      assertThat(gw.ledgerSum(shop, "EUR")).as("held while it awaits a decision")
          .usingElementComparator(java.math.BigDecimal::compareTo)
          .containsExactly(new java.math.BigDecimal("17"), new java.math.BigDecimal("3"));
      List<String> actions = new ArrayList<>();
      List<Callable<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        String action = i % 2 == 0 ? "approve" : "reject";
        actions.add(action);
        calls.add(() -> gw.post("/api/v1/payments/" + id + "/" + action, "{}", key, null).status());
      }
      List<Integer> statuses = race(calls);
      assertThat(statuses).containsOnly(200, 409);
      assertThat(statuses.stream().filter(s -> s == 200)).hasSize(1);
      boolean approved = actions.get(statuses.indexOf(200)).equals("approve");

      JsonNode after = gw.awaitStateOtherThan(id, "PENDING", java.time.Duration.ofSeconds(10), key);
      assertThat(after.get("state").asText()).as(after.toString()).isEqualTo(approved ? "COMPLETED" : "CANCELLED");
      if (!approved) {
        assertThat(after.get("errorCode").asText()).isEqualTo("8.00");
      }
      List<String> ops = operations(id, key);
      assertThat(ops).as("the one decision's operation").filteredOn(o -> o.equals("APPROVE") || o.equals("REJECT"))
          .containsExactly(approved ? "APPROVE" : "REJECT");
      assertThat(ops).filteredOn("WITHDRAWAL"::equals).hasSize(approved ? 1 : 0);
      assertThat(gw.ledgerSum(shop, "EUR")).as(approved ? "paid out once" : "given back once")
          .usingElementComparator(java.math.BigDecimal::compareTo)
          .containsExactly(new java.math.BigDecimal(approved ? "17" : "20"), java.math.BigDecimal.ZERO);
      List<String> entries = gw.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT reason FROM ledger_entries WHERE payment_id = :id ORDER BY id").bind("id", id)
          .mapTo(String.class).list());
      assertThat(entries).as("held, then settled once").hasSize(2);
    }
  }

  static List<String> operations(String id, String key) {
    List<String> ops = new ArrayList<>();
    gw.get("/api/v1/payments/" + id + "/operations", key).json().get("result")
        .forEach(o -> ops.add(o.get("operation").asText()));
    return ops;
  }
}
