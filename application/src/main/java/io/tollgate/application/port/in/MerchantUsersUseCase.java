package io.tollgate.application.port.in;

import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Signing merchant users in, and managing them (operators, from the command line).
 *
 * <p>A change to a user (disabled, enabled, its permissions, shop group or password) counts at once in the
 * process that made it, and within {@link #CHANGES_SEEN_WITHIN} in every other process on the
 * same database: a running server re-reads a signed-in user at least that often.
 */
public interface MerchantUsersUseCase {

  /** How long a change to a user made by another process (the command line) may go unseen. */
  Duration CHANGES_SEEN_WITHIN = Duration.ofSeconds(5);

  /**
   * The user with this e-mail address and password.
   *
   * @throws io.tollgate.domain.DomainException.Unauthenticated for an unknown address, a wrong
   *     password or a disabled user
   */
  default MerchantUser authenticate(String email, String password) {
    return authenticate(email, password, "");
  }

  /**
   * The user with this e-mail address and password, asked for by {@code client} (its network
   * address): wrong passwords are limited per address and client, so that someone guessing does
   * not hold back the user's own integration, elsewhere.
   *
   * @throws io.tollgate.domain.DomainException.Unauthenticated for an unknown address, a wrong
   *     password or a disabled user
   * @throws io.tollgate.domain.DomainException.TooManyRequests after too many wrong passwords
   * @throws io.tollgate.domain.DomainException.Unavailable while too many passwords are being checked
   */
  MerchantUser authenticate(String email, String password, String client);

  /**
   * Creates a user; with a null password one is generated.
   *
   * @return the user and the password to hand over (shown once)
   */
  default CreatedUser create(MerchantId merchant, String email, String password, Set<Permission> permissions) {
    return create(merchant, email, password, permissions, null);
  }

  /**
   * Creates a user; with a null password one is generated.
   *
   * @param shopGroup the shop group of {@code merchant} the user is scoped to (it sees only the
   *     records of that group's shops), or null for a user who sees every shop of the merchant
   * @return the user and the password to hand over (shown once)
   * @throws io.tollgate.domain.DomainException.Invalid listing every problem, among them a
   *     shop group that is unknown or another merchant's
   */
  CreatedUser create(MerchantId merchant, String email, String password, Set<Permission> permissions,
      Long shopGroup);

  /**
   * Scopes a user to a shop group of its merchant, or with null lets it see every shop again.
   *
   * @throws io.tollgate.domain.DomainException.NotFound when no user has this e-mail address
   * @throws io.tollgate.domain.DomainException.Invalid for a shop group that is unknown or
   *     another merchant's
   */
  void setShopGroup(String email, Long shopGroup);

  /**
   * The merchant's users by e-mail address, without their password hashes.
   *
   * @throws io.tollgate.domain.DomainException.Invalid for an unknown merchant
   */
  List<ListedUser> users(MerchantId merchant);

  /**
   * Disables a user (its credentials are refused) or enables it again.
   *
   * @throws io.tollgate.domain.DomainException.NotFound when no user has this e-mail address
   */
  void setEnabled(String email, boolean enabled);

  /**
   * Replaces a user's permissions.
   *
   * @throws io.tollgate.domain.DomainException.NotFound when no user has this e-mail address
   */
  void setPermissions(String email, Set<Permission> permissions);

  /**
   * Gives a user a new password, with null a generated one; the old one stops working.
   *
   * @return the password to hand over (shown once)
   * @throws io.tollgate.domain.DomainException.NotFound when no user has this e-mail address
   */
  String resetPassword(String email, String password);

  record CreatedUser(MerchantUser user, String password) {}

  /** @param disabled an operator has disabled the user: its credentials are refused */
  record ListedUser(MerchantUser user, boolean disabled) {}
}
