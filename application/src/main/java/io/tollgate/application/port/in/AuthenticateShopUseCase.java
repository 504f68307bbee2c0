package io.tollgate.application.port.in;

import io.tollgate.domain.shop.ShopId;

public interface AuthenticateShopUseCase {

  /**
   * The shop whose active API key, for this deployment's environment, is {@code apiKey}.
   *
   * @throws io.tollgate.domain.DomainException.Unauthenticated otherwise
   */
  ShopId authenticate(String apiKey);
}
