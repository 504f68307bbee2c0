package io.tollgate.application.port.in;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** One page of a shop's payments, newest first. Bounds: offset 0..1,000,000; limit 1..1,000. */
public record ListPaymentsQuery(
    ShopId shopId,
    int offset,
    int limit,
    Instant createdFrom,
    Instant createdBefore,
    Instant updatedFrom,
    Instant updatedBefore,
    String referenceId) {

  public static final int MAX_OFFSET = 1_000_000;
  public static final int MAX_LIMIT = 1_000;
  public static final int DEFAULT_LIMIT = 50;

  public ListPaymentsQuery {
    Objects.requireNonNull(shopId, "shopId");
    List<Violation> violations = new ArrayList<>();
    if (offset < 0 || offset > MAX_OFFSET) {
      violations.add(Violation.of("offset", "must be between 0 and " + MAX_OFFSET, offset));
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      violations.add(Violation.of("limit", "must be between 1 and " + MAX_LIMIT, limit));
    }
    if (!violations.isEmpty()) {
      throw new DomainException.Invalid("Invalid query parameters", violations);
    }
  }
}
