package io.tollgate.rest.common;

import io.tollgate.domain.Violation;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** Builds error answers in the envelope. */
public final class ErrorResponses {

  private ErrorResponses() {}

  public static Response of(int status, String message, List<Violation> violations, String path) {
    return Response.status(status)
        .type(MediaType.APPLICATION_JSON_TYPE)
        .header("Cache-Control", "no-store")
        .entity(ErrorEnvelope.of(status, message, violations, path))
        .build();
  }
}
