package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Shops are kept in memory for a few seconds; a shop created in this process shows at once. */
class JdbiShopRepositoryTest extends FreshDatabaseTest {

  @Test
  void a_new_shop_is_listed_at_once_and_only_once_committed() {
    ShopRepository shops = adapters.shops();
    MerchantId merchant = shops.createMerchant("Kept shops", Instant.now());
    ShopId first = shops.createShop(shop(merchant, "First"), Instant.now());
    assertThat(names(shops.shopsOf(merchant))).containsExactly("First");
    assertThat(shops.find(first)).get().extracting(Shop::name).isEqualTo("First");

    shops.createShop(shop(merchant, "Second"), Instant.now());
    assertThat(names(shops.shopsOf(merchant))).containsExactly("First", "Second");

    adapters.transactionRunner().inTransaction(() -> {
      shops.createShop(shop(merchant, "Third"), Instant.now());
      // Another request, before the commit: it cannot see the shop yet, and what it reads now
      // must not outlive the commit.
      List<Shop> before = CompletableFuture.supplyAsync(() -> shops.shopsOf(merchant)).join();
      assertThat(names(before)).containsExactly("First", "Second");
      return null;
    });
    assertThat(names(shops.shopsOf(merchant))).containsExactly("First", "Second", "Third");
  }

  private static Shop shop(MerchantId merchant, String name) {
    return new Shop(new ShopId(Long.MAX_VALUE), merchant, name, null, null, null, false, false, "EUR");
  }

  private static List<String> names(List<Shop> shops) {
    return shops.stream().map(Shop::name).toList();
  }
}
