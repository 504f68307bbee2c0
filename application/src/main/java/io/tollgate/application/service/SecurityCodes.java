package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
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
 * challenge is pending, or the deposit was cancelled or expired), or after {@link #HELD} in any
 * case: counted from its creation, or from the challenge that still needs it. A charge made by another instance
 * or after a restart goes without it, as one whose card came without a code does; the acquirer
 * decides whether it takes that.
 *
 * <p>Each shop holds at most {@link #PER_SHOP} codes: one merchant creating deposits faster than
 * it executes them pushes out its own oldest codes, never another merchant's.
 */
public final class SecurityCodes {

  static final Duration HELD = Duration.ofMinutes(15);
  static final int PER_SHOP = 20_000;

  private final Cache<ShopId, Cache<PaymentId, String>> shops = Caffeine.newBuilder()
      .expireAfterAccess(HELD).build();

  void hold(ShopId shop, PaymentId payment, String code) {
    if (code != null && !code.isBlank()) {
      shops.get(shop, s -> Caffeine.newBuilder().expireAfterWrite(HELD).maximumSize(PER_SHOP).build())
          .put(payment, code);
    }
  }

  /** The code held for the shop's payment, or null. */
  String held(ShopId shop, PaymentId payment) {
    Cache<PaymentId, String> codes = shops.getIfPresent(shop);
    return codes == null ? null : codes.getIfPresent(payment);
  }

  void forget(ShopId shop, PaymentId payment) {
    Cache<PaymentId, String> codes = shops.getIfPresent(shop);
    if (codes != null) {
      codes.invalidate(payment);
    }
  }
}
