package io.tollgate.bootstrap;

import io.tollgate.application.service.TokenBucket;
import io.tollgate.domain.Violation;
import io.tollgate.rest.common.ErrorEnvelope;
import io.tollgate.rest.common.Json;
import io.tollgate.rest.gateway.GatewayApi;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per credential (the key or user the {@code Authorization} header names, kept
 * only as a digest) or, for requests without one, per client address: {@code ratePerSecond}
 * requests a second with bursts up to {@code burst}. Beyond it: 429 in the error envelope with
 * {@code Retry-After}.
 * Requests refused as unauthenticated (401) also count against their client's address, at the
 * same rate: a made-up credential per request would otherwise make every guess the first of its
 * own bucket. So do the sign-ins refused with 429 by the guessing limit (a client out of guesses
 * for a user, whatever the password): each is a guess refused, answered without a password
 * check, and uncounted a client held back could send a new password per request, each the first
 * of its own bucket, as fast as it liked. A 503 (too many passwords being checked at once) does
 * not count: the server's own congestion, which a client with the right password meets as well.
 *
 * <p>{@link #pages} limits everything else (the checkout page, the docs, unknown paths) per client
 * address alone; the APIs' paths it leaves to their own limit, and the operators' checks
 * ({@link OpsServlet#PATHS}) to their pollers. A checkout page is refused with a page a browser
 * shows, anything else in the error envelope. The limit is per instance.
 */
final class RateLimitFilter implements Filter {

  private static final int MAX_BUCKETS = 100_000;

  private final double ratePerSecond;
  private final double burst;
  private final int maxBuckets;
  /** Whether this is the limit of the paths outside the APIs ({@link #pages}). */
  private final boolean pages;
  private final ConcurrentHashMap<String, TokenBucket> buckets = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicBoolean sweeping = new java.util.concurrent.atomic.AtomicBoolean();

  RateLimitFilter(double ratePerSecond, double burst) {
    this(ratePerSecond, burst, MAX_BUCKETS);
  }

  RateLimitFilter(double ratePerSecond, double burst, int maxBuckets) {
    this(ratePerSecond, burst, maxBuckets, false);
  }

  private RateLimitFilter(double ratePerSecond, double burst, int maxBuckets, boolean pages) {
    this.ratePerSecond = ratePerSecond;
    this.burst = Math.max(1, burst);
    this.maxBuckets = maxBuckets;
    this.pages = pages;
  }

  /**
   * The limit of every path outside the two APIs, mapped to all of them: per client address
   * whatever the {@code Authorization} header says (nothing there reads it, and one made up per
   * request would make each request the first of its own bucket), in bursts of twice the rate.
   */
  static RateLimitFilter pages(double ratePerSecond) {
    return new RateLimitFilter(ratePerSecond, 2 * ratePerSecond, MAX_BUCKETS, true);
  }

  int buckets() {
    return buckets.size();
  }

  /**
   * Past the bound (a flood of distinct keys or addresses), forgets the buckets that have filled
   * up again, which a new bucket would be anyway; the clients being held back, an address's
   * refused credentials above all, keep theirs. Only when every bucket is in use are they all
   * forgotten, rather than grow without bound.
   */
  private void forgetFull(long now) {
    buckets.values().removeIf(b -> b.full(now));
    if (buckets.size() > maxBuckets) {
      buckets.clear();
    }
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    if (pages) {
      // the prefix a servlet is mapped at, or the whole path for the default servlet's (unknown
      // paths): decoded, as the mappings match it, and no new string on the APIs' every request
      String path = request.getServletPath();
      if (under(path, "/api") || under(path, "/merchant-api") || OpsServlet.PATHS.contains(request.getRequestURI())) {
        chain.doFilter(req, res);
        return;
      }
      long waitNanos = take("ip:" + clientOf(request), System.nanoTime());
      if (waitNanos == 0) {
        chain.doFilter(req, res);
      } else if (under(path, "/checkout")) {
        refuseWithPage(response, seconds(waitNanos));
      } else {
        refuse(request, response, seconds(waitNanos), "Too many requests from this address");
      }
      return;
    }
    String failures = "failed:" + clientOf(request);
    long now = System.nanoTime();
    long waitNanos = waitFor(failures, now);
    String limited = "Too many refused credentials from this address";
    String key = null;
    if (waitNanos == 0) {
      // an address held back for its failures opens no bucket: a flood of made-up credentials
      // must not fill the map until it is cleared, everyone's buckets with it
      key = keyOf(request);
      waitNanos = take(key, now);
      limited = key.startsWith("ip:") ? "Too many requests without credentials from this address"
          : "Too many requests for this key";
    }
    if (waitNanos == 0) {
      chain.doFilter(req, res);
      if (refusedCredential(response.getStatus(), key)) {
        take(failures, System.nanoTime());
      }
      return;
    }
    refuse(request, response, seconds(waitNanos), limited);
  }

  /** A wait in whole seconds, rounded up, at least one: what {@code Retry-After} says. */
  private static long seconds(long waitNanos) {
    return Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L);
  }

  private void refuse(HttpServletRequest request, HttpServletResponse response, long seconds, String limited)
      throws IOException {
    response.setStatus(429);
    response.setHeader("Retry-After", Long.toString(seconds));
    response.setContentType("application/json");
    response.setHeader("Cache-Control", "no-store");
    response.getOutputStream().write(Json.MAPPER.writeValueAsBytes(ErrorEnvelope.of(429,
        limited + ": at most " + (long) ratePerSecond + " a second; retry after " + seconds + " s",
        List.<Violation>of(), request.getRequestURI())));
  }

  /**
   * A checkout page's 429: a page of the checkout's own, as it answers a payment not found, which
   * the customer's browser shows; a customer behind an address many share is told to wait and
   * reload, not shown an envelope.
   */
  private static void refuseWithPage(HttpServletResponse response, long seconds) throws IOException {
    response.setStatus(429);
    response.setHeader("Retry-After", Long.toString(seconds));
    response.setContentType("text/html; charset=utf-8");
    GatewayApi.checkoutMessageHeaders().forEach(response::setHeader);
    response.getOutputStream().write(GatewayApi.checkoutMessagePage("Too many requests",
        "Too many requests have come from your network just now. Please wait " + seconds
            + (seconds == 1 ? " second" : " seconds") + ", then reload the page.").getBytes(StandardCharsets.UTF_8));
  }

  /** Whether {@code path} is {@code prefix} or under it, as a mapping {@code prefix/*} takes it. */
  private static boolean under(String path, String prefix) {
    return path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
  }

  /**
   * Whether an answer refused the credential the request came with: a 401, or a 429 behind this
   * filter, which only the sign-in guessing limit answers, to a request with credentials.
   */
  private static boolean refusedCredential(int status, String key) {
    return status == 401 || status == 429 && !key.startsWith("ip:");
  }

  /** How long until the bucket has a token, without taking one (0: it has one). */
  long waitFor(String key, long now) {
    TokenBucket b = buckets.get(key);
    return b == null ? 0 : b.waitFor(now);
  }

  /** Takes a token; returns 0 when one was there, else how long until one will be. */
  long take(String key, long now) {
    if (buckets.size() > maxBuckets && sweeping.compareAndSet(false, true)) {
      try {
        forgetFull(now);
      } finally {
        sweeping.set(false);
      }
    }
    return buckets.computeIfAbsent(key, k -> new TokenBucket(burst, 1e9 / ratePerSecond, now)).take(now);
  }

  /** The client as RequestIdFilter names it ({@link ClientAddresses}), else the connection's address. */
  private static String clientOf(HttpServletRequest request) {
    return request.getAttribute(io.tollgate.rest.common.ClientAddress.PROPERTY) instanceof String client
        ? client : request.getRemoteAddr();
  }

  private static String keyOf(HttpServletRequest request) {
    String auth = request.getHeader("Authorization");
    if (auth == null || auth.isBlank()) {
      return "ip:" + clientOf(request);
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(credential(auth).getBytes(StandardCharsets.UTF_8));
      return "key:" + HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The credential an {@code Authorization} header names, read as the two APIs read it: the
   * scheme in any case and the spaces around the key, and a merchant user's e-mail address in
   * any case, each spelling of one key or user shares one bucket. A header neither API takes
   * keeps its own (its requests are refused, and count against the address).
   */
  static String credential(String authorization) {
    String header = authorization.strip();
    if (header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return "bearer\n" + header.substring(7).strip();
    }
    if (header.regionMatches(true, 0, "Basic ", 0, 6)) {
      try {
        String decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        int colon = decoded.indexOf(':');
        if (colon > 0) {
          return "basic\n" + decoded.substring(0, colon).toLowerCase(Locale.ROOT).strip() + "\n"
              + decoded.substring(colon + 1);
        }
      } catch (IllegalArgumentException notBase64) {
        // refused by the API: as sent
      }
    }
    return "as sent\n" + authorization;
  }
}
