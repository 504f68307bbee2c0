package io.tollgate.application.port.out;

import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Merchant users and their password hashes. E-mail addresses are stored lower-case and unique. */
public interface UserRepository {

  /**
   * @param shopGroup a shop group of {@code merchant} the user is scoped to, or null
   * @return empty when the e-mail address is taken
   */
  Optional<MerchantUser> create(MerchantId merchant, String email, String passwordHash, Set<Permission> permissions,
      Long shopGroup, Instant now);

  Optional<StoredUser> findByEmail(String email);

  /** The merchant's users, by e-mail address. */
  List<StoredUser> usersOf(MerchantId merchant);

  /** @return false when no user has this e-mail address */
  boolean setDisabled(String email, boolean disabled);

  /** Replaces the user's permissions. @return false when no user has this e-mail address */
  boolean setPermissions(String email, Set<Permission> permissions);

  /**
   * Scopes the user to a shop group of its merchant, or with null to every shop of it.
   *
   * @return false when no user has this e-mail address
   */
  boolean setShopGroup(String email, Long shopGroup);

  /** @return false when no user has this e-mail address */
  boolean setPasswordHash(String email, String passwordHash);

  /** @param disabled an operator has disabled the user: its credentials are refused */
  record StoredUser(MerchantUser user, String passwordHash, boolean disabled) {}
}
