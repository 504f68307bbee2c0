package io.tollgate.rest.common;

import java.util.Set;

/**
 * A request's method as metrics and logs name it. A client may send any token as its method,
 * of any length the request line allows; a label or log field made from it as sent would let
 * one client add a series to every scrape, or kilobytes to every log line, with each request.
 */
public final class HttpMethods {

  private static final Set<String> KNOWN =
      Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT");

  /** The longest part of an unknown method a log line shows. */
  private static final int LOGGED = 16;

  private HttpMethods() {}

  /** The method as a metrics label: one of HTTP's own, or {@code OTHER}. */
  public static String label(String method) {
    return method != null && KNOWN.contains(method) ? method : "OTHER";
  }

  /** The method as a log line shows it: HTTP's own as they are, any other cut to a few characters. */
  public static String forLog(String method) {
    if (method == null) {
      return "?";
    }
    return KNOWN.contains(method) || method.length() <= LOGGED ? method : method.substring(0, LOGGED) + "...";
  }
}
