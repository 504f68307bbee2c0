package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tollgate.domain.payment.PaymentId;
import java.time.Duration;

/**
 * Card security codes on their way from the request that gave one to the charge it is for, in
 * this instance's memory only: never written to the database, a log or a file. A deposit given
 * its card with the request is charged by a later one (the host-to-host PATCH, or the checkout
 * page that skips its form), and the acquirer asks for the code with the charge.
 *
 * <p>A code is forgotten once its payment's charge was sent, or after {@link #HELD} if none comes
 * (a deposit never executed). A charge made by another instance or after a restart goes without
 * it, as one whose card came without a code does; the acquirer decides whether it takes that.
 */
public final class SecurityCodes {

  static final Duration HELD = Duration.ofMinutes(15);

  private final Cache<PaymentId, String> codes = Caffeine.newBuilder()
      .expireAfterWrite(HELD).maximumSize(100_000).build();

  void hold(PaymentId payment, String code) {
    if (code != null && !code.isBlank()) {
      codes.put(payment, code);
    }
  }

  /** The code held for the payment, or null. */
  String held(PaymentId payment) {
    return codes.getIfPresent(payment);
  }

  void forget(PaymentId payment) {
    codes.invalidate(payment);
  }
}
