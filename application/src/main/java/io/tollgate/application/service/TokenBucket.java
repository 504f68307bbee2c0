package io.tollgate.application.service;

/**
 * A token bucket: up to {@code capacity} tokens, one more each {@code nanosPerToken}, on a
 * monotonic clock the caller passes in (nanoseconds). Used by the per-key rate limit and by the
 * merchant sign-ins' guesses.
 */
public final class TokenBucket {

  private final double capacity;
  private final double nanosPerToken;
  private double tokens;
  private long refilledAt;

  /** A full bucket. */
  public TokenBucket(double capacity, double nanosPerToken, long now) {
    this.capacity = capacity;
    this.nanosPerToken = nanosPerToken;
    this.tokens = capacity;
    this.refilledAt = now;
  }

  private double available(long now) {
    return Math.min(capacity, tokens + (now - refilledAt) / nanosPerToken);
  }

  /** Takes a token: 0 when one was there, else how many nanoseconds until one will be. */
  public synchronized long take(long now) {
    tokens = available(now);
    refilledAt = now;
    if (tokens >= 1) {
      tokens -= 1;
      return 0;
    }
    return wait(tokens);
  }

  /** How many nanoseconds until a token is there, taking none (0: one is). */
  public synchronized long waitFor(long now) {
    double left = available(now);
    return left >= 1 ? 0 : wait(left);
  }

  /** Whether it has filled up again, as a new bucket would be. */
  public synchronized boolean full(long now) {
    return available(now) >= capacity;
  }

  /** Gives back a token taken for nothing. */
  public synchronized void giveBack() {
    tokens = Math.min(capacity, tokens + 1);
  }

  private long wait(double left) {
    return (long) Math.ceil((1 - left) * nanosPerToken);
  }
}
