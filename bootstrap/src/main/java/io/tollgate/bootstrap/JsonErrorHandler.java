package io.tollgate.bootstrap;

import io.tollgate.rest.common.ErrorEnvelope;
import io.tollgate.rest.common.Json;
import java.nio.ByteBuffer;
import java.util.List;
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

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus() <= 0 || response.getStatus() == 200 ? 500 : response.getStatus();
    String path = request.getHttpURI() == null ? null : request.getHttpURI().getPath();
    String message = switch (status) {
      case 400 -> "Malformed request";
      case 404 -> "No such endpoint";
      case 405 -> "Method not allowed";
      case 413 -> "Request body is larger than the limit";
      case 414 -> "Request URI is too long";
      case 431 -> "Request header fields are too large";
      default -> status >= 500 ? "Internal server error" : "Request refused";
    };
    byte[] body;
    try {
      body = Json.MAPPER.writeValueAsBytes(ErrorEnvelope.of(status, message, List.of(), safePath(path)));
    } catch (Exception e) {
      body = ("{\"status\":" + status + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }

  private static String safePath(String path) {
    if (path == null) {
      return null;
    }
    return path.length() > 2048 ? path.substring(0, 2048) + "…" : path;
  }
}
