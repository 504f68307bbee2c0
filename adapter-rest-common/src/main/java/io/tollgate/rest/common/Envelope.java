package io.tollgate.rest.common;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.tollgate.application.port.out.Page;
import java.time.Instant;
import java.util.List;

/** The success body: {@code {"timestamp", "status", "result"}}, plus {@code hasMore} on pages. */
@JsonPropertyOrder({"timestamp", "status", "hasMore", "result"})
public record Envelope(String timestamp, int status, Boolean hasMore, Object result) {

  public static Envelope ok(Object result) {
    return new Envelope(Timestamps.envelope(Instant.now()), 200, null, result);
  }

  public static <T> Envelope page(Page<T> page) {
    return new Envelope(Timestamps.envelope(Instant.now()), 200, page.hasMore(), page.items());
  }

  /** A list that the API documents without {@code hasMore}. */
  public static Envelope list(List<?> items) {
    return new Envelope(Timestamps.envelope(Instant.now()), 200, null, items);
  }
}
