package io.tollgate.rest.common;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Refuses request bodies over the limit with 413, whether or not they declare a length. */
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodyLimitFilter implements ContainerRequestFilter {

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
