package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.Permission;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One merchant's lists hold at most its share of the database (here 8 of the test database's 20
 * connections), and all merchants' lists at most the total (here 12): a flood of them, as deep pages
 * within the rate limit would be, once held every connection, and another merchant's list and the
 * gateway's payments waited 5 s for one and were a 503. The flood is held in flight here, as in
 * {@link LargePagesTest}, by a lock on the shop groups' members, which a page of one group's
 * operations waits for.
 */
class MerchantListShareTest {

  static final int SHARE = 8;
  static final int TOTAL = 12;
  static TestGateway gw;
  static String[] flooder;
  static String[] other;
  static String heldPage;
  /**
   * The test's own connection to watch the held pages by: without a share the flood took every
   * other one, and a watch asking the pool for one would wait as the other merchant did.
   */
  static Handle watch;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of("TOLLGATE_MERCHANT_LIST_SHARE", Integer.toString(SHARE),
        "TOLLGATE_MERCHANT_LISTS_TOTAL", Integer.toString(TOTAL)));
    flooder = gw.merchantUser(gw.merchant, "flood@shop.example", Permission.SHOP_GROUP_VIEW);
    gw.completedDeposit("5.00", "EUR", gw.apiKey);
    long group = gw.app.services().persistence().referenceData().createShopGroup(gw.merchant, "All", Instant.now());
    heldPage = "/merchant-api/v1/operations?offset=900000&shopGroupId.eq=" + group;
    MerchantId otherMerchant = gw.app.services().shops().createMerchant("Other Merchant");
    gw.createShop(otherMerchant, "Other Shop", false);
    other = gw.merchantUser(otherMerchant, "lists@other.example");
    watch = gw.database.jdbi().open();
  }

  @AfterAll
  static void stop() {
    watch.close();
    gw.close();
  }

  @Test
  void one_merchants_flood_of_lists_leaves_the_other_merchants_and_the_gateway_their_connections() throws Exception {
    // signed in before the flood: what is measured below is the list, not a first password check
    assertThat(gw.merchantGet("/merchant-api/v1/payments", other).status()).isEqualTo(200);
    assertThat(gw.merchantGet("/merchant-api/v1/payments", flooder).status()).isEqualTo(200);
    int flood = (1 + MerchantListShare.WAITING) * SHARE + 4;
    List<Future<TestGateway.Answer>> answers = new ArrayList<>();
    ExecutorService clients = Executors.newFixedThreadPool(flood);
    try {
      try (Handle lock = HeldPages.lockShopGroups(gw.database)) {
        for (int i = 0; i < flood; i++) {
          answers.add(clients.submit(() -> gw.merchantGet(heldPage, flooder)));
        }
        awaitWaitingOnTheLock(SHARE);
        // the rest of the flood arrives meanwhile: without a share, it took the remaining connections
        Thread.sleep(500);

        // Neither waits for a connection or a place: what they would wait for is held until the lock
        // is gone, after them, and they would be a 503, after the pool's 5 s or the share's 2 s.
        TestGateway.Answer otherList = gw.merchantGet("/merchant-api/v1/payments?limit=500&offset=100", other);
        assertThat(otherList.status()).as(otherList.body()).isEqualTo(200);
        assertThat(gw.get("/api/v1/payments").status()).isEqualTo(200);
        assertThat(waitingOnTheLock()).as("no more of the flood reached the database than its share")
            .isEqualTo(SHARE);

        // the 4 beyond those served and those waiting are refused at once, those waiting after 2 s
        allButHeldRefused(answers, SHARE, "Too many list requests of your merchant are being served at once");
        lock.rollback();
      }
      int served = 0;
      for (Future<TestGateway.Answer> answer : answers) {
        if (answer.get(10, TimeUnit.SECONDS).status() == 200) {
          served++;
        }
      }
      assertThat(served).as("the share was served once the lock was gone").isEqualTo(SHARE);
      // every place was given back, and no merchant is remembered once its lists are answered
      assertThat(gw.app.merchantsWithListsInFlight()).isZero();
      List<Future<TestGateway.Answer>> again = new ArrayList<>();
      for (int i = 0; i < 2 * SHARE; i++) {
        again.add(clients.submit(() -> gw.merchantGet(heldPage, flooder)));
      }
      for (Future<TestGateway.Answer> answer : again) {
        assertThat(answer.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      }
      assertThat(gw.app.merchantsWithListsInFlight()).isZero();
    } finally {
      clients.shutdownNow();
    }
  }

  @Test
  void heavy_merchants_at_their_share_each_leave_another_merchants_list_and_the_gateway_their_connections()
      throws Exception {
    // at their share, three merchants' lists would hold 24 connections: more than the 18 the lock and the watch leave
    List<HeavyMerchant> heavy = List.of(heavyMerchant("heavy-a"), heavyMerchant("heavy-b"), heavyMerchant("heavy-c"));
    for (HeavyMerchant merchant : heavy) {
      assertThat(gw.merchantGet("/merchant-api/v1/payments", merchant.user()).status()).isEqualTo(200);
    }
    assertThat(gw.merchantGet("/merchant-api/v1/payments", other).status()).isEqualTo(200);
    int flood = heavy.size() * SHARE;
    // one share in all, and the first list of each merchant that had none when that share was reached
    int mostServed = SHARE + heavy.size() - 1;
    List<Future<TestGateway.Answer>> answers = new ArrayList<>();
    ExecutorService clients = Executors.newFixedThreadPool(flood);
    try {
      int held;
      try (Handle lock = HeldPages.lockShopGroups(gw.database)) {
        for (HeavyMerchant merchant : heavy) {
          for (int i = 0; i < SHARE; i++) {
            answers.add(clients.submit(() -> gw.merchantGet(merchant.heldPage(), merchant.user())));
          }
        }
        awaitWaitingOnTheLock(SHARE);
        // the rest of the flood arrives meanwhile: without a total, it took the remaining connections
        Thread.sleep(500);

        // Neither waits for a connection or a place: what they would wait for is held until the lock
        // is gone, after them, and they would be a 503, after the pool's 5 s or the total's 2 s.
        TestGateway.Answer otherList = gw.merchantGet("/merchant-api/v1/payments?limit=500&offset=100", other);
        assertThat(otherList.status()).as(otherList.body()).isEqualTo(200);
        TestGateway.Answer payment = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1.00,"
            + "\"currency\":\"EUR\",\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\","
            + "\"expiryYear\":\"2045\"}}");
        assertThat(payment.status()).as(payment.body()).isEqualTo(200);
        // exact, where a look at the database would miss a list let in that has not reached its lock yet
        held = gw.app.merchantListsServed();
        assertThat(held).as("no more of the heavy merchants' lists were let in than the total lets them")
            .isBetween(SHARE, mostServed);
        awaitWaitingOnTheLock(held);

        // the lists waiting for a place of the total are refused after 2 s, holding nothing
        allButHeldRefused(answers, held, "Too many merchants' list requests are being served at once");
        lock.rollback();
      }
      int served = 0;
      for (Future<TestGateway.Answer> answer : answers) {
        if (answer.get(10, TimeUnit.SECONDS).status() == 200) {
          served++;
        }
      }
      assertThat(served).as("the lists held were served once the lock was gone").isEqualTo(held);
      // each place of the total was given back once: none is missing, none given back twice
      assertThat(gw.app.merchantListsServed()).isZero();
      assertThat(gw.app.merchantsWithListsInFlight()).isZero();
      List<Future<TestGateway.Answer>> again = new ArrayList<>();
      for (int i = 0; i < TOTAL; i++) {
        HeavyMerchant merchant = heavy.get(i % heavy.size());
        again.add(clients.submit(() -> gw.merchantGet(merchant.heldPage(), merchant.user())));
      }
      for (Future<TestGateway.Answer> answer : again) {
        assertThat(answer.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      }
      assertThat(gw.app.merchantListsServed()).isZero();
    } finally {
      clients.shutdownNow();
    }
  }

  @Test
  void a_list_whose_request_fails_gives_its_place_back() throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(SHARE);
    try {
      List<Future<TestGateway.Answer>> failed = new ArrayList<>();
      try (Handle lock = HeldPages.lockShopGroups(gw.database)) {
        for (int i = 0; i < SHARE; i++) {
          failed.add(clients.submit(() -> gw.merchantGet(heldPage, flooder)));
        }
        awaitWaitingOnTheLock(SHARE);
        HeldPages.cancelWaiting(watch);
        for (Future<TestGateway.Answer> answer : failed) {
          assertThat(answer.get(10, TimeUnit.SECONDS).status()).isGreaterThanOrEqualTo(500);
        }
        lock.rollback();
      }
    } finally {
      clients.shutdownNow();
    }
    assertThat(gw.app.merchantsWithListsInFlight()).isZero();
    assertThat(gw.app.merchantListsServed()).isZero();
    // with a place not given back, it would wait for one that never frees, and be a 503 after 2 s
    assertThat(gw.merchantGet(heldPage, flooder).status()).isEqualTo(200);
  }

  /**
   * A total set to the share still keeps its last place for merchants with no list served: one
   * merchant's flood took all of it, and another merchant's first list waited 2 s for a 503 where,
   * without any total, it would have had one of the connections the share left.
   */
  @Test
  void a_total_set_to_the_share_keeps_a_place_for_another_merchants_first_list() throws Exception {
    int share = 4;
    try (TestGateway own = TestGateway.start(Map.of("TOLLGATE_MERCHANT_LIST_SHARE", Integer.toString(share),
        "TOLLGATE_MERCHANT_LISTS_TOTAL", Integer.toString(share)));
        Handle ownWatch = own.database.jdbi().open()) {
      String[] heavy = own.merchantUser(own.merchant, "heavy@shop.example", Permission.SHOP_GROUP_VIEW);
      long group = own.app.services().persistence().referenceData().createShopGroup(own.merchant, "All",
          Instant.now());
      String page = "/merchant-api/v1/operations?offset=900000&shopGroupId.eq=" + group;
      MerchantId otherMerchant = own.app.services().shops().createMerchant("Other Merchant");
      own.createShop(otherMerchant, "Other Shop", false);
      String[] second = own.merchantUser(otherMerchant, "lists@other.example");
      ExecutorService clients = Executors.newFixedThreadPool(share);
      try {
        List<Future<TestGateway.Answer>> flood = new ArrayList<>();
        try (Handle lock = HeldPages.lockShopGroups(own.database)) {
          for (int i = 0; i < share; i++) {
            flood.add(clients.submit(() -> own.merchantGet(page, heavy)));
          }
          HeldPages.awaitWaiting(ownWatch, share - 1);
          Thread.sleep(300);
          assertThat(own.app.merchantListsServed()).as("the flood held all but the total's last place")
              .isEqualTo(share - 1);

          TestGateway.Answer list = own.merchantGet("/merchant-api/v1/payments", second);
          assertThat(list.status()).as(list.body()).isEqualTo(200);
          lock.rollback();
        }
        for (Future<TestGateway.Answer> answer : flood) {
          assertThat(answer.get(10, TimeUnit.SECONDS).status()).isIn(200, 503);
        }
        assertThat(own.app.merchantListsServed()).isZero();
      } finally {
        clients.shutdownNow();
      }
    }
  }

  /**
   * Waits (at most 10 s) until every list but the {@code held} ones has its answer, and checks
   * each is a 503 with {@code Retry-After} and {@code message}, while the held ones still wait on
   * the lock.
   */
  private static void allButHeldRefused(List<Future<TestGateway.Answer>> answers, int held, String message)
      throws Exception {
    long refusedBy = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (answers.stream().filter(Future::isDone).count() < answers.size() - held) {
      assertThat(System.nanoTime()).as("the lists beyond those held are refused").isLessThan(refusedBy);
      Thread.sleep(20);
    }
    assertThat(waitingOnTheLock()).isEqualTo(held);
    for (Future<TestGateway.Answer> answer : answers) {
      if (answer.isDone()) {
        TestGateway.Answer refused = answer.get();
        assertThat(refused.status()).as(refused.body()).isEqualTo(503);
        assertThat(refused.header("Retry-After")).isNotBlank();
        assertThat(refused.json().get("message").asText()).startsWith(message);
        assertThat(refused.json().get("path").asText()).isEqualTo("/merchant-api/v1/operations");
      }
    }
  }

  /** A merchant of its own, with a user and a page of its operations that the lock holds. */
  private record HeavyMerchant(String[] user, String heldPage) {}

  private static HeavyMerchant heavyMerchant(String name) {
    MerchantId merchant = gw.app.services().shops().createMerchant(name);
    gw.createShop(merchant, name + " shop", false);
    long group = gw.app.services().persistence().referenceData().createShopGroup(merchant, "All", Instant.now());
    return new HeavyMerchant(gw.merchantUser(merchant, "lists@" + name + ".example", Permission.SHOP_GROUP_VIEW),
        "/merchant-api/v1/operations?offset=900000&shopGroupId.eq=" + group);
  }

  private static int waitingOnTheLock() {
    return HeldPages.waiting(watch);
  }

  private static void awaitWaitingOnTheLock(int pages) throws InterruptedException {
    HeldPages.awaitWaiting(watch, pages);
  }
}
