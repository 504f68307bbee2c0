package io.tollgate.rest.common;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Reads query parameters, collecting every malformed one so a 400 lists them all. */
public final class QueryParams {

  private final List<Violation> violations = new ArrayList<>();

  /** An integer within bounds, or the default when absent. */
  public int integer(String name, String raw, int min, int max, int defaultValue) {
    if (raw == null) {
      return defaultValue;
    }
    try {
      long value = Long.parseLong(raw.strip());
      if (value < min || value > max) {
        violations.add(Violation.of(name, "must be between " + min + " and " + max, raw));
        return defaultValue;
      }
      return (int) value;
    } catch (NumberFormatException e) {
      violations.add(Violation.of(name, tooLarge(raw) ? "must be between " + min + " and " + max : "must be an integer",
          raw));
      return defaultValue;
    }
  }

  /** An optional positive id. */
  public Long id(String name, String raw) {
    if (raw == null) {
      return null;
    }
    try {
      long value = Long.parseLong(raw.strip());
      if (value < 0) {
        violations.add(Violation.of(name, "must not be negative", raw));
        return null;
      }
      return value;
    } catch (NumberFormatException e) {
      violations.add(Violation.of(name, tooLarge(raw) ? "must be at most " + Long.MAX_VALUE : "must be an integer",
          raw));
      return null;
    }
  }

  /** An integer with more digits than a long holds, which is no reason to say it is not an integer. */
  private static boolean tooLarge(String raw) {
    return raw.strip().matches("[+-]?[0-9]+");
  }

  public Instant dateTime(String name, String raw) {
    try {
      return Timestamps.parseFilter(name, raw);
    } catch (DomainException.Invalid e) {
      violations.addAll(e.violations());
      return null;
    }
  }

  public String text(String name, String raw, int maxLength) {
    if (raw != null && raw.length() > maxLength) {
      violations.add(Violation.of(name, "must be at most " + maxLength + " characters", raw.substring(0, 64) + "…"));
      return null;
    }
    if (raw != null && !Json.storable(raw)) {
      violations.add(Violation.of(name, "must not contain NUL characters or unpaired surrogates", null));
      return null;
    }
    return raw;
  }

  public void add(Violation violation) {
    violations.add(violation);
  }

  /** Throws one 400 with every problem found so far. */
  public void validate() {
    if (!violations.isEmpty()) {
      throw new DomainException.Invalid("Invalid query parameters", violations);
    }
  }
}
