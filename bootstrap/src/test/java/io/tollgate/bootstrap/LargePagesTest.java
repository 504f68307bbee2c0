package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.user.Permission;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Large list pages share a budget of rows per instance (here 1,000): a page of 10,000 payments is
 * megabytes while it is built and written, and 32 of them at once ran the heap out. A page is
 * held in flight here by a lock on the shop groups' members, which a page of one group's
 * operations waits for (and nothing else this test runs reads).
 */
class LargePagesTest {

  static TestGateway gw;
  static String[] reader;
  static String heldPage;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of("TOLLGATE_LARGE_PAGE_ROWS", "1000"));
    reader = gw.merchantUser(gw.merchant, "pages@shop.example", Permission.SHOP_GROUP_VIEW);
    gw.completedDeposit("5.00", "EUR", gw.apiKey);
    long group = gw.app.services().persistence().referenceData().createShopGroup(gw.merchant, "All", Instant.now());
    heldPage = "/merchant-api/v1/operations?limit=600&shopGroupId.eq=" + group;
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void a_large_page_while_others_hold_the_budget_is_a_503_with_retry_after_and_small_pages_still_pass()
      throws Exception {
    CompletableFuture<TestGateway.Answer> held;
    try (Handle lock = HeldPages.lockShopGroups(gw.database)) {
      held = CompletableFuture.supplyAsync(() -> gw.merchantGet(heldPage, reader));
      awaitWaitingOnTheLock();

      long t0 = System.nanoTime();
      TestGateway.Answer refused = gw.get("/api/v1/payments?limit=600");
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("waited for the rows first")
          .isGreaterThanOrEqualTo(Duration.ofMillis(1900));
      assertThat(refused.header("Retry-After")).isNotBlank();
      assertThat(refused.json().get("message").asText()).startsWith("Too many large pages are being built at once");
      assertThat(refused.json().get("path").asText()).isEqualTo("/api/v1/payments");
      assertThat(gw.merchantGet("/merchant-api/v1/payments?limit=1000", reader).status()).isEqualTo(503);

      // small pages never wait: one that waited for the held page's rows, given back only once the
      // lock is gone, would be a 503 after 2 s
      assertThat(gw.get("/api/v1/payments?limit=50").status()).isEqualTo(200);
      assertThat(gw.merchantGet("/merchant-api/v1/payments?limit=500", reader).status()).isEqualTo(200);
      assertThat(gw.merchantGet("/merchant-api/v1/payments?limit=10001", reader).status())
          .as("a limit no list serves is refused as before").isEqualTo(400);
      assertThat(held).isNotDone();
      lock.rollback();
    }
    assertThat(held.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
    // the held page gave its rows back once answered: a page of the whole budget has them
    assertThat(gw.get("/api/v1/payments?limit=1000").status()).isEqualTo(200);
  }

  @Test
  void a_page_whose_request_fails_or_whose_client_goes_away_gives_its_rows_back() throws Exception {
    CompletableFuture<TestGateway.Answer> failed;
    try (Handle lock = HeldPages.lockShopGroups(gw.database)) {
      failed = CompletableFuture.supplyAsync(() -> gw.merchantGet(heldPage, reader));
      awaitWaitingOnTheLock();
      gw.database.jdbi().useHandle(HeldPages::cancelWaiting);
      assertThat(failed.get(10, TimeUnit.SECONDS).status()).isGreaterThanOrEqualTo(500);
      lock.rollback();
    }
    assertThat(gw.get("/api/v1/payments?limit=1000").status()).isEqualTo(200);

    try (Handle lock = HeldPages.lockShopGroups(gw.database); Socket client = new Socket("127.0.0.1", gw.app.port())) {
      OutputStream out = client.getOutputStream();
      out.write(("GET " + heldPage + " HTTP/1.1\r\nHost: x\r\nAuthorization: "
          + TestGateway.basic(reader) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      awaitWaitingOnTheLock();
      client.close();
      lock.rollback();
    }
    assertThat(gw.get("/api/v1/payments?limit=1000").status()).isEqualTo(200);
  }

  /**
   * A client that reads its large page far below the floor (here 1 KiB a second, the floor being 8) is cut off
   * and the page's rows go back to the budget within seconds. Before, they went back only once the page was
   * written, however slowly its client read it: two clients reading pages of 10,000 records a few KB a second held
   * the whole budget for as long as they liked, and every other large page was a 503.
   */
  @Test
  void a_large_page_read_far_below_the_floor_gives_its_rows_back_within_seconds() throws Exception {
    for (int i = 0; i < 150; i++) {
      gw.deposit("1.00", "EUR");
    }
    // the loopback interface buffers megabytes of a page its client does not read; the internet, tens of kilobytes
    gw.app.slowLink(16 * 1024, Duration.ofSeconds(1));
    TestGateway.SlowRead slow;
    try {
      slow = gw.readSlowly("GET /api/v1/payments?limit=1000 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + gw.apiKey + "\r\n\r\n", Duration.ofSeconds(30));
    } finally {
      gw.app.slowLink(-1, ResponseRateHandler.GRACE);
    }

    assertThat(slow.inFlight()).as("in flight while %d bytes were read", slow.read())
        .isLessThan(Duration.ofSeconds(10));
    assertThat(gw.get("/api/v1/payments?limit=1000").status()).isEqualTo(200);
  }

  /** Once the held page's query waits on the lock: its request has taken its rows of the budget. */
  private static void awaitWaitingOnTheLock() throws InterruptedException {
    try (Handle watch = gw.database.jdbi().open()) {
      HeldPages.awaitWaiting(watch, 1);
    }
  }
}
