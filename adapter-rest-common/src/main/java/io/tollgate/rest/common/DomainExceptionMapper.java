package io.tollgate.rest.common;

import io.tollgate.domain.DomainException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.List;

/** The one mapping of our errors to HTTP. */
public final class DomainExceptionMapper implements ExceptionMapper<DomainException> {

  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(DomainException e) {
    String path = RequestPaths.of(uriInfo);
    return switch (e.kind()) {
      case INVALID -> ErrorResponses.of(400, e.getMessage(), ((DomainException.Invalid) e).violations(), path);
      case UNAUTHENTICATED -> Response.fromResponse(ErrorResponses.of(401, e.getMessage(), List.of(), path))
          .header("WWW-Authenticate", path.startsWith("/merchant-api/")
              ? "Basic realm=\"Tollgate merchant API\", charset=\"UTF-8\"" : "Bearer").build();
      case FORBIDDEN -> ErrorResponses.of(403, e.getMessage(), List.of(), path);
      case NOT_FOUND -> ErrorResponses.of(404, e.getMessage(), List.of(), path);
      case CONFLICT -> ErrorResponses.of(409, e.getMessage(), List.of(), path);
      case TOO_MANY_REQUESTS -> Response.fromResponse(ErrorResponses.of(429, e.getMessage(), List.of(), path))
          .header("Retry-After", Long.toString(((DomainException.TooManyRequests) e).retryAfterSeconds())).build();
      case UNAVAILABLE -> Response.fromResponse(ErrorResponses.of(503, e.getMessage(), List.of(), path))
          .header("Retry-After", "5").build();
    };
  }
}
