package io.tollgate.rest.common;

import jakarta.ws.rs.core.Configurable;

/** Registers the pieces every one of our REST APIs shares. */
public final class RestCommon {

  private RestCommon() {}

  /** The shared pieces, plus request metrics under {@code api} (e.g. "gateway"). */
  public static void register(Configurable<?> config, int bodyLimitBytes, io.micrometer.core.instrument.MeterRegistry metrics,
      String api) {
    register(config, bodyLimitBytes);
    config.register(new RequestMetricsFilter(metrics, api));
  }

  public static void register(Configurable<?> config, int bodyLimitBytes) {
    config.register(new JsonBodyWriter());
    config.register(new BodyLimitFilter(bodyLimitBytes));
    config.register(new RepeatedQueryParameterFilter.Binding());
    config.register(new NoStoreFilter());
    config.register(DomainExceptionMapper.class);
    config.register(WebApplicationExceptionMapper.class);
    config.register(UnexpectedExceptionMapper.class);
  }
}
