package io.tollgate.bootstrap;

import io.tollgate.rest.common.ErrorEnvelope;
import io.tollgate.rest.common.Json;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty raises before a request reaches our code (bad URI, header too large, unknown
 * path) answered in the same JSON envelope as everything else, never an HTML page.
 */
final class JsonErrorHandler extends ErrorHandler {

  private static final org.slf4j.Logger ACCESS = org.slf4j.LoggerFactory.getLogger("io.tollgate.access");
  private static final Pattern ABSOLUTE_FORM = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://");

  /** A header every answer carries (Strict-Transport-Security), or null. */
  private final org.eclipse.jetty.http.HttpField everyAnswer;

  JsonErrorHandler(org.eclipse.jetty.http.HttpField everyAnswer) {
    this.everyAnswer = everyAnswer;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus() <= 0 || response.getStatus() == 200 ? 500 : response.getStatus();
    String path = pathOf(RequestTargetConnectionFactory.receivedTarget(request));
    String message = switch (status) {
      case 400 -> "Malformed request";
      case 404 -> "No such endpoint";
      case 405 -> "Method not allowed";
      case 408 -> "Request body not received in time";
      case 413 -> "Request body is larger than the limit";
      case 414 -> "Request URI is too long";
      case 431 -> "Request header fields are too large";
      // Jetty's own 503s: the service is stopping (graceful shutdown refuses new requests)
      case 503 -> "Service temporarily unavailable; retry shortly";
      default -> status >= 500 ? "Internal server error" : "Request refused";
    };
    // a request Jetty refused never reached the filter that names it: it gets an id here, so
    // that this answer, too, can be told apart and quoted to support like any other
    String requestId = org.slf4j.MDC.get("requestId");
    boolean named = requestId == null;
    if (named) {
      requestId = java.util.UUID.randomUUID().toString();
      org.slf4j.MDC.put("requestId", requestId);
    }
    byte[] body;
    try {
      body = Json.MAPPER.writeValueAsBytes(ErrorEnvelope.of(status, message, List.of(), safePath(path)));
      if (named) {
        // nor did it reach the filter that writes the one access-log line every request gets:
        // it is written here, so that a refused request (a malformed one, or one that came while
        // the server stops) can be found in the log by the id its client was given
        long received = Request.getTimeStamp(request);
        ACCESS.info("{} {} -> {} in {}ms", io.tollgate.domain.group.Pan.maskForDisplay(
            io.tollgate.rest.common.HttpMethods.forLog(request.getMethod())), RequestIdFilter.loggedPath(path),
            status, received > 0 ? Math.max(0, System.currentTimeMillis() - received) : 0);
      }
    } catch (Exception e) {
      body = ("{\"status\":" + status + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    } finally {
      if (named) {
        org.slf4j.MDC.remove("requestId");
      }
    }
    if (response.getHeaders().get(RequestIdFilter.HEADER) == null) {
      response.getHeaders().put(RequestIdFilter.HEADER, requestId);
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    if (everyAnswer != null) {
      // a request Jetty could not read never reached the customizer that adds it
      response.getHeaders().put(everyAnswer);
    }
    if (status == 503) {
      // as the service's own 503s: another instance, or this one restarted, can take the retry
      response.getHeaders().put(HttpHeader.RETRY_AFTER, "5");
    }
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }

  /**
   * The path of a request-target as received: still percent-encoded, without the query. Jetty's
   * stand-in request for one it refused has the path {@code /badMessage}, so the target comes
   * from the connection, not from the request. An absolute-form target gives its path; any
   * other form ({@code *}, a {@code CONNECT} authority) is given as it came.
   *
   * <p>When no target could be read at all (the request line does not start with a method and
   * a space, or the client closed the connection inside it) the path is the empty string: the
   * envelope always has a {@code path}, and "/" or Jetty's "/badMessage" would name a resource
   * the client did not ask for.
   */
  static String pathOf(String target) {
    if (target == null) {
      return "";
    }
    int end = 0;
    while (end < target.length() && target.charAt(end) != '?' && target.charAt(end) != '#') {
      end++;
    }
    String path = target.substring(0, end);
    if (!path.startsWith("/") && ABSOLUTE_FORM.matcher(path).lookingAt()) {
      int slash = path.indexOf('/', path.indexOf("://") + 3);
      return slash < 0 ? "/" : path.substring(slash);
    }
    return path;
  }

  /**
   * The path masked, then cut to 2,048 characters: cut first, a card number across the cut kept
   * too few digits to be recognised, and its first ten went back in clear.
   */
  private static String safePath(String path) {
    String masked = ErrorEnvelope.maskedPath(path);
    return masked.length() > 2048 ? masked.substring(0, 2048) + "…" : masked;
  }
}
