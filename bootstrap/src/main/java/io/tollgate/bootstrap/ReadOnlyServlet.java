package io.tollgate.bootstrap;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * A servlet of ours outside the two APIs, which serves {@code GET} and {@code HEAD} only: {@code OPTIONS} names
 * them, and any other method is a 405 in the error envelope, with the methods served in {@code Allow}, as the
 * APIs answer one. {@link HttpServlet} answered {@code TRACE} with a 200 of type {@code message/http} that echoed
 * the request's headers, an API key or a cookie among them, and a method it does not know with a bare 501.
 */
abstract class ReadOnlyServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;
  /** The methods served, as {@code Allow} names them. */
  static final String ALLOW = "GET, HEAD, OPTIONS";

  /** Whether the servlet has something at {@code path} (the request's URI): else a 404, whatever the method. */
  abstract boolean serves(String path);

  @Override
  protected final void service(HttpServletRequest request, HttpServletResponse response)
      throws ServletException, IOException {
    if (!serves(request.getRequestURI())) {
      // no 405 or Allow naming the methods of something that is not there
      response.sendError(404);
      return;
    }
    switch (request.getMethod()) {
      case "GET", "HEAD" -> super.service(request, response);
      case "OPTIONS" -> {
        response.setHeader("Allow", ALLOW);
        response.setStatus(200);
      }
      default -> {
        response.setHeader("Allow", ALLOW);
        response.sendError(405);
      }
    }
  }

  /**
   * Every path that nothing else serves (Jetty's own servlet for them is an {@link HttpServlet} too): a 404 in
   * the envelope whatever the method, as an unknown path of the APIs is.
   */
  static final class NoSuchEndpoint extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
      response.sendError(404);
    }
  }
}
