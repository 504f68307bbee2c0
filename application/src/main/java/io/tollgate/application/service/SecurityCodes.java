package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;

/**
 * Card security codes on their way from the request that gave one to the charge it is for, in
 * this instance's memory only: never written to the database, a log or a file. A deposit given
 * its card with the request is charged by a later one (the host-to-host PATCH, or the checkout
 * page that skips its form), and a deposit the issuer challenges is charged again, by that
 * terminal or the next, once the customer answers; the acquirer asks for the code each time.
 *
 * <p>A code is forgotten once its payment no longer waits on a charge (it was sent and no
 * challenge is pending, or the deposit was cancelled or expired), or when the time it was held
 * for has passed in any case: {@link #HELD} from the deposit's creation, or from a challenge as
 * long as the customer has to answer it (the shop's checkout timeout, at most {@link #LONGEST}).
 *
 * <p>A code whose time has passed leaves memory then, on a timer, not when the codes of its
 * shop are next used, which on an instance whose shop has gone quiet may be a day later.
 *
 * <p>Each shop holds at most {@link #PER_SHOP} codes: one merchant creating deposits faster than
 * it executes them pushes out its own oldest codes, never another merchant's.
 */
public final class SecurityCodes {

  static final Duration HELD = Duration.ofMinutes(15);
  static final Duration LONGEST = Duration.ofHours(1);
  static final int PER_SHOP = 20_000;

  /** A code and how long it is held from when it was held. */
  private record Held(String code, long nanos) {}

  /** Each entry lives as long as it was held for, counted from its last hold. */
  private static final Expiry<PaymentId, Held> AS_HELD = new Expiry<>() {
    @Override
    public long expireAfterCreate(PaymentId payment, Held held, long now) {
      return held.nanos();
    }

    @Override
    public long expireAfterUpdate(PaymentId payment, Held held, long now, long remaining) {
      return held.nanos();
    }

    @Override
    public long expireAfterRead(PaymentId payment, Held held, long now, long remaining) {
      return remaining;
    }
  };

  private final com.github.benmanes.caffeine.cache.Ticker ticker;
  private final Scheduler scheduler;
  private final Cache<ShopId, Cache<PaymentId, Held>> shops;

  public SecurityCodes() {
    this(com.github.benmanes.caffeine.cache.Ticker.systemTicker(), Scheduler.systemScheduler());
  }

  /**
   * @param ticker the clock the codes' times are read from (a test's own)
   * @param scheduler what removes the codes whose time has passed, when it has (a test's own)
   */
  SecurityCodes(com.github.benmanes.caffeine.cache.Ticker ticker, Scheduler scheduler) {
    this.ticker = ticker;
    this.scheduler = scheduler;
    this.shops = Caffeine.newBuilder().ticker(ticker).scheduler(scheduler).expireAfterAccess(Duration.ofDays(1))
        .build();
  }

  /** Holds the code for {@link #HELD}, as a deposit is created with it. */
  void hold(ShopId shop, PaymentId payment, String code) {
    hold(shop, payment, code, HELD);
  }

  /** Holds the code for {@code duration} from now (at most {@link #LONGEST}). */
  void hold(ShopId shop, PaymentId payment, String code, Duration duration) {
    if (code != null && !code.isBlank()) {
      shops.get(shop, s -> Caffeine.newBuilder().ticker(ticker).scheduler(scheduler).expireAfter(AS_HELD)
              .maximumSize(PER_SHOP).build())
          .put(payment, new Held(code, (duration.compareTo(LONGEST) > 0 ? LONGEST : duration).toNanos()));
    }
  }

  /** The code held for the shop's payment, or null. */
  String held(ShopId shop, PaymentId payment) {
    Cache<PaymentId, Held> codes = shops.getIfPresent(shop);
    Held held = codes == null ? null : codes.getIfPresent(payment);
    return held == null ? null : held.code();
  }

  /** How many codes this instance keeps in memory now, those past their time not yet removed among them. */
  long inMemory() {
    return shops.asMap().values().stream().mapToLong(Cache::estimatedSize).sum();
  }

  void forget(ShopId shop, PaymentId payment) {
    Cache<PaymentId, Held> codes = shops.getIfPresent(shop);
    if (codes != null) {
      codes.invalidate(payment);
    }
  }
}
