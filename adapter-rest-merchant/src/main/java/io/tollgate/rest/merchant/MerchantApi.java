package io.tollgate.rest.merchant;

import io.tollgate.application.port.in.MerchantUsersUseCase;
import io.tollgate.application.port.in.WebhookLogUseCase;
import io.tollgate.rest.common.RestCommon;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/** The merchant management API ({@code /merchant-api/v1}) as one Jersey application. */
public final class MerchantApi {

  private MerchantApi() {}

  public record Dependencies(MerchantUsersUseCase users, WebhookLogUseCase webhooks, int bodyLimitBytes) {}

  public static ResourceConfig application(Dependencies d) {
    ResourceConfig config = new ResourceConfig();
    config.property(ServerProperties.WADL_FEATURE_DISABLE, true);
    config.property(ServerProperties.RESPONSE_SET_STATUS_OVER_SEND_ERROR, true);
    RestCommon.register(config, d.bodyLimitBytes());
    config.register(new BasicAuthFilter(d.users()));
    config.register(new WebhookLogResource(d.webhooks()));
    return config;
  }
}
