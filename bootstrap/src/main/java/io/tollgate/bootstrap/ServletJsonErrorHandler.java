package io.tollgate.bootstrap;

import io.tollgate.rest.common.ErrorEnvelope;
import io.tollgate.rest.common.Json;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.ErrorHandler;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;

/** Errors inside the servlet context (a path no API serves) in the JSON envelope. */
final class ServletJsonErrorHandler extends ErrorHandler {

  /** Every method's: Jetty writes an error's body for GET, POST and HEAD only, and a 405 to a TRACE had none. */
  @Override
  public boolean errorPageForMethod(String method) {
    return true;
  }

  @Override
  protected void generateAcceptableResponse(ServletContextRequest baseRequest, HttpServletRequest request,
      HttpServletResponse response, int code, String message) throws IOException {
    if (code == 500 && bodyNotSent(request.getAttribute(RequestDispatcher.ERROR_EXCEPTION))) {
      // a form Jersey read before our code ran (the checkout page's), whose client stopped
      // sending it: the client's doing, as the APIs answer it (UnexpectedExceptionMapper)
      code = 408;
      response.setStatus(code);
    }
    String text = switch (code) {
      case 404 -> "No such endpoint";
      case 405 -> "Method not allowed";
      case 408 -> "The request body stopped before its end; send the request again";
      default -> code >= 500 ? "Internal server error" : "Request refused";
    };
    response.setContentType("application/json");
    response.setHeader("Cache-Control", "no-store");
    Json.MAPPER.writeValue(response.getOutputStream(),
        ErrorEnvelope.of(code, text, List.of(), request.getRequestURI()));
  }

  /**
   * The status a request that failed with {@code failure} is answered with, for the access log,
   * which is written before this handler runs: Jetty's for the failure (an HTTP exception's own
   * code, else 500), and 408 for a 500 whose client stopped sending its body, as this handler
   * answers it.
   */
  static int statusFor(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof org.eclipse.jetty.http.HttpException h) {
        return h.getCode();
      }
      if (t instanceof jakarta.servlet.UnavailableException) {
        return 503;
      }
    }
    return bodyNotSent(failure) ? 408 : 500;
  }

  /** Whether reading the body failed because the client stopped sending it (timed out, or hung up). */
  private static boolean bodyNotSent(Object failure) {
    for (Throwable t = failure instanceof Throwable th ? th : null; t != null; t = t.getCause()) {
      if (t instanceof java.util.concurrent.TimeoutException || t instanceof java.io.EOFException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
