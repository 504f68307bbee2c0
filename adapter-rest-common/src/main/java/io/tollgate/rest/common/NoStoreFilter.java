package io.tollgate.rest.common;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MultivaluedMap;

/**
 * Every answer, a success as much as an error, says {@code Cache-Control: no-store}: it carries
 * payments, customers or card data, which no browser or proxy may keep. An answer whose resource
 * chose its own policy keeps it (the checkout's stylesheet may be cached).
 */
final class NoStoreFilter implements ContainerResponseFilter {

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    MultivaluedMap<String, Object> headers = response.getHeaders();
    if (!headers.containsKey(HttpHeaders.CACHE_CONTROL)) {
      headers.putSingle(HttpHeaders.CACHE_CONTROL, "no-store");
    }
  }
}
