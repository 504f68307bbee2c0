package io.tollgate.bootstrap;

import io.tollgate.rest.common.ErrorEnvelope;
import io.tollgate.rest.common.Json;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.ErrorHandler;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;

/** Errors inside the servlet context (a path no API serves) in the JSON envelope. */
final class ServletJsonErrorHandler extends ErrorHandler {

  @Override
  protected void generateAcceptableResponse(ServletContextRequest baseRequest, HttpServletRequest request,
      HttpServletResponse response, int code, String message) throws IOException {
    String text = switch (code) {
      case 404 -> "No such endpoint";
      case 405 -> "Method not allowed";
      default -> code >= 500 ? "Internal server error" : "Request refused";
    };
    response.setContentType("application/json");
    response.setHeader("Cache-Control", "no-store");
    Json.MAPPER.writeValue(response.getOutputStream(),
        ErrorEnvelope.of(code, text, List.of(), request.getRequestURI()));
  }
}
