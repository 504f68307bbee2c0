package io.tollgate.bootstrap;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Reads a request's body before a thread is given to it: the bytes that have not arrived yet
 * are waited for without a thread, and the request is handed on once its body is whole, or
 * once it has more than the body limit (whose 413 {@code BodyLimitFilter} answers, as before).
 * A body whose bytes stop coming for the idle timeout is answered 408.
 *
 * <p>The API reads bodies on the request's thread, and Jetty's wait for the next byte is reset
 * by each byte: two hundred connections sending a byte every ten seconds, with no credentials,
 * held every one of the 200 threads, and the service answered nothing, not even its health
 * checks. A body that came with its headers, as almost all do, is handed on at once, on the
 * thread that read the headers.
 */
final class BodyPrefetchHandler extends Handler.Wrapper {

  private final int limit;

  BodyPrefetchHandler(Handler next, int limit) {
    super(next);
    this.limit = limit;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    long length = request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
    boolean chunked = length < 0 && request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    if (length == 0 || length < 0 && !chunked || length > limit) {
      // no body, or one BodyLimitFilter refuses by its declared length without reading it
      return super.handle(request, response, callback);
    }
    return new Prefetch(request, response, callback, length).read(true);
  }

  /** The body read so far, and what to do once it is whole. */
  private final class Prefetch implements Runnable {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private byte[] bytes;
    private int size;

    Prefetch(Request request, Response response, Callback callback, long length) {
      this.request = request;
      this.response = response;
      this.callback = callback;
      this.bytes = new byte[(int) Math.min(length > 0 ? length : 4096, limit + 1L)];
    }

    @Override
    public void run() {
      try {
        read(false);
      } catch (Throwable x) {
        callback.failed(x);
      }
    }

    /**
     * Reads what has arrived; hands the request on when the body is whole or over the limit,
     * else asks to be called again when more comes. Returns whether the request was taken.
     */
    boolean read(boolean onHeaderThread) throws Exception {
      while (true) {
        Content.Chunk chunk = request.read();
        if (chunk == null) {
          request.demand(this);
          return true;
        }
        if (Content.Chunk.isFailure(chunk)) {
          // the client stopped sending for the idle timeout, or went away
          Response.writeError(request, response, callback, 408, "Request body not received in time",
              chunk.getFailure());
          return true;
        }
        boolean last = chunk.isLast();
        try {
          append(chunk.getByteBuffer());
        } finally {
          chunk.release();
        }
        if (last || size > limit) {
          return handOn(new Replay(request, Arrays.copyOf(bytes, size), last), onHeaderThread);
        }
      }
    }

    private void append(ByteBuffer buffer) {
      int n = buffer.remaining();
      if (size + n > bytes.length) {
        bytes = Arrays.copyOf(bytes, (int) Math.min(Math.max(bytes.length * 2L, size + (long) n), limit + 1L + n));
      }
      buffer.get(bytes, size, n);
      size += n;
    }

    private boolean handOn(Request replay, boolean onHeaderThread) throws Exception {
      boolean handled = BodyPrefetchHandler.super.handle(replay, response, callback);
      if (!handled && !onHeaderThread) {
        Response.writeError(replay, response, callback, 404);
        return true;
      }
      return handled;
    }
  }

  /**
   * The request with its body read ahead: the bytes read, then (when they were not all of it,
   * the body being over the limit) whatever the client still sends.
   */
  private static final class Replay extends Request.Wrapper {
    private Content.Chunk ahead;
    private final boolean whole;

    Replay(Request request, byte[] body, boolean whole) {
      super(request);
      this.ahead = Content.Chunk.from(ByteBuffer.wrap(body), whole);
      this.whole = whole;
    }

    @Override
    public Content.Chunk read() {
      Content.Chunk chunk = ahead;
      if (chunk != null) {
        ahead = null;
        return chunk;
      }
      return whole ? Content.Chunk.EOF : super.read();
    }

    @Override
    public void demand(Runnable demandCallback) {
      if (ahead != null || whole) {
        demandCallback.run();
      } else {
        super.demand(demandCallback);
      }
    }

    @Override
    public boolean consumeAvailable() {
      ahead = null;
      return whole || super.consumeAvailable();
    }
  }
}
