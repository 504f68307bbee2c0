package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How long a card's security code stays in memory for the charge it is held for. */
class SecurityCodesTest {

  private final AtomicLong nanos = new AtomicLong();
  /** The removals the codes asked to run later, which the test runs once their time has come. */
  private final List<Runnable> scheduled = new CopyOnWriteArrayList<>();
  private final SecurityCodes codes = new SecurityCodes(nanos::get, (executor, removal, delay, unit) -> {
    scheduled.add(removal);
    return new CompletableFuture<Void>();
  });
  private final ShopId shop = new ShopId(1);

  private void after(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  @Test
  void a_deposits_code_is_held_15_minutes_from_its_creation() {
    PaymentId p = PaymentId.random();
    codes.hold(shop, p, "123");
    after(Duration.ofMinutes(14));
    assertThat(codes.held(shop, p)).isEqualTo("123");
    after(Duration.ofMinutes(2));
    assertThat(codes.held(shop, p)).isNull();
  }

  /** A challenge 14 minutes in, answered 20 minutes later, within a 30-minute checkout timeout. */
  @Test
  void a_code_held_again_for_a_challenge_lasts_as_long_as_the_customer_has_to_answer() {
    PaymentId p = PaymentId.random();
    codes.hold(shop, p, "123");
    after(Duration.ofMinutes(14));
    codes.hold(shop, p, "123", Duration.ofMinutes(31));
    after(Duration.ofMinutes(20));
    assertThat(codes.held(shop, p)).isEqualTo("123");
    after(Duration.ofMinutes(12));
    assertThat(codes.held(shop, p)).isNull();
  }

  @Test
  void no_code_is_held_longer_than_an_hour_nor_under_another_shop() {
    PaymentId p = PaymentId.random();
    codes.hold(shop, p, "123", Duration.ofDays(2));
    assertThat(codes.held(new ShopId(2), p)).isNull();
    after(Duration.ofMinutes(59));
    assertThat(codes.held(shop, p)).isEqualTo("123");
    after(Duration.ofMinutes(2));
    assertThat(codes.held(shop, p)).isNull();
  }

  /**
   * A code whose hold has passed leaves memory then, though no one asks this instance for a code
   * of its shop again. Before, the codes of a shop were removed only as its codes were next used,
   * so on an instance whose shop went quiet a code stayed in the heap for up to a day.
   */
  @Test
  void a_code_past_its_hold_leaves_memory_though_its_shop_goes_quiet() throws InterruptedException {
    codes.hold(shop, PaymentId.random(), "123");
    assertThat(codes.inMemory()).isEqualTo(1);

    after(Duration.ofMinutes(16));
    // the caches set their timers in the background, the shop's and the code's each in its own
    // time: run what they have set until the code is gone (without timers, it never goes)
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (codes.inMemory() != 0 && System.nanoTime() < deadline) {
      scheduled.forEach(Runnable::run);
      Thread.sleep(10);
    }

    assertThat(codes.inMemory()).as("removed on the timer, the shop's codes not used since").isZero();
  }
}
