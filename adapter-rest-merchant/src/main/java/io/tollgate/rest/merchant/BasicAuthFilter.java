package io.tollgate.rest.merchant;

import io.tollgate.application.port.in.MerchantUsersUseCase;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.user.MerchantUser;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** HTTP Basic with a merchant user's e-mail address and password, on every merchant API request. */
@Priority(Priorities.AUTHENTICATION)
final class BasicAuthFilter implements ContainerRequestFilter {

  private static final String USER = "tollgate.merchantUser";

  private final MerchantUsersUseCase users;

  BasicAuthFilter(MerchantUsersUseCase users) {
    this.users = users;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String header = request.getHeaderString("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    int colon = decoded.indexOf(':');
    if (colon <= 0) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    request.setProperty(USER, users.authenticate(decoded.substring(0, colon), decoded.substring(colon + 1),
        io.tollgate.rest.common.ClientAddress.of(request)));
  }

  /** The user this request authenticated as; null before authentication or when it failed. */
  static MerchantUser authenticated(ContainerRequestContext request) {
    return request.getProperty(USER) instanceof MerchantUser user ? user : null;
  }

  static MerchantUser user(ContainerRequestContext request) {
    Object user = request.getProperty(USER);
    if (user == null) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    return (MerchantUser) user;
  }
}
