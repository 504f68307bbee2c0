package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Withdrawals and refunds paid out by the worker, and the balances they move. */
class PayoutsAndBalancesTest {

  static TestGateway gw;
  static final String CARD = "\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private record Shop(ShopId id, String key) {}

  private static Shop newShop(String name, boolean approval, boolean checkBalance) {
    ShopId id = gw.createShop(gw.merchant, name, approval, checkBalance, null);
    return new Shop(id, gw.issueKey(id, Environment.SANDBOX));
  }

  private static Answer withdraw(Shop shop, String amount) {
    return gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":" + amount
        + ",\"currency\":\"EUR\"," + CARD + "}", shop.key(), null);
  }

  private static JsonNode balances(Shop shop) {
    return gw.get("/api/v1/balances", shop.key()).json().get("result");
  }

  private static String available(Shop shop) {
    JsonNode list = gw.get("/api/v1/available-withdrawal-balances", shop.key()).json().get("result");
    return list.isEmpty() ? "0" : list.get(0).get("amount").decimalValue().toPlainString();
  }

  /**
   * A withdrawal and a deposit of one card and one customer, sent at once, are both answered. A
   * deposit's one statement marks its card used (under the card's lock, when it was last used
   * over a day ago) before it writes its customer; a withdrawal locked its customer first and
   * marked the card after, so each waited for what the other held and the database aborted one
   * as a deadlock (503). Here the customer is held a moment, so that both wait where they would.
   */
  @Test
  void a_withdrawal_and_a_deposit_of_one_card_and_customer_at_once_are_both_answered() throws Exception {
    Shop shop = newShop("One card one customer", false, false);
    String customer = "\"customer\":{\"referenceId\":\"card-and-customer\"}";
    java.util.function.Function<String, String> payment = type -> "{\"paymentType\":\"" + type
        + "\",\"amount\":1.00,\"currency\":\"EUR\"," + CARD + "," + customer + "}";
    assertThat(gw.post("/api/v1/payments", payment.apply("DEPOSIT"), shop.key(), null).status()).isEqualTo(200);
    gw.database.jdbi().useHandle(h -> h.createUpdate(
            "UPDATE card_vault SET last_used = now() - interval '2 days' WHERE shop_id = :shop")
        .bind("shop", shop.id().value()).execute());

    try (org.jdbi.v3.core.Handle held = gw.database.jdbi().open();
        org.jdbi.v3.core.Handle watch = gw.database.jdbi().open()) {
      held.begin();
      held.createQuery("SELECT 1 FROM customers WHERE shop_id = :shop AND reference_id = 'card-and-customer' "
          + "FOR UPDATE").bind("shop", shop.id().value()).mapTo(Integer.class).one();
      CompletableFuture<Answer> withdrawal = CompletableFuture.supplyAsync(
          () -> gw.post("/api/v1/payments", payment.apply("WITHDRAWAL"), shop.key(), null));
      awaitWaitingOnLocks(watch, 1);
      CompletableFuture<Answer> deposit = CompletableFuture.supplyAsync(
          () -> gw.post("/api/v1/payments", payment.apply("DEPOSIT"), shop.key(), null));
      awaitWaitingOnLocks(watch, 2);
      held.commit();

      Answer w = withdrawal.get(30, java.util.concurrent.TimeUnit.SECONDS);
      Answer d = deposit.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(w.status()).as(w.body()).isEqualTo(200);
      assertThat(d.status()).as(d.body()).isEqualTo(200);
    }
  }

  /** Waits (at most 10 s) until {@code sessions} of the database wait on a lock. */
  private static void awaitWaitingOnLocks(org.jdbi.v3.core.Handle watch, int sessions) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (watch.createQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        + "AND wait_event_type = 'Lock'").mapTo(Integer.class).one() < sessions) {
      assertThat(System.nanoTime()).as(sessions + " sessions wait on a lock").isLessThan(end);
      Thread.sleep(20);
    }
  }

  /**
   * {@code tollgate shop update} runs in a process of its own: the running server hears of the
   * change only from the database. A withdrawal made right after approval was switched on waits
   * for it, though the server read the shop a moment before; for up to ten seconds it was paid
   * out unapproved (and one made right after the balance check was switched on went unchecked).
   */
  @Test
  void a_withdrawal_right_after_the_operator_asks_for_approval_awaits_it() {
    Shop shop = newShop("Approval switched on", false, false);
    assertThat(withdraw(shop, "1.00").json().at("/result/state").asText()).isEqualTo("PENDING");

    gw.database.jdbi().useHandle(h -> h.createUpdate("UPDATE shops SET requires_approval = true WHERE id = :id")
        .bind("id", shop.id().value()).execute());
    Answer next = withdraw(shop, "1.00");

    assertThat(next.status()).as(next.body()).isEqualTo(200);
    assertThat(next.json().at("/result/state").asText()).isEqualTo("AWAITING_APPROVAL");
  }

  @Test
  void a_withdrawal_is_paid_out_by_the_worker_and_leaves_the_balance() throws Exception {
    Shop shop = newShop("Payout shop", false, false);
    gw.completedDeposit("100.00", "EUR", shop.key());
    assertThat(available(shop)).isEqualTo("100.00");

    Answer w = withdraw(shop, "30.00");
    assertThat(w.json().at("/result/state").asText()).isEqualTo("PENDING");
    String id = w.json().at("/result/id").asText();
    JsonNode done = gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10), shop.key());
    assertThat(done.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(available(shop)).isEqualTo("70.00");

    JsonNode b = balances(shop);
    assertThat(b.get(0).get("accountType").asText()).isEqualTo("AVAILABLE");
    assertThat(b.get(0).get("amount").decimalValue()).isEqualByComparingTo("70.00");
    assertThat(b.get(1).get("accountType").asText()).isEqualTo("WITHDRAWAL");
    assertThat(b.get(1).get("amount").decimalValue()).isEqualByComparingTo("0");
    var ledger = gw.ledgerSum(shop.id(), "EUR");
    assertThat(ledger[0]).isEqualByComparingTo("70.00");
    assertThat(ledger[1]).isEqualByComparingTo("0");
  }

  private static Answer bankWithdrawal(Shop shop, String amount, String customer) {
    return gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"paymentMethod\":\"BANKTRANSFER\","
        + "\"amount\":" + amount + ",\"currency\":\"EUR\"" + (customer == null ? "" : ",\"customer\":" + customer)
        + "}", shop.key(), null);
  }

  /**
   * Refunds and withdrawals naming one customer, sent at once to a shop that checks its balance,
   * are all answered: a withdrawal locked the balance and then its customer, a refund its
   * customer and then the balance, and the database aborted one of each such pair as a deadlock
   * (about half the requests answered 500 in review).
   */
  @Test
  void refunds_and_withdrawals_of_one_customer_at_once_are_all_answered() throws Exception {
    Shop shop = newShop("One customer shop", false, true);
    java.util.List<String> deposits = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      deposits.add(gw.completedDeposit("500.00", "EUR", shop.key()));
    }
    java.util.List<Integer> statuses = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(16);
    try {
      for (int round = 0; round < 6; round++) {
        String customer = "\"customer\":{\"referenceId\":\"player-" + round + "\"}";
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
        for (int i = 0; i < 16; i++) {
          String body = i % 2 == 0
              ? "{\"paymentType\":\"REFUND\",\"amount\":1.00,\"currency\":\"EUR\",\"parentPaymentId\":\""
                  + deposits.get(i / 2 % deposits.size()) + "\"," + customer + "}"
              : "{\"paymentType\":\"WITHDRAWAL\",\"amount\":1.00,\"currency\":\"EUR\"," + CARD + "," + customer + "}";
          sent.add(pool.submit(() -> {
            go.await();
            statuses.add(gw.post("/api/v1/payments", body, shop.key(), null).status());
            return null;
          }));
        }
        go.countDown();
        for (java.util.concurrent.Future<?> f : sent) {
          f.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(statuses).hasSize(96).containsOnly(200);
  }

  /**
   * A card payment's customerAccountNumber in the merchant's records is its masked card, as the
   * reference has it, whatever the merchant sent as the customer's account number: that took the
   * card's place, and a card number sent there was shown to every merchant user in clear.
   */
  @Test
  void a_card_payments_records_show_the_masked_card_not_the_customers_account_number() {
    Shop shop = newShop("Card records shop", false, false);
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":12.00,"currency":"EUR",
         "customer":{"referenceId":"c-card","accountNumber":"4111111111111111"},
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""", shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String id = created.json().at("/result/id").asText();
    String[] reader = gw.merchantUser(gw.merchant, "card-records-" + id + "@shop.example");
    Answer records = gw.merchantGet("/merchant-api/v1/payments?limit=1000&created.gte=2000-01-01T00:00:00", reader);
    JsonNode listed = null;
    for (JsonNode p : records.json().get("result")) {
      if (p.get("id").asText().equals(id)) {
        listed = p;
      }
    }
    assertThat(listed).as("the deposit in the merchant's records").isNotNull();
    assertThat(listed.get("customerAccountNumber").asText()).isEqualTo("400000******0408");
    assertThat(records.body()).doesNotContain("4111111111111111");
  }

  /** A bank transfer withdrawal pays out to the account the customer's fields name. */
  @Test
  void a_bank_transfer_withdrawal_pays_out_to_the_customers_account() throws Exception {
    Shop shop = newShop("Bank payout shop", false, false);
    gw.completedDeposit("100.00", "EUR", shop.key());
    Answer w = bankWithdrawal(shop, "40.00", "{\"referenceId\":\"c-9\",\"accountNumber\":\"DE02120300000000202051\","
        + "\"accountName\":\"Ann Lee\",\"accountType\":\"CHECKING\",\"bank\":\"Sandbox Bank\",\"bankCode\":\"12030000\","
        + "\"documentType\":\"AR_DNI\",\"documentNumber\":\"30111222\"}");
    assertThat(w.status()).as(w.body()).isEqualTo(200);
    assertThat(w.json().at("/result/customer/accountName").asText()).isEqualTo("Ann Lee");
    assertThat(w.json().at("/result/customer").has("accountNumber")).as("kept for the records only").isFalse();
    assertThat(w.body()).doesNotContain("DE02120300000000202051");
    String id = w.json().at("/result/id").asText();
    JsonNode done = gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10), shop.key());
    assertThat(done.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(done.at("/customer/bankCode").asText()).isEqualTo("12030000");
    String[] reader = gw.merchantUser(gw.merchant, "payouts-" + id + "@shop.example",
        io.tollgate.domain.user.Permission.values());
    JsonNode listed = null;
    JsonNode records = gw.merchantGet("/merchant-api/v1/payments?limit=1000&created.gte=2000-01-01T00:00:00", reader)
        .json().get("result");
    for (JsonNode p : records) {
      if (p.get("id").asText().equals(id)) {
        listed = p;
      }
    }
    assertThat(listed).as("the payout in the merchant's records").isNotNull();
    assertThat(listed.get("customerAccountNumber").asText()).isEqualTo("DE02120300000000202051");
    assertThat(listed.get("customerBankCode").asText()).isEqualTo("12030000");
    assertThat(available(shop)).isEqualTo("60.00");

    String closed = bankWithdrawal(shop, "10.00", "{\"accountNumber\":\"DE00000000000000000000\"}")
        .json().at("/result/id").asText();
    JsonNode declined = gw.awaitStateOtherThan(closed, "PENDING", Duration.ofSeconds(10), shop.key());
    assertThat(declined.get("state").asText()).isEqualTo("DECLINED");
    assertThat(declined.get("errorCode").asText()).isEqualTo("4.00");
    assertThat(available(shop)).isEqualTo("60.00");

    int before = gw.countPayments();
    Answer noAccount = bankWithdrawal(shop, "10.00", "{\"referenceId\":\"c-9\"}");
    assertThat(noAccount.status()).isEqualTo(400);
    assertThat(noAccount.json().findValuesAsText("field")).contains("customer.accountNumber");
    assertThat(bankWithdrawal(shop, "10.00", null).status()).isEqualTo(400);
    assertThat(bankWithdrawal(shop, "10.00", "{\"accountNumber\":\"1\",\"accountType\":\"CURRENT\"}").status())
        .isEqualTo(400);
    assertThat(gw.countPayments()).isEqualTo(before);
  }

  /**
   * A payout that fails every time (here its card can no longer be read from the vault) fails
   * alone: the payouts of other shops in the same batch go out, and it stays due.
   */
  @Test
  void a_payout_that_always_fails_does_not_hold_up_the_others() throws Exception {
    Shop poisoned = newShop("Poisoned payout shop", true, false);
    Shop healthy = newShop("Healthy payout shop", false, false);
    Answer stuck = gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":3.00,\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"4111111111111111\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}",
        poisoned.key(), null);
    String stuckId = stuck.json().at("/result/id").asText();
    gw.database.jdbi().useHandle(h -> h.createUpdate(
            "UPDATE card_vault SET pan_ciphertext = '\\x00' WHERE shop_id = :shop")
        .bind("shop", poisoned.id().value()).execute());
    assertThat(gw.post("/api/v1/payments/" + stuckId + "/approve", "", poisoned.key(), null).status()).isEqualTo(200);
    String fine = withdraw(healthy, "4.00").json().at("/result/id").asText();

    JsonNode done = gw.awaitStateOtherThan(fine, "PENDING", Duration.ofSeconds(10), healthy.key());
    assertThat(done.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(gw.get("/api/v1/payments/" + stuckId, poisoned.key()).json().at("/result/state").asText())
        .as("the payout that cannot be made stays due, untouched").isEqualTo("PENDING");
  }

  /**
   * A due payout whose row this build cannot read at all (here a payment method it does not know,
   * as a newer build may have written before a rollback) fails alone too: the payouts found in
   * the same batch still go out.
   */
  @Test
  void a_payout_row_that_cannot_be_read_does_not_hold_up_the_others() throws Exception {
    Shop newer = newShop("Newer build's payout shop", true, false);
    Shop healthy = newShop("Healthy payout shop 2", false, false);
    Answer awaiting = withdraw(newer, "3.00");
    String unreadable = awaiting.json().at("/result/id").asText();
    String awaitingState = awaiting.json().at("/result/state").asText();
    setMethodAndState(unreadable, "INSTALMENTS", "PENDING");
    try {
      String fine = withdraw(healthy, "4.00").json().at("/result/id").asText();

      JsonNode done = gw.awaitStateOtherThan(fine, "PENDING", Duration.ofSeconds(10), healthy.key());
      assertThat(done.get("state").asText()).isEqualTo("COMPLETED");
      String left = gw.database.jdbi().withHandle(h -> h.createQuery("SELECT state FROM payments WHERE id = :id")
          .bind("id", unreadable).mapTo(String.class).one());
      assertThat(left).as("the row that cannot be read stays due, untouched").isEqualTo("PENDING");
    } finally {
      // readable again, and not due, for the merchant's lists in the other tests
      setMethodAndState(unreadable, "BASIC_CARD", awaitingState);
    }
  }

  private static void setMethodAndState(String paymentId, String method, String state) {
    gw.database.jdbi().useHandle(h -> h.createUpdate(
            "UPDATE payments SET payment_method = :method, state = :state WHERE id = :id")
        .bind("method", method).bind("state", state).bind("id", paymentId).execute());
  }

  @Test
  void a_withdrawal_over_the_sandbox_limit_is_declined_328_and_releases_its_hold() throws Exception {
    Shop shop = newShop("Big payout shop", false, false);
    String id = withdraw(shop, "10000.01").json().at("/result/id").asText();
    JsonNode done = gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10), shop.key());
    assertThat(done.get("state").asText()).isEqualTo("DECLINED");
    assertThat(done.get("errorCode").asText()).isEqualTo("3.28");
    var ledger = gw.ledgerSum(shop.id(), "EUR");
    assertThat(ledger[0]).isEqualByComparingTo("0");
    assertThat(ledger[1]).isEqualByComparingTo("0");
  }

  @Test
  void with_check_withdrawal_balance_a_short_balance_declines_110() {
    Shop shop = newShop("Careful shop", false, true);
    gw.completedDeposit("20.00", "EUR", shop.key());
    Answer tooMuch = withdraw(shop, "20.01");
    assertThat(tooMuch.status()).isEqualTo(200);
    assertThat(tooMuch.json().at("/result/state").asText()).isEqualTo("DECLINED");
    assertThat(tooMuch.json().at("/result/errorCode").asText()).isEqualTo("1.10");
    assertThat(available(shop)).isEqualTo("20.00");
    assertThat(withdraw(shop, "20.00").json().at("/result/state").asText()).isEqualTo("PENDING");
  }

  /**
   * A checking shop without connectors, whose payouts go to the sandbox's default terminal, is
   * held to its balance when a payout is routed, as a shop with connectors is: a withdrawal that
   * passed the check when it was created, and waited for approval while a refund took what its
   * hold left, is declined 1.10 and gives its hold back. It used to be paid out all the same,
   * leaving the shop 60.00 below zero.
   */
  @Test
  void a_checking_shop_without_connectors_does_not_pay_out_of_a_balance_a_refund_took_below_zero()
      throws Exception {
    Shop shop = newShop("Careful approval shop", true, true);
    String deposit = gw.completedDeposit("100.00", "EUR", shop.key());
    Answer created = withdraw(shop, "100.00");
    assertThat(created.json().at("/result/state").asText()).as(created.body()).isEqualTo("AWAITING_APPROVAL");
    String payout = created.json().at("/result/id").asText();
    String refunded = refund(shop, deposit, "60.00");
    assertThat(gw.awaitStateOtherThan(refunded, "PENDING", Duration.ofSeconds(10), shop.key()).get("state").asText())
        .isEqualTo("COMPLETED");
    assertThat(gw.ledgerSum(shop.id(), "EUR")[0]).as("the refund took what the hold left, and more")
        .isEqualByComparingTo("-60.00");

    assertThat(gw.post("/api/v1/payments/" + payout + "/approve", "", shop.key(), null).status()).isEqualTo(200);
    JsonNode done = gw.awaitStateOtherThan(payout, "PENDING", Duration.ofSeconds(10), shop.key());
    assertThat(done.get("state").asText()).as(done.toString()).isEqualTo("DECLINED");
    assertThat(done.get("errorCode").asText()).isEqualTo("1.10");
    assertThat(gw.merchantOperations(shop.id(), payout)).last()
        .satisfies(o -> assertThat(o.path("rawPaymentData").asText()).contains("Check Withdrawal Balance: -60")
            .contains("EUR available with this payout held"));
    var ledger = gw.ledgerSum(shop.id(), "EUR");
    assertThat(ledger[0]).as("the hold given back").isEqualByComparingTo("40.00");
    assertThat(ledger[1]).as("nothing held any more").isEqualByComparingTo("0");
    assertThat(available(shop)).isEqualTo("40.00");
  }

  @Test
  void concurrent_withdrawals_never_overdraw_the_balance() throws Exception {
    Shop shop = newShop("Contended shop", false, true);
    gw.completedDeposit("10.00", "EUR", shop.key());
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<String>> states = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      states.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return withdraw(shop, "1.00").json().at("/result/state").asText();
      }, pool));
    }
    go.countDown();
    List<String> all = new ArrayList<>();
    for (CompletableFuture<String> f : states) {
      all.add(f.get());
    }
    pool.shutdown();
    assertThat(all).filteredOn("PENDING"::equals).hasSize(10);
    assertThat(all).filteredOn("DECLINED"::equals).hasSize(20);
    var ledger = gw.ledgerSum(shop.id(), "EUR");
    assertThat(ledger[0]).as("never overdrawn").isEqualByComparingTo("0");
    assertThat(balances(shop).get(0).get("amount").decimalValue()).as("balance equals its ledger").isEqualByComparingTo(ledger[0]);
  }

  @Test
  void a_withdrawal_needing_approval_waits_then_is_approved_or_rejected() throws Exception {
    Shop shop = newShop("Approval shop", true, false);
    String first = withdraw(shop, "5.00").json().at("/result/id").asText();
    String second = withdraw(shop, "6.00").json().at("/result/id").asText();
    // a payout created after them, which needs no approval, paid out: the worker has looked since
    Shop prompt = newShop("Prompt shop", false, false);
    String later = withdraw(prompt, "1.00").json().at("/result/id").asText();
    assertThat(gw.awaitStateOtherThan(later, "PENDING", Duration.ofSeconds(10), prompt.key()).get("state").asText())
        .isEqualTo("COMPLETED");
    assertThat(gw.get("/api/v1/payments/" + first, shop.key()).json().at("/result/state").asText())
        .as("the worker leaves it alone").isEqualTo("AWAITING_APPROVAL");

    Answer malformed = gw.post("/api/v1/payments/" + first + "/approve", "{\"garbage", shop.key(), null);
    assertThat(malformed.status()).as("a malformed body is refused, whatever the action").isEqualTo(400);
    assertThat(gw.get("/api/v1/payments/" + first, shop.key()).json().at("/result/state").asText())
        .isEqualTo("AWAITING_APPROVAL");
    Answer approved = gw.post("/api/v1/payments/" + first + "/approve", "", shop.key(), null);
    assertThat(approved.json().at("/result/state").asText()).isEqualTo("PENDING");
    assertThat(gw.awaitStateOtherThan(first, "PENDING", Duration.ofSeconds(10), shop.key()).get("state").asText()).isEqualTo("COMPLETED");

    Answer rejected = gw.post("/api/v1/payments/" + second + "/reject", "{\"rejectReason\":\"KYC missing\"}", shop.key(), null);
    assertThat(rejected.json().at("/result/state").asText()).isEqualTo("CANCELLED");
    assertThat(rejected.json().at("/result/errorCode").asText()).isEqualTo("8.00");
    assertThat(rejected.json().at("/result/externalResultCode").asText()).isEqualTo("KYC missing");
    assertThat(gw.post("/api/v1/payments/" + second + "/approve", "", shop.key(), null).status()).isEqualTo(409);
    var ledger = gw.ledgerSum(shop.id(), "EUR");
    assertThat(ledger[1]).as("nothing held any more").isEqualByComparingTo("0");

    // staff quoting the card they refused: kept, answered and sent with the number masked
    String third = withdraw(shop, "7.00").json().at("/result/id").asText();
    Answer quoting = gw.post("/api/v1/payments/" + third + "/reject",
        "{\"rejectReason\":\"stolen card 4000 0000 0000 0408\"}", shop.key(), null);
    assertThat(quoting.status()).as(quoting.body()).isEqualTo(200);
    assertThat(quoting.json().at("/result/externalResultCode").asText()).isEqualTo("stolen card 400000******0408");
    assertThat(gw.merchantOperations(shop.id(), third)).extracting(o -> o.path("rawPaymentData").asText())
        .noneMatch(d -> d.contains("0000 0000")).anyMatch(d -> d.contains("stolen card 400000******0408"));
  }

  @Test
  void a_refund_is_paid_out_and_refunds_never_exceed_the_deposit_even_concurrently() throws Exception {
    Shop shop = newShop("Refund shop", false, false);
    String deposit = gw.completedDeposit("10.00", "EUR", shop.key());
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Answer>> answers = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      answers.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":1.00,\"currency\":\"EUR\","
            + "\"parentPaymentId\":\"" + deposit + "\"}", shop.key(), null);
      }, pool));
    }
    go.countDown();
    List<String> created = new ArrayList<>();
    int refused = 0;
    for (CompletableFuture<Answer> f : answers) {
      Answer a = f.get();
      if (a.status() == 200) {
        created.add(a.json().at("/result/id").asText());
      } else {
        assertThat(a.status()).isEqualTo(400);
        refused++;
      }
    }
    pool.shutdown();
    assertThat(created).hasSize(10);
    assertThat(refused).isEqualTo(40);
    for (String id : created) {
      assertThat(gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10), shop.key()).get("state").asText()).isEqualTo("COMPLETED");
    }
    assertThat(available(shop)).isEqualTo("0");
    var ledger = gw.ledgerSum(shop.id(), "EUR");
    assertThat(ledger[0]).isEqualByComparingTo("0");
  }

  /** The merchant's record of a deposit says what its paid refunds gave back; a refused one does not count. */
  @Test
  void the_merchants_record_of_a_deposit_sums_its_completed_refunds() throws Exception {
    Shop shop = newShop("Refunded shop", false, false);
    String deposit = gw.completedDeposit("20000.00", "EUR", shop.key());
    String untouched = gw.completedDeposit("7.00", "EUR", shop.key());
    String paid = refund(shop, deposit, "5.25");
    String refused = refund(shop, deposit, "10000.01");
    assertThat(gw.awaitStateOtherThan(paid, "PENDING", Duration.ofSeconds(10), shop.key()).get("state").asText())
        .isEqualTo("COMPLETED");
    assertThat(gw.awaitStateOtherThan(refused, "PENDING", Duration.ofSeconds(10), shop.key()).get("errorCode").asText())
        .as("over the sandbox's refund limit").isEqualTo("3.28");

    String[] reader = gw.merchantUser(gw.merchant, "refunds-" + deposit + "@shop.example");
    JsonNode records = gw.merchantGet("/merchant-api/v1/payments?limit=1000&created.gte=2000-01-01T00:00:00", reader)
        .json().get("result");
    assertThat(record(records, deposit).get("refundedAmount").asText()).isEqualTo("5.25");
    assertThat(record(records, untouched).get("refundedAmount").asText()).isEqualTo("0.00");
    assertThat(record(records, paid).has("refundedAmount")).as("only deposits are refunded").isFalse();
  }

  private static String refund(Shop shop, String parent, String amount) {
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":" + amount
        + ",\"currency\":\"EUR\",\"parentPaymentId\":\"" + parent + "\"}", shop.key(), null);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  private static JsonNode record(JsonNode records, String id) {
    for (JsonNode p : records) {
      if (p.get("id").asText().equals(id)) {
        return p;
      }
    }
    throw new AssertionError(id + " is not in the merchant's records");
  }

  /**
   * A balance's id names its account for good: the shop's first payment in a currency that is
   * listed before the others opens new accounts and renumbers none, in either API.
   */
  @Test
  void a_balance_keeps_its_id_when_the_shop_first_holds_another_currency() {
    Shop shop = newShop("Two currency shop", false, false);
    String[] reader = gw.merchantUser(gw.merchant, "balances@two-currencies.example");
    gw.completedDeposit("25.00", "EUR", shop.key());
    Map<String, Long> before = idsByAccount(balances(shop));
    Map<Long, String> merchantBefore = merchantBalanceNames(reader);
    assertThat(before).containsOnlyKeys("EUR AVAILABLE", "EUR WITHDRAWAL");

    gw.completedDeposit("0.00115", "BTC", shop.key());

    JsonNode after = balances(shop);
    assertThat(after.get(0).get("currency").asText()).as("listed by currency").isEqualTo("BTC");
    Map<String, Long> ids = idsByAccount(after);
    assertThat(ids).hasSize(4).containsAllEntriesOf(before);
    assertThat(ids.get("BTC AVAILABLE")).isNotIn(before.values());
    assertThat(ids.get("BTC WITHDRAWAL")).isNotIn(before.values()).isNotEqualTo(ids.get("BTC AVAILABLE"));
    Map<Long, String> merchantAfter = merchantBalanceNames(reader);
    assertThat(merchantAfter).as("every shop's accounts keep their ids").containsAllEntriesOf(merchantBefore)
        .containsEntry(ids.get("BTC AVAILABLE"), "Two currency shop available BTC")
        .containsEntry(ids.get("EUR WITHDRAWAL"), "Two currency shop held for pending withdrawals and refunds EUR");
  }

  /**
   * A currency with more decimals than the smallest amount a payment may ask (0.00001) can leave
   * less than that available; listed as withdrawable, it was refused as a withdrawal's amount (and
   * broke the reference schema's minimum for the list's amounts).
   */
  @Test
  void a_remainder_below_the_smallest_withdrawal_is_not_listed_as_withdrawable() throws Exception {
    Shop shop = newShop("Dust shop", false, false);
    String[] reader = gw.merchantUser(gw.merchant, "balances@dust.example");
    gw.completedDeposit("0.00002", "BTC", shop.key());
    gw.completedDeposit("5.00", "EUR", shop.key());
    Answer w = gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":0.000015,"
        + "\"currency\":\"BTC\"," + CARD + "}", shop.key(), null);
    String id = w.json().at("/result/id").asText();
    assertThat(gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10), shop.key()).get("state").asText())
        .isEqualTo("COMPLETED");
    assertThat(balances(shop).findValuesAsText("currency")).as("the remainder is still the shop's").contains("BTC");

    JsonNode gateway = gw.get("/api/v1/available-withdrawal-balances", shop.key()).json().get("result");
    assertThat(gateway.findValuesAsText("currency")).containsExactly("EUR");
    List<String> merchant = new ArrayList<>();
    for (JsonNode b : gw.merchantGet("/merchant-api/v1/available-withdrawal-balances", reader).json().get("result")) {
      if (b.get("shopId").asLong() == shop.id().value()) {
        merchant.add(b.get("currency").asText());
      }
    }
    assertThat(merchant).containsExactly("EUR");
  }

  private static Map<String, Long> idsByAccount(JsonNode balances) {
    Map<String, Long> ids = new HashMap<>();
    for (JsonNode b : balances) {
      ids.put(b.get("currency").asText() + " " + b.get("accountType").asText(), b.get("id").asLong());
    }
    return ids;
  }

  /** The merchant's balances of all its shops, by id. */
  private static Map<Long, String> merchantBalanceNames(String[] reader) {
    Map<Long, String> names = new HashMap<>();
    for (JsonNode b : gw.merchantGet("/merchant-api/v1/balances", reader).json().get("result")) {
      assertThat(names.put(b.get("id").asLong(), b.get("name").asText())).as("ids are unique").isNull();
    }
    return names;
  }

  @Test
  void balances_can_be_switched_off_per_deployment() throws Exception {
    try (TestGateway off = TestGateway.start(Map.of("TOLLGATE_GATEWAY_BALANCES", "false"))) {
      assertThat(off.get("/api/v1/balances").status()).isEqualTo(404);
      assertThat(off.get("/api/v1/available-withdrawal-balances").status()).isEqualTo(200);
    }
  }
}
