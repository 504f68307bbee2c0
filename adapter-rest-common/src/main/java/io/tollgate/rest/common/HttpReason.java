package io.tollgate.rest.common;

import java.util.Map;

/** HTTP reason phrases for the {@code error} field of the error envelope. */
public final class HttpReason {

  private static final Map<Integer, String> PHRASES = Map.ofEntries(
      Map.entry(400, "Bad Request"),
      Map.entry(401, "Unauthorized"),
      Map.entry(403, "Forbidden"),
      Map.entry(404, "Not Found"),
      Map.entry(405, "Method Not Allowed"),
      Map.entry(406, "Not Acceptable"),
      Map.entry(408, "Request Timeout"),
      Map.entry(409, "Conflict"),
      Map.entry(411, "Length Required"),
      Map.entry(413, "Payload Too Large"),
      Map.entry(414, "URI Too Long"),
      Map.entry(415, "Unsupported Media Type"),
      Map.entry(422, "Unprocessable Entity"),
      Map.entry(429, "Too Many Requests"),
      Map.entry(431, "Request Header Fields Too Large"),
      Map.entry(500, "Internal Server Error"),
      Map.entry(501, "Not Implemented"),
      Map.entry(502, "Bad Gateway"),
      Map.entry(503, "Service Unavailable"),
      Map.entry(505, "HTTP Version Not Supported"));

  private HttpReason() {}

  public static String phrase(int status) {
    return PHRASES.getOrDefault(status, status >= 500 ? "Internal Server Error" : "Bad Request");
  }
}
