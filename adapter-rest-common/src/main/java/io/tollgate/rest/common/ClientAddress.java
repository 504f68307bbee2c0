package io.tollgate.rest.common;

import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * The network address a request came from, as the server saw it (behind a proxy, the proxy's:
 * a forwarded-for header is the client's to write, so it is not trusted). The servlet filter that
 * sees every request first sets it as a request attribute, which Jersey shows as a property.
 */
public final class ClientAddress {

  /** The request attribute, and Jersey property, that holds it. */
  public static final String PROPERTY = "tollgate.clientAddress";

  private ClientAddress() {}

  /** The request's client address, or "" when none was set (a request from a test harness). */
  public static String of(ContainerRequestContext request) {
    return request.getProperty(PROPERTY) instanceof String address ? address : "";
  }
}
