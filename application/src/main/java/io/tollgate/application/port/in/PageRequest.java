package io.tollgate.application.port.in;

import io.tollgate.domain.DomainException;

/**
 * The page of a list a request asks for, as far as the adapter could read it: its offset and
 * limit, or, when its query parameters are bad (malformed, out of range, given twice), the 400
 * that lists them all. A use case that first settles whether the user may read the list or the
 * record (404, 403) calls {@link #requireValid} only then, as edits read their body only once
 * they are allowed: one order for every route.
 *
 * @param invalid why the parameters cannot be used, or null
 */
public record PageRequest(int offset, int limit, DomainException.Invalid invalid) {

  public static PageRequest of(int offset, int limit) {
    return new PageRequest(offset, limit, null);
  }

  /** Parameters that cannot be used, and the 400 that says why. */
  public static PageRequest invalid(DomainException.Invalid why) {
    return new PageRequest(0, 0, why);
  }

  /** Throws the parameters' 400 when they cannot be used; a use case calls it once the read is allowed. */
  public void requireValid() {
    if (invalid != null) {
      throw invalid;
    }
  }
}
