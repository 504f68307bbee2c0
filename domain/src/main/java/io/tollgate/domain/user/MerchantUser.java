package io.tollgate.domain.user;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.MerchantId;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A member of a merchant's staff who signs in to the merchant API.
 *
 * @param shopGroupId the shop group of its merchant the user is scoped to: it sees only the
 *     records of the shops in that group; null for a user who sees every shop of the merchant
 */
public record MerchantUser(long id, MerchantId merchantId, String merchantName, String email,
    Set<Permission> permissions, Long shopGroupId) {

  public MerchantUser {
    Objects.requireNonNull(merchantId, "merchantId");
    Objects.requireNonNull(email, "email");
    permissions = permissions.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(permissions));
  }

  /** A user who sees every shop of its merchant. */
  public MerchantUser(long id, MerchantId merchantId, String merchantName, String email, Set<Permission> permissions) {
    this(id, merchantId, merchantName, email, permissions, null);
  }

  /** Whether the user sees only the shops of one shop group. */
  public boolean scoped() {
    return shopGroupId != null;
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
