package io.tollgate.rest.merchant;

import io.tollgate.application.port.in.BalanceQueries;
import io.tollgate.application.port.in.GroupsUseCase;
import io.tollgate.application.port.in.MerchantQueries;
import io.tollgate.application.port.in.MerchantUsersUseCase;
import io.tollgate.application.port.in.ProvisioningUseCase;
import io.tollgate.application.port.in.WebhookLogUseCase;
import io.tollgate.rest.common.RestCommon;
import java.time.Clock;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/** The merchant management API ({@code /merchant-api/v1}) as one Jersey application. */
public final class MerchantApi {

  private MerchantApi() {}

  /**
   * What a deployment offers: {@code FULL} everything; {@code CORE} only payments, operations,
   * counterparties, shops, terminals and balances (the groups answer 404).
   */
  public enum Profile { FULL, CORE }

  public record Dependencies(MerchantUsersUseCase users, WebhookLogUseCase webhooks, GroupsUseCase groups,
      ProvisioningUseCase shops, BalanceQueries balances, MerchantQueries queries, Profile profile,
      int bodyLimitBytes, Clock clock) {}

  /** The API's OpenAPI 3.1 document ({@code openapi.yaml} beside this class), describing the full profile. */
  public static io.tollgate.rest.common.OpenApiDocument openApi() {
    return io.tollgate.rest.common.OpenApiDocument.load(MerchantApi.class, "openapi.yaml");
  }

  /**
   * The merchant whose user this request authenticated as, for a filter running after
   * authentication ({@link jakarta.ws.rs.Priorities#AUTHENTICATION}); null when it did not.
   */
  public static io.tollgate.domain.shop.MerchantId authenticatedMerchant(
      jakarta.ws.rs.container.ContainerRequestContext request) {
    io.tollgate.domain.user.MerchantUser user = BasicAuthFilter.authenticated(request);
    return user == null ? null : user.merchantId();
  }

  public static ResourceConfig application(Dependencies d) {
    ResourceConfig config = new ResourceConfig();
    config.property(ServerProperties.WADL_FEATURE_DISABLE, true);
    config.property(ServerProperties.RESPONSE_SET_STATUS_OVER_SEND_ERROR, true);
    RestCommon.register(config, d.bodyLimitBytes());
    config.register(new CrossSiteFilter());
    config.register(new BasicAuthFilter(d.users()));
    config.register(new WebhookLogResource(d.webhooks()));
    config.register(new MerchantRecordsResource(d.queries(), d.balances()));
    config.register(new MerchantListsResource(d.queries(), d.shops(), d.clock()));
    if (d.profile() == Profile.FULL) {
      config.register(new GroupResource(d.groups()));
      config.register(new ReferenceDataResource(d.queries()));
    }
    return config;
  }
}
