package io.tollgate.rest.common;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses request bodies over the limit with 413, whether or not they declare a length, and
 * reads what a refused request left unread before answering it (at most the limit, and for an
 * oversized body at most {@value #DRAIN_LIMIT} bytes in all), so that the client's keep-alive
 * connection stays usable instead of being cut under its next request, and a client still
 * sending an oversized body reads the 413 rather than a connection reset.
 */
@PreMatching // before a path is matched, so that a body sent to no resource is held to the limit as well
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodyLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {

  public static final int DEFAULT_LIMIT = 64 * 1024;
  /**
   * The most of an oversized body read to answer its 413 on a connection the client can read
   * it from: a server that closes a connection with the client's bytes still unread resets it,
   * and the client, still writing, may never see the answer. A larger body is not read.
   */
  public static final int DRAIN_LIMIT = 1024 * 1024;
  /** The longest an oversized body is read for before its connection is closed instead. */
  static final long DRAIN_MILLIS = 5_000;

  /**
   * The request property that keeps the limited stream: Jersey closes the entity stream of a
   * body it stopped reading at the limit, after which the request no longer hands it out.
   */
  private static final String LIMITED = BodyLimitFilter.class.getName() + ".limited";

  private final int limit;

  public BodyLimitFilter(int limit) {
    this.limit = limit;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    if (request.getLength() > limit) {
      throw new WebApplicationException(413);
    }
    Limited limited = new Limited(request.getEntityStream(), limit);
    request.setProperty(LIMITED, limited);
    request.setEntityStream(limited);
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    // A request that succeeded has had its body read; only a refused one may have left some.
    if (response.getStatus() == 413) {
      // a client waiting for 100 Continue has not sent its body: reading it would ask for it
      boolean unsent = request.getLength() > limit && "100-continue".equalsIgnoreCase(request.getHeaderString("Expect"));
      InputStream in = unsent ? null
          : request.getProperty(LIMITED) instanceof Limited limited ? limited.raw() : entityStream(request);
      if (in == null || request.getLength() > DRAIN_LIMIT || !drained(in, DRAIN_LIMIT)) {
        // the rest of the body is not read: the connection cannot be reused, say so
        response.getHeaders().putSingle("Connection", "close");
      }
      return;
    }
    if (response.getStatus() < 400) {
      return;
    }
    try (InputStream in = request.getEntityStream()) {
      byte[] sink = new byte[8192];
      while (in.read(sink) >= 0) {
        // discard
      }
    } catch (IOException | RuntimeException e) {
      // already read and closed, too large, or the client went away: nothing left to keep alive
    }
  }

  /** The request's body stream, or null when it was closed already. */
  private static InputStream entityStream(ContainerRequestContext request) {
    try {
      return request.getEntityStream();
    } catch (IllegalStateException closed) {
      return null;
    }
  }

  /**
   * Whether {@code in} ended within {@code limit} more bytes, which are read and dropped, and
   * within {@value #DRAIN_MILLIS} ms: a client that trickles its oversized body does not hold the
   * thread for longer.
   */
  private static boolean drained(InputStream in, long limit) {
    byte[] sink = new byte[8192];
    long read = 0;
    long deadline = System.nanoTime() + DRAIN_MILLIS * 1_000_000L;
    try {
      int n;
      while ((n = in.read(sink)) >= 0) {
        read += n;
        if (read > limit || System.nanoTime() - deadline > 0) {
          return false;
        }
      }
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static final class Limited extends FilterInputStream {
    private long left;

    Limited(InputStream in, long limit) {
      super(in);
      this.left = limit;
    }

    /** The stream it limits, for reading what a refused request left. */
    InputStream raw() {
      return in;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0 && --left < 0) {
        throw new WebApplicationException(413);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      if (n > 0) {
        left -= n;
        if (left < 0) {
          throw new WebApplicationException(413);
        }
      }
      return n;
    }
  }
}
