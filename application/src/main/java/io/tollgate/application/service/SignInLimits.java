package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.tollgate.domain.DomainException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * What a password check may cost, against guessing and against a flood of made-up credentials.
 *
 * <p>Each e-mail address, known or not (no answer tells them apart), may have {@link #GUESSES}
 * passwords checked and found wrong from one client address, then one more every
 * {@link #GUESS_EVERY}: a check takes its guess before it runs, so guesses sent at once cannot
 * overtake the limit, and gives it back when the password was right. Beyond that the address is
 * refused to that client with 429 before any check runs, whatever the password. Counted per
 * client, someone guessing does not hold back the user's own integration elsewhere (counted per
 * address alone, ten guesses and one a minute kept a user out for good); credentials already
 * found good and remembered are not checked again at all.
 *
 * <p>An IPv6 client is its /64 ({@code ClientAddresses}), but a provider may give one
 * subscriber a /56 or a /48, 256 or 65,536 clients of ten guesses each; so the guesses of an
 * IPv6 client also count against its /48, which may have {@link #BLOCK_GUESSES}, then one more
 * every {@link #GUESS_EVERY}, shared by all its clients. A client that gave the user's right
 * password within {@link #KNOWN_FOR} is not held back by its /48: someone guessing from a /64
 * of the same /48 (a hosting provider's customers may share one) does not lock out the user's
 * integration.
 *
 * <p>At most {@code parallel} slow hashes run at once, with at most {@code queued} more
 * waiting up to {@code maxWait} for their turn; a check beyond that is refused with 503 at once.
 * A bcrypt check costs a core a fifth of a second or more, so credentials made up per request
 * would otherwise take every core from the payments (a single client with 64 connections
 * raised the gateway's median answer from 3 to 50 ms).
 */
final class SignInLimits {

  static final int GUESSES = 10;
  static final Duration GUESS_EVERY = Duration.ofMinutes(1);
  /** The guesses all the clients of one IPv6 /48 may have at once. */
  static final int BLOCK_GUESSES = 4 * GUESSES;
  /** How long a client that gave the right password stays exempt from its /48's count, unused. */
  static final Duration KNOWN_FOR = Duration.ofDays(1);
  /**
   * A client as {@code ClientAddresses} names an IPv6 one: its /64, written as InetAddress
   * writes it (eight groups). Nothing else is parsed: text without colons would be looked up as
   * a host name.
   */
  private static final java.util.regex.Pattern IPV6_CLIENT =
      java.util.regex.Pattern.compile("[0-9a-f]{1,4}(:[0-9a-f]{1,4}){7}/64");
  /** A guesser whose guesses have all come back, a /48's too, is forgotten after this long unused. */
  private static final Duration FORGET_AFTER = GUESS_EVERY.multipliedBy(BLOCK_GUESSES + 5L);
  private static final int MAX_ADDRESSES = 100_000;

  private final Ticker ticker;
  private final Cache<String, TokenBucket> guesses;
  /** The IPv6 guessers that gave the right password lately, exempt from their /48's count. */
  private final Cache<String, Boolean> known;
  private final Semaphore hashing;
  private final AtomicInteger waiting = new AtomicInteger();
  private final int queued;
  private final Duration maxWait;

  SignInLimits(Ticker ticker, int parallel, int queued, Duration maxWait) {
    this.ticker = ticker;
    this.guesses = Caffeine.newBuilder().expireAfterAccess(FORGET_AFTER).maximumSize(MAX_ADDRESSES).ticker(ticker)
        .build();
    this.known = Caffeine.newBuilder().expireAfterAccess(KNOWN_FOR).maximumSize(MAX_ADDRESSES).ticker(ticker).build();
    this.hashing = new Semaphore(Math.max(1, parallel), true);
    this.queued = Math.max(0, queued);
    this.maxWait = maxWait;
  }

  /** Half the cores, so that the payments keep the other half whatever comes in. */
  static int defaultParallelism() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
  }

  /**
   * Takes one of the guesses of {@code guesser} (an e-mail address and the client trying it), or
   * refuses it with 429 and how long until it has one.
   */
  void takeGuess(String guesser) {
    long now = ticker.read();
    TokenBucket own = guesses.get(guesser, a -> new TokenBucket(GUESSES, GUESS_EVERY.toNanos(), now));
    refuseFor(own.take(now));
    String block = blockCounting(guesser);
    if (block != null) {
      long wait = guesses.get(block, a -> new TokenBucket(BLOCK_GUESSES, GUESS_EVERY.toNanos(), now)).take(now);
      if (wait > 0) {
        own.giveBack();
        refuseFor(wait);
      }
    }
  }

  /**
   * The guesser that stands for an IPv6 client's whole /48 ({@code address\0/64} gives
   * {@code address\0/48}); null for any other client.
   */
  static String block(String guesser) {
    int split = guesser.lastIndexOf('\u0000');
    String client = guesser.substring(split + 1);
    // only what ClientAddresses writes for IPv6, which names no host to look up
    if (!IPV6_CLIENT.matcher(client).matches()) {
      return null;
    }
    try {
      byte[] address = java.net.InetAddress.getByName(client.substring(0, client.length() - 3)).getAddress();
      if (address.length != 16) {
        return null;
      }
      java.util.Arrays.fill(address, 6, 16, (byte) 0);
      return guesser.substring(0, split + 1) + java.net.InetAddress.getByAddress(address).getHostAddress() + "/48";
    } catch (java.net.UnknownHostException notAnAddress) {
      return null;
    }
  }

  /**
   * Refuses {@code guesser} with 429 while it has no guess left, taking none: asked before any
   * answer, a remembered one included, so that a client held back learns nothing of a password
   * (a 429 for each wrong one and a 200 for the right one, remembered from the user's own
   * sign-in, was guessing at full speed).
   */
  void refuseIfHeldBack(String guesser) {
    long now = ticker.read();
    TokenBucket g = guesses.getIfPresent(guesser);
    if (g != null) {
      refuseFor(g.waitFor(now));
    }
    String block = blockCounting(guesser);
    TokenBucket b = block == null ? null : guesses.getIfPresent(block);
    if (b != null) {
      refuseFor(b.waitFor(now));
    }
  }

  /**
   * The /48 whose count holds {@code guesser} back: none for IPv4, nor for a client known to the
   * user, which is asked first: an integration in use is asked on each of its requests, and
   * needs no address parsed.
   */
  private String blockCounting(String guesser) {
    return known.getIfPresent(guesser) != null ? null : block(guesser);
  }

  private static void refuseFor(long wait) {
    if (wait > 0) {
      long seconds = (wait + 999_999_999L) / 1_000_000_000L;
      throw new DomainException.TooManyRequests("Too many failed sign-ins for this user; retry after " + seconds
          + " s", seconds);
    }
  }

  /** Gives back a guess taken for a password that was right, or for a check that never ran. */
  void giveBack(String guesser) {
    TokenBucket g = guesses.getIfPresent(guesser);
    if (g != null) {
      g.giveBack();
    }
    String block = blockCounting(guesser);
    TokenBucket b = block == null ? null : guesses.getIfPresent(block);
    if (b != null) {
      b.giveBack();
    }
  }

  /** Gives back the guess of a right password, and exempts its IPv6 client from its /48's count. */
  void signedIn(String guesser) {
    giveBack(guesser);
    if (block(guesser) != null) {
      known.put(guesser, Boolean.TRUE);
    }
  }

  /** Runs a slow hash when one of the slots is free soon enough; refuses it with 503 otherwise. */
  boolean hash(BooleanSupplier check) {
    if (!tryAcquireNow()) {
      if (waiting.incrementAndGet() > queued) {
        waiting.decrementAndGet();
        throw busy();
      }
      try {
        if (!hashing.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
          throw busy();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw busy();
      } finally {
        waiting.decrementAndGet();
      }
    }
    try {
      return check.getAsBoolean();
    } finally {
      hashing.release();
    }
  }

  /** A free slot now, if none is waited for: a fair semaphore's plain tryAcquire would jump the queue. */
  private boolean tryAcquireNow() {
    try {
      return hashing.tryAcquire(0, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw busy();
    }
  }

  private static DomainException.Unavailable busy() {
    return new DomainException.Unavailable("Too many sign-ins are being checked at once; retry in a few seconds");
  }
}
