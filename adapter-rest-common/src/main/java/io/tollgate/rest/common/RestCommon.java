package io.tollgate.rest.common;

import jakarta.ws.rs.core.Configurable;

/** Registers the pieces every one of our REST APIs shares. */
public final class RestCommon {

  private RestCommon() {}

  public static void register(Configurable<?> config, int bodyLimitBytes) {
    config.register(new JsonBodyWriter());
    config.register(new BodyLimitFilter(bodyLimitBytes));
    config.register(DomainExceptionMapper.class);
    config.register(WebApplicationExceptionMapper.class);
    config.register(UnexpectedExceptionMapper.class);
  }
}
