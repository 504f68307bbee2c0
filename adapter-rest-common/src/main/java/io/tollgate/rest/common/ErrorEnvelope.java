package io.tollgate.rest.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Pan;
import java.time.Instant;
import java.util.List;

/**
 * The body of every 4xx and 5xx answer of both APIs, with the fields CONTRACT section 0 names
 * and no other: a client generated from the reference refuses an error body with a field its
 * error models do not define. The request's id, as in the server's log lines, is the answer's
 * {@code X-Request-Id} header.
 */
public record ErrorEnvelope(
    String timestamp,
    int status,
    String error,
    String message,
    List<FieldError> errors,
    String path) {

  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record FieldError(String field, String message, Object rejectedValue) {
    /**
     * A rejected value goes back with anything in it that can be a card number masked, whichever
     * field it came in: a text, or a number (a card number given as a shop or group id), which
     * then goes back as the masked text. So does the field's name, which holds the keys the
     * client chose for an object's members (a card number sent as a key of {@code notes}).
     */
    static FieldError of(Violation v) {
      Object rejected = v.rejectedValue();
      if (rejected instanceof String text) {
        rejected = Pan.maskForDisplay(text);
      } else if (rejected instanceof Number number) {
        String text = number instanceof java.math.BigDecimal d ? d.toPlainString() : number.toString();
        String masked = Pan.maskForDisplay(text);
        rejected = masked == text ? number : masked;
      }
      return new FieldError(v.field() == null ? null : Pan.maskForDisplay(v.field()), v.message(), rejected);
    }
  }

  /**
   * The envelope of an answer with {@code status}; the message, each rejected value and the
   * path go back with anything that can be a card number masked (a client may put one in the
   * path where an id belongs).
   */
  public static ErrorEnvelope of(int status, String message, List<Violation> violations, String path) {
    return new ErrorEnvelope(Timestamps.envelope(Instant.now()), status, HttpReason.phrase(status),
        message == null ? null : Pan.maskForDisplay(message), violations.stream().map(FieldError::of).toList(),
        maskedPath(path));
  }

  /**
   * A request path as it may be echoed or logged: as it came, unless it holds a card number, also
   * once its percent-escapes are decoded ({@code 4000%2D0000%2D…}, a non-breaking space as
   * {@code %C2%A0}); then decoded and masked, with control characters shown as {@code ?}.
   */
  public static String maskedPath(String path) {
    if (path == null) {
      return null;
    }
    String masked = Pan.maskForDisplay(path);
    if (!masked.equals(path) || path.indexOf('%') < 0) {
      return masked;
    }
    String decoded = leniently(path).replace('\u00A0', ' ');
    String maskedDecoded = Pan.maskForDisplay(decoded);
    return maskedDecoded.equals(decoded) ? path : maskedDecoded.replaceAll("\\p{Cntrl}", "?");
  }

  /**
   * The path with each well-formed percent-escape decoded as UTF-8 and each malformed one kept
   * as it came ({@code %zz}, a lone {@code %}): one bad escape must not leave a card number
   * elsewhere in the path unmasked. A '+' is itself in a path, not a space.
   */
  private static String leniently(String path) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(path.length());
    StringBuilder out = new StringBuilder(path.length());
    int i = 0;
    while (i < path.length()) {
      char c = path.charAt(i);
      if (c == '%' && i + 2 < path.length()
          && Character.digit(path.charAt(i + 1), 16) >= 0 && Character.digit(path.charAt(i + 2), 16) >= 0) {
        bytes.write(Character.digit(path.charAt(i + 1), 16) * 16 + Character.digit(path.charAt(i + 2), 16));
        i += 3;
        continue;
      }
      if (bytes.size() > 0) {
        out.append(bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
        bytes.reset();
      }
      out.append(c);
      i++;
    }
    if (bytes.size() > 0) {
      out.append(bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
    }
    return out.toString();
  }
}
