package io.tollgate.rest.common;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.List;

/** Jersey's own refusals (unknown path, wrong method, media type) in our envelope. */
public final class WebApplicationExceptionMapper implements ExceptionMapper<WebApplicationException> {

  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(WebApplicationException e) {
    int status = e.getResponse().getStatus();
    String message = switch (status) {
      case 404 -> "No such endpoint";
      case 405 -> "Method not allowed on this endpoint";
      case 406 -> "This endpoint answers application/json only";
      case 413 -> "Request body is larger than the limit";
      case 415 -> "Content-Type must be application/json";
      default -> status >= 500 ? "Internal server error" : HttpReason.phrase(status);
    };
    Response.ResponseBuilder answer = Response.fromResponse(
        ErrorResponses.of(status, message, List.of(), RequestPaths.of(uriInfo)));
    String allow = e.getResponse().getHeaderString("Allow");
    if (allow != null) {
      answer.header("Allow", allow);
    }
    return answer.build();
  }
}
