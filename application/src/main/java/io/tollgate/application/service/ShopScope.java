package io.tollgate.application.service;

import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.MerchantUser;
import java.util.List;
import java.util.Set;

/**
 * Which of its merchant's shops a merchant user sees: every one, or, for a user scoped to a shop
 * group, the shops in that group when it asks. The group's members are read afresh each time,
 * never kept, so an edit of the group through the merchant API counts on the user's next request.
 */
final class ShopScope {

  private final ShopRepository shops;
  private final ReferenceData reference;

  ShopScope(ShopRepository shops, ReferenceData reference) {
    this.shops = shops;
    this.reference = reference;
  }

  /** The merchant's shops the user sees, in id order. */
  List<Shop> visibleShops(MerchantUser user) {
    List<Shop> all = shops.shopsOf(user.merchantId());
    if (!user.scoped()) {
      return all;
    }
    Set<Long> inGroup = groupShops(user);
    return all.stream().filter(s -> inGroup.contains(s.id().value())).toList();
  }

  /** Whether the shop is one the user sees: its merchant's and, for a scoped user, in its group now. */
  boolean sees(MerchantUser user, ShopId shop) {
    boolean merchants = shops.find(shop).filter(s -> s.merchantId().equals(user.merchantId())).isPresent();
    return merchants && (!user.scoped() || groupShops(user).contains(shop.value()));
  }

  /** A group that is gone or not the merchant's (the database refuses both) shows no shop. */
  private Set<Long> groupShops(MerchantUser user) {
    return reference.shopGroup(user.shopGroupId()).filter(g -> g.merchantId().equals(user.merchantId()))
        .map(g -> Set.copyOf(g.shopIds())).orElse(Set.of());
  }
}
