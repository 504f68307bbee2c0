package io.tollgate.rest.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Pan;
import java.time.Instant;
import java.util.List;

/**
 * The body of every 4xx and 5xx answer of both APIs; {@code requestId} (our addition) is the
 * request's {@code X-Request-Id}, the same as in the server's log lines.
 */
public record ErrorEnvelope(
    String timestamp,
    int status,
    String error,
    String message,
    List<FieldError> errors,
    String path,
    String requestId) {

  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record FieldError(String field, String message, Object rejectedValue) {
    /**
     * A rejected value goes back with anything in it that can be a card number masked, whichever
     * field it came in: a text, or a number (a card number given as a shop or group id), which
     * then goes back as the masked text.
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
      return new FieldError(v.field(), v.message(), rejected);
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
        Pan.maskForDisplay(path), org.slf4j.MDC.get("requestId"));
  }
}
