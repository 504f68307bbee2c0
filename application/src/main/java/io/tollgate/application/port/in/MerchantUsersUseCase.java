package io.tollgate.application.port.in;

import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.util.Set;

/** Signing merchant users in, and creating them (operators, from the command line). */
public interface MerchantUsersUseCase {

  /**
   * The user with this e-mail address and password.
   *
   * @throws io.tollgate.domain.DomainException.Unauthenticated for an unknown address or a wrong password
   */
  MerchantUser authenticate(String email, String password);

  /**
   * Creates a user; with a null password one is generated.
   *
   * @return the user and the password to hand over (shown once)
   */
  CreatedUser create(MerchantId merchant, String email, String password, Set<Permission> permissions);

  record CreatedUser(MerchantUser user, String password) {}
}
