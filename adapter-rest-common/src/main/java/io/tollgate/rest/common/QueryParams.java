package io.tollgate.rest.common;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Pan;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads query parameters, collecting every malformed one so a 400 lists them all. Every parameter read
 * here is optional, and one sent empty ({@code name=}) is read as not sent, as clients that write every
 * field of a query send the ones they have no value for; one sent twice is still refused.
 */
public final class QueryParams {

  private final List<Violation> violations = new ArrayList<>();
  /** Parameters given more than once: refused as such, their first value is not read. */
  private Set<String> repeated = Set.of();

  /**
   * Parameters to be read from {@code request}, starting with those it gives more than once
   * where the resource method is {@link ParametersCheckedAfterAccess} (elsewhere such a request
   * never reaches the method).
   */
  public static QueryParams of(ContainerRequestContext request) {
    QueryParams params = new QueryParams();
    if (request.getProperty(RepeatedQueryParameterFilter.REPEATED) instanceof List<?> given) {
      params.repeated = new HashSet<>();
      for (Object violation : given) {
        params.violations.add((Violation) violation);
        params.repeated.add(((Violation) violation).field());
      }
    }
    return params;
  }

  /** {@code raw}, or null when it is not sent or sent empty. */
  public static String given(String raw) {
    return raw == null || raw.isEmpty() ? null : raw;
  }

  /** An integer within bounds, or the default when absent. */
  public int integer(String name, String raw, int min, int max, int defaultValue) {
    if (given(raw) == null || repeated.contains(name)) {
      return defaultValue;
    }
    try {
      long value = Long.parseLong(asciiInteger(raw));
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
    if (given(raw) == null || repeated.contains(name)) {
      return null;
    }
    try {
      long value = Long.parseLong(asciiInteger(raw));
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
    return isAsciiInteger(raw);
  }

  private static final java.util.regex.Pattern ASCII_INTEGER = java.util.regex.Pattern.compile("[+-]?[0-9]+");

  /**
   * {@code raw} when it is an integer in ASCII digits alone; Java's own parsing also takes other
   * scripts' digits (an Arabic-Indic three) and {@code strip()} took spaces around it, which an
   * API that documents integers must refuse, not read as some number.
   */
  private static String asciiInteger(String raw) {
    if (!isAsciiInteger(raw)) {
      throw new NumberFormatException("not an integer");
    }
    return raw;
  }

  /** Whether {@code raw} is an integer written in ASCII digits alone, as ids in paths are too. */
  public static boolean isAsciiInteger(String raw) {
    return ASCII_INTEGER.matcher(raw).matches();
  }

  public Instant dateTime(String name, String raw) {
    if (repeated.contains(name)) {
      return null;
    }
    try {
      return Timestamps.parseFilter(name, given(raw));
    } catch (DomainException.Invalid e) {
      violations.addAll(e.violations());
      return null;
    }
  }

  public String text(String name, String raw, int maxLength) {
    if (given(raw) == null || repeated.contains(name)) {
      return null;
    }
    // characters as the request's own limits count them: by code point, so that a value a
    // payment was created with can always be searched for
    if (raw != null && raw.length() > maxLength && raw.codePointCount(0, raw.length()) > maxLength) {
      // masked before it is cut, so that the cut leaves no first digits of a card number in clear
      String shown = Pan.maskForDisplay(raw);
      boolean longer = shown.codePointCount(0, shown.length()) > 64;
      violations.add(Violation.of(name, "must be at most " + maxLength + " characters",
          longer ? shown.substring(0, shown.offsetByCodePoints(0, 64)) + "…" : shown));
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
    DomainException.Invalid problems = problems();
    if (problems != null) {
      throw problems;
    }
  }

  /** The 400 with every problem found so far, or null when there is none. */
  public DomainException.Invalid problems() {
    return violations.isEmpty() ? null : new DomainException.Invalid("Invalid query parameters", violations);
  }
}
