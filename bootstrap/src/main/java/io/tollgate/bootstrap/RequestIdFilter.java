package io.tollgate.bootstrap;

import io.tollgate.domain.group.Pan;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Every request gets an id: the caller's {@code X-Request-Id} when it is a sane token that
 * cannot hold a card number, else a new one. It is returned in the response, put in the logging
 * context (so every log line of the request carries it, and the error envelope too) and in one
 * access-log line per request.
 */
final class RequestIdFilter implements Filter {

  static final String HEADER = "X-Request-Id";
  private static final Pattern SANE = Pattern.compile("^[A-Za-z0-9._:-]{1,128}$");
  private static final Logger ACCESS = LoggerFactory.getLogger("io.tollgate.access");

  /** Who sent each request, set for the limits further on (ClientAddress.PROPERTY). */
  private final ClientAddresses clients;

  RequestIdFilter(ClientAddresses clients) {
    this.clients = clients;
  }

  /** A random UUID from a non-blocking generator: request ids need to be unique, not secret. */
  private static String newId() {
    java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
    return new UUID((r.nextLong() & ~0xF000L) | 0x4000L, (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L)
        .toString();
  }

  /**
   * Whether the caller's id can be used: a sane token that holds no card number, since the id
   * goes unmasked into the response, the error envelope and every log line of the request. A
   * card number is found as the masking finds it, but only one that passes the Luhn check
   * counts here: ids such as {@code order-202611240001} are numbered by date or sequence, and the
   * caller needs its own id back to match our answer and logs with its own.
   */
  static boolean usable(String given) {
    return given != null && SANE.matcher(given).matches() && !Pan.holdsLuhnValidCardNumber(given);
  }

  /**
   * The method and path of the access-log line, card numbers masked. Masked here, on their own:
   * the layout masks the whole line as well, and there a card number at the end of the path,
   * with the status and duration after it, reads as one number split by spaces, which would
   * be masked whole and lose the status. Once masked here, only its last four digits are left
   * beside the status and duration, too few to make a card number with them.
   */
  static String requestLine(HttpServletRequest request) {
    return Pan.maskForDisplay(io.tollgate.rest.common.HttpMethods.forLog(request.getMethod())) + " "
        + loggedPath(request.getRequestURI());
  }

  /** The most characters of a path an access-log line quotes; the rest is only counted. */
  static final int LOGGED_PATH_CHARS = 512;

  /**
   * A request path as the access log quotes it: masked as an error echoes it, then cut to its
   * first {@link #LOGGED_PATH_CHARS} characters followed by {@code …(N more)}. A client sending
   * paths of kilobytes as fast as it can must not fill the disk with them. Masked before it is
   * cut, so that a card number across the cut is not left for the log with too few digits to be
   * seen as one.
   */
  static String loggedPath(String path) {
    String masked = io.tollgate.rest.common.ErrorEnvelope.maskedPath(path);
    if (masked == null || masked.length() <= LOGGED_PATH_CHARS) {
      return masked;
    }
    int cut = Character.isHighSurrogate(masked.charAt(LOGGED_PATH_CHARS - 1)) ? LOGGED_PATH_CHARS - 1
        : LOGGED_PATH_CHARS;
    return masked.substring(0, cut) + "…(" + (masked.length() - cut) + " more)";
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    String given = request.getHeader(HEADER);
    String id = usable(given) ? given : newId();
    response.setHeader(HEADER, id);
    MDC.put("requestId", id);
    request.setAttribute(io.tollgate.rest.common.ClientAddress.PROPERTY, clients.of(request));
    long t0 = System.nanoTime();
    Throwable failed = null;
    try {
      chain.doFilter(request, response);
    } catch (IOException | ServletException | RuntimeException | Error e) {
      failed = e;
      throw e;
    } finally {
      if (!request.getRequestURI().startsWith("/health/") && !request.getRequestURI().equals("/metrics")) {
        // The path only: query strings may carry references a merchant considers private. The
        // status follows an arrow, not a space alone: the logs mask digits split by spaces as a
        // card number, and a path ending in digits would take the status and duration with it.
        // A failure that escaped before the answer was sent is answered by the error handler,
        // after this line is written.
        ACCESS.info("{} -> {} in {}ms", requestLine(request), failed == null || response.isCommitted()
            ? response.getStatus() : ServletJsonErrorHandler.statusFor(failed),
            (System.nanoTime() - t0) / 1_000_000);
      }
      MDC.remove("requestId");
    }
  }
}
