package io.tollgate.domain;

import java.util.List;

/**
 * The one family of errors the application reports to its callers. Each kind has a stable
 * code; the REST adapters map them to HTTP with an exhaustive switch.
 */
public abstract sealed class DomainException extends RuntimeException
    permits DomainException.Invalid,
        DomainException.Unauthenticated,
        DomainException.Forbidden,
        DomainException.NotFound,
        DomainException.Conflict,
        DomainException.TooManyRequests,
        DomainException.Unavailable {

  private DomainException(String message) {
    super(message, null, false, false);
  }

  public abstract String code();

  /** The kind of failure; a {@code switch} over it is checked for exhaustiveness. */
  public abstract Kind kind();

  public enum Kind {
    INVALID,
    UNAUTHENTICATED,
    FORBIDDEN,
    NOT_FOUND,
    CONFLICT,
    TOO_MANY_REQUESTS,
    UNAVAILABLE
  }

  /** A request that breaks one or more rules; lists every violation at once. */
  public static final class Invalid extends DomainException {
    @Override
    public Kind kind() {
      return Kind.INVALID;
    }

    private final List<Violation> violations;

    public Invalid(String message, List<Violation> violations) {
      super(message);
      this.violations = List.copyOf(violations);
    }

    public Invalid(Violation violation) {
      this(violation.message(), List.of(violation));
    }

    public List<Violation> violations() {
      return violations;
    }

    @Override
    public String code() {
      return "invalid_request";
    }
  }

  /** Missing, unknown, revoked or wrong-environment credentials. */
  public static final class Unauthenticated extends DomainException {
    @Override
    public Kind kind() {
      return Kind.UNAUTHENTICATED;
    }

    public Unauthenticated(String message) {
      super(message);
    }

    @Override
    public String code() {
      return "unauthenticated";
    }
  }

  /** Valid credentials that lack a permission. */
  public static final class Forbidden extends DomainException {
    @Override
    public Kind kind() {
      return Kind.FORBIDDEN;
    }

    public Forbidden(String message) {
      super(message);
    }

    @Override
    public String code() {
      return "forbidden";
    }
  }

  /** Unknown record, or a record that belongs to somebody else. */
  public static final class NotFound extends DomainException {
    @Override
    public Kind kind() {
      return Kind.NOT_FOUND;
    }

    public NotFound(String message) {
      super(message);
    }

    @Override
    public String code() {
      return "not_found";
    }
  }

  /**
   * The request is well formed but clashes with the current state: an illegal transition, a
   * concurrent modification, an idempotency key reused with another body.
   */
  public static final class Conflict extends DomainException {
    @Override
    public Kind kind() {
      return Kind.CONFLICT;
    }

    private final String code;

    public Conflict(String code, String message) {
      super(message);
      this.code = code;
    }

    @Override
    public String code() {
      return code;
    }
  }

  /** A caller that must wait before it tries again, for as long as {@link #retryAfterSeconds()} says. */
  public static final class TooManyRequests extends DomainException {
    private final long retryAfterSeconds;

    public TooManyRequests(String message, long retryAfterSeconds) {
      super(message);
      this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
    }

    @Override
    public Kind kind() {
      return Kind.TOO_MANY_REQUESTS;
    }

    @Override
    public String code() {
      return "too_many_requests";
    }

    /** Whole seconds, at least one. */
    public long retryAfterSeconds() {
      return retryAfterSeconds;
    }
  }

  /** A dependency (the database, a processor) is not reachable right now; safe to retry. */
  public static final class Unavailable extends DomainException {
    @Override
    public Kind kind() {
      return Kind.UNAVAILABLE;
    }

    public Unavailable(String message) {
      super(message);
    }

    @Override
    public String code() {
      return "unavailable";
    }
  }
}
