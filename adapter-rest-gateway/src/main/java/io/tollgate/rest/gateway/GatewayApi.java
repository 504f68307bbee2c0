package io.tollgate.rest.gateway;

import io.tollgate.application.port.in.AuthenticateShopUseCase;
import io.tollgate.application.port.in.BalanceQueries;
import io.tollgate.application.port.in.CreatePaymentUseCase;
import io.tollgate.application.port.in.IdempotentActionUseCase;
import io.tollgate.application.port.in.PaymentActionsUseCase;
import io.tollgate.application.port.in.PaymentQueries;
import io.tollgate.rest.common.RestCommon;
import java.time.Clock;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/** The gateway API ({@code /api/v1}) as one Jersey application. */
public final class GatewayApi {

  private GatewayApi() {}

  public record Dependencies(
      AuthenticateShopUseCase authentication,
      CreatePaymentUseCase createPayment,
      PaymentQueries paymentQueries,
      java.util.function.Function<io.tollgate.domain.shop.ShopId, String> shopNames,
      PaymentActionsUseCase paymentActions,
      IdempotentActionUseCase idempotentActions,
      BalanceQueries balances,
      boolean balancesEnabled,
      String publicBaseUrl,
      int bodyLimitBytes,
      Clock clock) {}

  /** The hosted checkout page ({@code /checkout}), a separate application: HTML, no API key. */
  public static ResourceConfig checkout(io.tollgate.application.port.in.CheckoutUseCase checkout,
      java.util.function.UnaryOperator<String> csrfTokens, PageSeal seal, int bodyLimitBytes) {
    ResourceConfig config = new ResourceConfig();
    config.property(ServerProperties.WADL_FEATURE_DISABLE, true);
    config.property(ServerProperties.RESPONSE_SET_STATUS_OVER_SEND_ERROR, true);
    // The page's redirects stay relative: made absolute, they would name the origin Jetty was
    // reached at (http, behind a proxy that ends TLS), which the page's CSP form-action refuses
    // after a submitted form, and which would take the customer off https.
    config.property(ServerProperties.LOCATION_HEADER_RELATIVE_URI_RESOLUTION_DISABLED, true);
    RestCommon.register(config, bodyLimitBytes);
    config.register(new CheckoutFormFilter());
    config.register(new CheckoutResource(checkout, csrfTokens, seal));
    return config;
  }

  /**
   * The checkout's page of a title and a line of text (both HTML as given), as it answers a
   * payment not found: for an answer given to a checkout page before the checkout's own code
   * runs, such as the rate limit's 429. Served as {@code text/html; charset=utf-8} with
   * {@link #checkoutMessageHeaders()}.
   */
  public static String checkoutMessagePage(String title, String text) {
    return CheckoutResource.messagePage(title, text);
  }

  /** The headers a {@link #checkoutMessagePage} is served with: its CSP, {@code no-store}, {@code nosniff}. */
  public static java.util.Map<String, String> checkoutMessageHeaders() {
    return CheckoutResource.MESSAGE_HEADERS;
  }

  /** The API's OpenAPI 3.1 document ({@code openapi.yaml} beside this class). */
  public static io.tollgate.rest.common.OpenApiDocument openApi() {
    return io.tollgate.rest.common.OpenApiDocument.load(GatewayApi.class, "openapi.yaml");
  }

  public static ResourceConfig application(Dependencies d) {
    ResourceConfig config = new ResourceConfig();
    config.property(ServerProperties.WADL_FEATURE_DISABLE, true);
    config.property(ServerProperties.RESPONSE_SET_STATUS_OVER_SEND_ERROR, true);
    RestCommon.register(config, d.bodyLimitBytes());
    config.register(new BearerAuthFilter(d.authentication()));
    config.register(new PaymentResource(d.createPayment(), d.paymentQueries(), d.shopNames(), d.publicBaseUrl(),
        d.clock()));
    config.register(new PaymentActionsResource(d.paymentActions(), d.idempotentActions(), d.shopNames(),
        d.publicBaseUrl()));
    config.register(new BalanceResource(d.balances(), d.balancesEnabled()));
    return config;
  }
}
