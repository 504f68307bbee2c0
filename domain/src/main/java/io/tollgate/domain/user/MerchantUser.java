package io.tollgate.domain.user;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.MerchantId;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/** A member of a merchant's staff who signs in to the merchant API. */
public record MerchantUser(long id, MerchantId merchantId, String merchantName, String email,
    Set<Permission> permissions) {

  public MerchantUser {
    Objects.requireNonNull(merchantId, "merchantId");
    Objects.requireNonNull(email, "email");
    permissions = permissions.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(permissions));
  }

  public boolean may(Permission p) {
    return permissions.contains(p);
  }

  /** @throws DomainException.Forbidden when the user lacks the permission */
  public void require(Permission p) {
    if (!may(p)) {
      throw new DomainException.Forbidden("This needs the " + p.name() + " permission");
    }
  }
}
