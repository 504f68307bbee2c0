package io.tollgate.rest.common;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses request bodies over the limit with 413, whether or not they declare a length, and
 * reads what a refused request left unread (at most the limit) before answering it, so that
 * the client's keep-alive connection stays usable instead of being cut under its next request.
 */
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodyLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {

  public static final int DEFAULT_LIMIT = 64 * 1024;

  private final int limit;

  public BodyLimitFilter(int limit) {
    this.limit = limit;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    if (request.getLength() > limit) {
      throw new WebApplicationException(413);
    }
    request.setEntityStream(new Limited(request.getEntityStream(), limit));
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    // A request that succeeded has had its body read; only a refused one may have left some.
    if (response.getStatus() == 413) {
      // The rest of an oversized body is not read: the connection cannot be reused, say so.
      response.getHeaders().putSingle("Connection", "close");
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

  private static final class Limited extends FilterInputStream {
    private long left;

    Limited(InputStream in, long limit) {
      super(in);
      this.left = limit;
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
