package io.tollgate.rest.common;

import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * Who a request came from, for the limits kept per client: the connection's address, or behind
 * one of the operator's trusted proxies the address it forwards (a forwarded-for header from
 * anyone else is the client's to write, and ignored). The servlet filter that sees every request
 * first sets it as a request attribute, which Jersey shows as a property.
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
