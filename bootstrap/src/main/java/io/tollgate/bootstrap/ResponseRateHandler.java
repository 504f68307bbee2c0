package io.tollgate.bootstrap;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Closes the connection of a client that reads its answer slower than {@link #FLOOR_BYTES_PER_SECOND}: the time
 * its answer's writes wait on it may pass what its bytes read so far earn at that rate by at most the grace. A
 * blocking servlet holds its thread until its answer is written, and Jetty's idle timeout fires only when a write
 * makes no progress at all for 30 s: about 190 clients reading the docs' 1.4 MB script a few KB a second, with no
 * credentials, held every thread of the pool, and two reading pages of 10,000 records held the whole large-page
 * budget for as long as they liked.
 *
 * <p>Only the time writes wait counts, not the time the service takes between them, so a page built slowly is
 * never held against its client. Answers that the kernel's buffers take at once never wait at all, whatever the
 * client's link; what waits is an answer larger than those buffers, to a client that does not read it. A write's
 * progress is known only when it ends, so a large one is handed on in slices.
 *
 * <p>Jetty 12 has {@code HttpConfiguration.setMinResponseDataRate}, but does not enforce it (the servlet output
 * checks it in a method nothing calls), and its {@code MinimumDataRateHandler} divides the bytes of all requests
 * by the time of one and checks only when a write starts, never while one waits.
 */
final class ResponseRateHandler extends Handler.Wrapper {

  /**
   * The floor, in bytes a second (64 kbit/s): a phone on a slow mobile link (a "slow 3G" of 400 kbit/s, or EDGE)
   * reads several times faster, and below it a client costs the service a thread for every few kilobytes.
   */
  static final long FLOOR_BYTES_PER_SECOND = 8 * 1024;
  /** How long writes may wait on a client before its bytes read so far must pay for the wait. */
  static final Duration GRACE = Duration.ofSeconds(10);
  /** The most of an answer handed on in one write: at the floor, well within the grace. */
  private static final int SLICE = 16 * 1024;

  private volatile long graceNanos = GRACE.toNanos();

  ResponseRateHandler(Handler next) {
    super(next);
  }

  /** How long writes may wait on a client before its reading counts (for tests, which cannot wait the grace). */
  void grace(Duration grace) {
    graceNanos = grace.toNanos();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    return super.handle(request, new Paced(request, response, graceNanos), callback);
  }

  /** An answer whose writes are timed against what its client has read. */
  private final class Paced extends Response.Wrapper {
    private final long grace;
    /** Bytes the client has taken (into the kernel's buffers, at least). */
    private volatile long written;
    /** How long the writes have waited on the client. */
    private volatile long waitedNanos;

    Paced(Request request, Response response, long grace) {
      super(request, response);
      this.grace = grace;
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
      if (content == null || content.remaining() <= SLICE) {
        timed(last, content, callback);
        return;
      }
      new IteratingCallback() {
        private final ByteBuffer rest = content.slice();

        @Override
        protected Action process() {
          if (!rest.hasRemaining()) {
            return Action.SUCCEEDED;
          }
          int size = Math.min(SLICE, rest.remaining());
          ByteBuffer slice = rest.slice(rest.position(), size);
          rest.position(rest.position() + size);
          timed(last && !rest.hasRemaining(), slice, this);
          return Action.SCHEDULED;
        }

        /**
         * As the write's own: a slice's end is then handled where the write's would be, on the
         * selector for a blocked servlet's write. Taken as blocking (the default), each slice's
         * end waited for a thread of the pool, which when busy ran out the client's grace for time
         * that was never the client's.
         */
        @Override
        public InvocationType getInvocationType() {
          return callback.getInvocationType();
        }

        @Override
        protected void onCompleteSuccess() {
          content.position(content.limit());
          callback.succeeded();
        }

        @Override
        protected void onCompleteFailure(Throwable cause) {
          callback.failed(cause);
        }
      }.iterate();
    }

    private void timed(boolean last, ByteBuffer content, Callback callback) {
      Timed write = new Timed(callback, content == null ? 0 : content.remaining());
      super.write(last, content, write);
      write.watchIfWaiting();
    }

    /** One write: when it ends, what it took and how long it waited are counted; while it waits, it is watched. */
    private final class Timed extends Callback.Nested {
      private final long started = NanoTime.now();
      private final int bytes;
      private final AtomicBoolean ended = new AtomicBoolean();
      private volatile Scheduler.Task watch;

      Timed(Callback callback, int bytes) {
        super(callback);
        this.bytes = bytes;
      }

      void watchIfWaiting() {
        if (ended.get()) {
          return;
        }
        long allowed = grace + written * TimeUnit.SECONDS.toNanos(1) / FLOOR_BYTES_PER_SECOND - waitedNanos;
        watch = getRequest().getComponents().getScheduler().schedule(this::expire, Math.max(0, allowed),
            TimeUnit.NANOSECONDS);
        if (ended.get()) {
          watch.cancel();
        }
      }

      private void expire() {
        if (!ended.get()) {
          // The write's callback fails as the connection closes, and the thread waiting on it goes free.
          getRequest().getConnectionMetaData().getConnection().getEndPoint().close(new TimeoutException(
              "the client read its answer slower than " + FLOOR_BYTES_PER_SECOND + " bytes a second"));
        }
      }

      private boolean end() {
        if (!ended.compareAndSet(false, true)) {
          return false;
        }
        waitedNanos += NanoTime.since(started);
        Scheduler.Task task = watch;
        if (task != null) {
          task.cancel();
        }
        return true;
      }

      @Override
      public void succeeded() {
        if (end()) {
          written += bytes;
        }
        super.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        end();
        super.failed(x);
      }
    }
  }
}
