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
 * are waited for without a thread, and the request is handed on once its body is whole. A body
 * over the limit is read to its end and dropped, also without a thread, and then handed on for
 * {@code BodyLimitFilter} to answer its 413 on a connection that stays usable; one that goes on
 * past {@code drainLimit}, or is announced so, or is announced over the limit and waits for
 * {@code 100 Continue}, is answered 413 here and its connection closed. A body whose bytes stop
 * coming for the idle timeout is answered 408.
 *
 * <p>The API reads bodies on the request's thread, and Jetty's wait for the next byte is reset
 * by each byte: two hundred connections sending a byte every ten seconds, with no credentials,
 * held every one of the 200 threads, and the service answered nothing, not even its health
 * checks. A body that came with its headers, as almost all do, is handed on at once, on the
 * thread that read the headers; one whose bytes came later is handed on on a thread of the
 * pool, never in Jetty's callback for arrived bytes, which the bytes after them wait behind.
 *
 * <p>Memory grows only with the bytes that have come, and all the bodies being read ahead share
 * a budget of {@code budgetBytes}: a body that has not all come when it would take them past it
 * is answered 503 with {@code Retry-After} and its connection closed, rather than have many
 * connections that each sent a part of a body fill the heap, or be handed to a thread to wait
 * on the rest (which a client trickling it could hold, once others had filled the budget).
 *
 * <p>A body over the limit was handed on once past it, and its thread read the rest to answer
 * the 413 where the client could read it: a client trickling the rest held that thread for one
 * idle timeout per byte. What is read past the limit is only counted, so it takes no budget.
 */
final class BodyPrefetchHandler extends Handler.Wrapper {

  /** What a body's buffer starts at once bytes come; it grows as they come, never past the limit and a chunk. */
  private static final int FIRST_BUFFER = 4096;

  private final int limit;
  private final long drainLimit;
  private final long budgetBytes;
  private final java.util.concurrent.atomic.AtomicLong buffered = new java.util.concurrent.atomic.AtomicLong();
  /**
   * What a body over the limit is handed on as, once its bytes have been read and dropped: one
   * byte more than the limit, which {@code BodyLimitFilter} refuses whatever they are.
   */
  private final ByteBuffer overLimit;

  BodyPrefetchHandler(Handler next, int limit) {
    this(next, limit, io.tollgate.rest.common.BodyLimitFilter.DRAIN_LIMIT,
        Math.max(4L * limit, Runtime.getRuntime().maxMemory() / 16));
  }

  BodyPrefetchHandler(Handler next, int limit, long drainLimit, long budgetBytes) {
    super(next);
    this.limit = limit;
    this.drainLimit = Math.max(limit, drainLimit);
    this.budgetBytes = budgetBytes;
    this.overLimit = ByteBuffer.allocate(limit + 1).asReadOnlyBuffer();
  }

  /** The bytes of bodies being read ahead now, for tests. */
  long buffered() {
    return buffered.get();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    long length = request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
    boolean chunked = length < 0 && request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    if (length == 0 || length < 0 && !chunked) {
      return super.handle(request, response, callback); // no body
    }
    if (length > drainLimit || length > limit && request.getHeaders().contains(HttpHeader.EXPECT)) {
      // Too large to read for nothing, or not sent yet (reading it would ask the client to send
      // it): refused here by its declared length. Handed on, it was read all the same, on a
      // thread, before any filter could refuse it: Jersey reads a form's body to find its
      // parameters before it matches a path.
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      Response.writeError(request, response, callback, 413);
      return true;
    }
    Prefetch prefetch = new Prefetch(request, response, callback, length > limit);
    try {
      return prefetch.read(true);
    } catch (Throwable x) {
      prefetch.giveBack();
      throw x;
    }
  }

  /** The body read so far, and what to do once it is whole. */
  private final class Prefetch implements Runnable {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private byte[] bytes;
    private int size;
    /** The bytes of the budget this body holds. */
    private long taken;
    /** Whether the body is over the limit: its bytes are then only counted, in {@code size}. */
    private boolean over;

