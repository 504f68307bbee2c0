package io.tollgate.rest.common;

import jakarta.ws.rs.core.UriInfo;

final class RequestPaths {
  private RequestPaths() {}

  /** The request path as received (without the query). */
  static String of(UriInfo uriInfo) {
    if (uriInfo == null) {
      return null;
    }
    return uriInfo.getRequestUri().getRawPath();
  }
}
