package io.tollgate.rest.gateway;

import io.tollgate.application.port.in.AuthenticateShopUseCase;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.ShopId;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.Locale;

/** {@code Authorization: Bearer <Shop API Key>} on every gateway request. */
@Priority(Priorities.AUTHENTICATION)
public final class BearerAuthFilter implements ContainerRequestFilter {

  static final String SHOP = "tollgate.shop";

  private final AuthenticateShopUseCase authentication;

  public BearerAuthFilter(AuthenticateShopUseCase authentication) {
    this.authentication = authentication;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String header = request.getHeaderString("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw new DomainException.Unauthenticated("Invalid token");
    }
    ShopId shop = authentication.authenticate(header.substring(7).strip());
    request.setProperty(SHOP, shop);
  }

  static ShopId shop(ContainerRequestContext request) {
    Object shop = request.getProperty(SHOP);
    if (shop == null) {
      throw new DomainException.Unauthenticated("Invalid token");
    }
    return (ShopId) shop;
  }

  static boolean isJson(String contentType) {
    if (contentType == null) {
      return true;
    }
    String type = contentType.toLowerCase(Locale.ROOT).split(";", 2)[0].strip();
    return type.equals("application/json") || type.endsWith("+json");
  }
}
