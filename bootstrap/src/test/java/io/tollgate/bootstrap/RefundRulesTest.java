package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.Environment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** REFUND creation checks its parent deposit, also under concurrent requests. */
class RefundRulesTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** A deposit taken to COMPLETED the way processing will: through the state table. */
  private static String completedDeposit(String amount) {
    String id = gw.deposit(amount, "EUR");
    var payments = gw.app.services().persistence().payments();
    var tx = gw.app.services().persistence().transactionRunner();
    tx.run(() -> {
      Payment p = payments.findForUpdate(new PaymentId(id)).orElseThrow();
      payments.update(p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, Instant.now()));
    });
    return id;
  }

  private static Answer refund(String parent, String amount) {
    return gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":" + amount
        + ",\"currency\":\"EUR\",\"parentPaymentId\":\"" + parent + "\"}");
  }

  @Test
  void a_refund_of_a_completed_deposit_starts_pending_and_inherits_its_method() {
    String parent = completedDeposit("10.00");
    Answer a = refund(parent, "2.50");
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.json().at("/result/state").asText()).isEqualTo("PENDING");
    assertThat(a.json().at("/result/paymentType").asText()).isEqualTo("REFUND");
    assertThat(a.json().at("/result/parentPaymentId").asText()).isEqualTo(parent);
    assertThat(a.json().at("/result/paymentMethod").asText()).isEqualTo("BASIC_CARD");
  }

  @Test
  void refunds_never_add_up_to_more_than_the_deposit() {
    String parent = completedDeposit("10.00");
    assertThat(refund(parent, "4.00").status()).isEqualTo(200);
    assertThat(refund(parent, "6.00").status()).isEqualTo(200);
    Answer over = refund(parent, "0.01");
    assertThat(over.status()).isEqualTo(400);
    assertThat(over.json().at("/errors/0/field").asText()).isEqualTo("amount");
  }

  @Test
  void a_refund_needs_a_completed_deposit_of_the_same_shop_and_currency() {
    int before = gw.countPayments();
    assertThat(refund("0".repeat(32), "1").json().at("/errors/0/message").asText()).isEqualTo("payment not found");
    assertThat(refund(gw.deposit("5", "EUR"), "1").json().at("/errors/0/message").asText())
        .contains("only a COMPLETED deposit");
    String parent = completedDeposit("5.00");
    Answer usd = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":1,\"currency\":\"USD\","
        + "\"parentPaymentId\":\"" + parent + "\"}");
    assertThat(usd.status()).isEqualTo(400);
    assertThat(usd.json().at("/errors/0/field").asText()).isEqualTo("currency");

    var other = gw.createShop(gw.merchant, "Stranger", false);
    String strangerKey = gw.issueKey(other, Environment.SANDBOX);
    Answer foreign = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":1,\"currency\":\"EUR\","
        + "\"parentPaymentId\":\"" + parent + "\"}", strangerKey, null);
    assertThat(foreign.status()).isEqualTo(400);
    assertThat(foreign.json().at("/errors/0/message").asText()).isEqualTo("payment not found");

    Answer missing = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":1,\"currency\":\"EUR\"}");
    assertThat(missing.json().at("/errors/0/field").asText()).isEqualTo("parentPaymentId");
    assertThat(gw.countPayments()).isEqualTo(before + 2);
  }

  @Test
  void fifty_concurrent_refunds_of_one_euro_against_ten_euros_create_exactly_ten() throws Exception {
    String parent = completedDeposit("10.00");
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Integer>> statuses = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      statuses.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return refund(parent, "1.00").status();
      }, pool));
    }
    go.countDown();
    List<Integer> all = new ArrayList<>();
    for (CompletableFuture<Integer> f : statuses) {
      all.add(f.get());
    }
    pool.shutdown();
    assertThat(all).filteredOn(s -> s == 200).hasSize(10);
    assertThat(all).filteredOn(s -> s == 400).hasSize(40);
    var total = gw.database.jdbi().withHandle(h -> h.createQuery(
        "select sum(amount) from payments where parent_payment_id = ?").bind(0, parent)
        .mapTo(java.math.BigDecimal.class).one());
    assertThat(total).isEqualByComparingTo("10.00");
  }

  /**
   * Completing a refund adds its amount to the deposit's row (V26), and a new refund of the
   * deposit locks that row and then a balance slot. A worker that took its slot before the
   * deposit's row deadlocked with such a request now and then: the request failed with a 500.
   */
  @Test
  void refunds_created_while_others_of_the_deposit_complete_never_deadlock() throws Exception {
    String parent = completedDeposit("1000.00");
    var processing = gw.app.services().processing();
    java.util.concurrent.atomic.AtomicBoolean clientsDone = new java.util.concurrent.atomic.AtomicBoolean();
    List<Throwable> workerFailures = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread worker = new Thread(() -> {
      while (!clientsDone.get()) {
        try {
          processing.processPayouts(20);
        } catch (RuntimeException e) {
          workerFailures.add(e);
        }
      }
    });
    worker.start();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<CompletableFuture<List<Integer>>> clients = new ArrayList<>();
    for (int c = 0; c < 8; c++) {
      clients.add(CompletableFuture.supplyAsync(() -> {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          statuses.add(refund(parent, "0.01").status());
        }
        return statuses;
      }, pool));
    }
    List<Integer> all = new ArrayList<>();
    for (CompletableFuture<List<Integer>> c : clients) {
      all.addAll(c.get());
    }
    clientsDone.set(true);
    worker.join();
    pool.shutdown();
    // The refunds still pending, until none is: the gateway's own job takes some of them too,
    // and a refund it holds locked is skipped here, so a run that moved none proves nothing.
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
    while (refundsPending(parent) > 0 && System.nanoTime() < deadline) {
      if (processing.processPayouts(100).moved() == 0) {
        Thread.sleep(20);
      }
    }

    assertThat(all).hasSize(320).containsOnly(200);
    assertThat(workerFailures).isEmpty();
    var states = gw.database.jdbi().withHandle(h -> h.createQuery(
        "select state || ' ' || count(*) from payments where parent_payment_id = ? group by state")
        .bind(0, parent).mapTo(String.class).list());
    assertThat(states).containsExactly("COMPLETED 320");
    var refunded = gw.database.jdbi().withHandle(h -> h.createQuery(
        "select refunded_amount from payments where id = ?").bind(0, parent).mapTo(java.math.BigDecimal.class).one());
    assertThat(refunded).isEqualByComparingTo("3.20");
  }

  private static long refundsPending(String parent) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(
        "select count(*) from payments where parent_payment_id = ? and state = 'PENDING'")
        .bind(0, parent).mapTo(Long.class).one());
  }
}