    Prefetch(Request request, Response response, Callback callback, boolean over) {
      this.request = request;
      this.response = response;
      this.callback = callback;
      // as the bytes come, not as the headers announce them: headers alone take no memory
      this.bytes = new byte[0];
      this.over = over;
    }

    @Override
    public void run() {
      try {
        read(false);
      } catch (Throwable x) {
        giveBack();
        callback.failed(x);
      }
    }

    /**
     * Reads what has arrived; hands the request on when the body is whole, else asks to be
     * called again when more comes. Returns whether the request was taken.
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
          giveBack();
          Response.writeError(request, response, callback, 408, "Request body not received in time",
              chunk.getFailure());
          return true;
        }
        boolean last = chunk.isLast();
        boolean kept = true;
        try {
          if (over) {
            size += chunk.getByteBuffer().remaining();
          } else {
            kept = append(chunk.getByteBuffer());
          }
        } finally {
          chunk.release();
        }
        if (!last && !kept) {
          giveBack();
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
          Response.writeError(request, response, callback, 503, "Too many request bodies are being received");
          return true;
        }
        if (!over && size > limit && !last) {
          // the rest is read without being kept, to answer the 413 where the client can read it
          over = true;
          giveBack();
          bytes = null;
        }
        if (last) {
          ByteBuffer body = over ? overLimit.duplicate() : ByteBuffer.wrap(bytes, 0, size);
          return handOn(new Replay(request, body), onHeaderThread);
        }
        if (over && size > drainLimit) {
          // too much to read for nothing: refused now, and the connection closed on the rest
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
          Response.writeError(request, response, callback, 413);
          return true;
        }
      }
    }

    /**
     * Appends what came (a chunk is never left half read), and says whether the bodies read ahead
     * are still within the budget, which counts each buffer's whole size.
     */
    private boolean append(ByteBuffer buffer) {
      int n = buffer.remaining();
      if (size + n > bytes.length) {
        int grown = (int) Math.min(Math.max(Math.max(bytes.length * 2L, FIRST_BUFFER), size + (long) n),
            limit + 1L + n);
        bytes = Arrays.copyOf(bytes, grown);
      }
      long more = bytes.length - taken;
      // a body that takes nothing more is never refused for another's moment over the budget
      boolean within = more == 0 || buffered.addAndGet(more) <= budgetBytes;
      taken += more;
      buffer.get(bytes, size, n);
      size += n;
      return within;
    }

    /** Returns this body's bytes to the budget: they are the request's now, or dropped. */
    private void giveBack() {
      buffered.addAndGet(-taken);
      taken = 0;
    }

    private boolean handOn(Request replay, boolean onHeaderThread) throws Exception {
      giveBack();
      if (onHeaderThread) {
        return BodyPrefetchHandler.super.handle(replay, response, callback);
      }
      // Not in the callback for arrived bytes: Jetty runs those one after another, so a request
      // served in one would wait for ever on the next bytes of its own body, queued behind it.
      request.getContext().execute(() -> {
        try {
          if (!BodyPrefetchHandler.super.handle(replay, response, callback)) {
            Response.writeError(replay, response, callback, 404);
          }
        } catch (Throwable x) {
          callback.failed(x);
        }
      });
      return true;
    }
  }

  /** The request with its body read ahead, all of it. */
  private static final class Replay extends Request.Wrapper {
    private Content.Chunk ahead;

    Replay(Request request, ByteBuffer body) {
      super(request);
      this.ahead = Content.Chunk.from(body, true);
    }

    @Override
    public Content.Chunk read() {
      Content.Chunk chunk = ahead;
      if (chunk != null) {
        ahead = null;
        return chunk;
      }
      return Content.Chunk.EOF;
    }

    @Override
    public void demand(Runnable demandCallback) {
      demandCallback.run();
    }

    @Override
    public boolean consumeAvailable() {
      ahead = null;
      return true;
    }
  }
}
