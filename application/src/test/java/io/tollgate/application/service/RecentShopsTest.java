package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RecentShopsTest {

  private static final ShopId SHOP = new ShopId(7);

  private static Shop timingOutAfter(Duration timeout) {
    return new Shop(SHOP, new MerchantId(3), "Corner Shop", null, null, timeout, false, false, "EUR");
  }

  /**
   * A cache of its own on top of the repository's, which keeps rows ten seconds, let a checkout
   * page or a host-to-host completion apply a changed checkout timeout up to twenty seconds late,
   * cancelling deposits that the new timeout still allowed (the README says ten): the timeout is
   * what the repository answers now.
   */
  @Test
  void a_changed_checkout_timeout_is_read_as_the_repository_answers_it() {
    ShopRepository shops = mock(ShopRepository.class);
    when(shops.find(SHOP)).thenReturn(Optional.of(timingOutAfter(Duration.ofMinutes(1))),
        Optional.of(timingOutAfter(Duration.ofMinutes(30))));
    RecentShops recent = new RecentShops(shops);

    assertThat(recent.checkoutTimeout(SHOP)).isEqualTo(Duration.ofMinutes(1));
    assertThat(recent.checkoutTimeout(SHOP)).as("after the shop's update").isEqualTo(Duration.ofMinutes(30));
    assertThat(recent.name(SHOP)).isEqualTo("Corner Shop");
    assertThat(recent.checkoutTimeout(new ShopId(8))).as("no such shop").isEqualTo(Shop.DEFAULT_CHECKOUT_TIMEOUT);
  }
}
