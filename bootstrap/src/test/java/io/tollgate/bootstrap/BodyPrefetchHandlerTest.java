package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BodyPrefetchHandler} in front of a handler that reads its body on its thread, as the
 * APIs do: what it holds in memory, and bodies whose bytes come late or run past the limit.
 */
class BodyPrefetchHandlerTest {

  static final int LIMIT = 64 * 1024;
  static final int BUDGET = 20_000;
  static final int DRAIN_LIMIT = 200_000;

  final AtomicInteger reading = new AtomicInteger();
  Server server;
  BodyPrefetchHandler prefetch;

  @BeforeEach
  void start() throws Exception {
    start(BUDGET);
  }

  /** Starts the server with bodies read ahead sharing {@code budget} bytes. */
  void start(long budget) throws Exception {
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setPort(0);
    server.addConnector(connector);
    prefetch = new BodyPrefetchHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        reading.incrementAndGet();
        try (InputStream in = Content.Source.asInputStream(request)) {
          long read = 0;
          byte[] sink = new byte[8192];
          int n;
          while ((n = in.read(sink)) >= 0 && read <= LIMIT) {
            read += n;
          }
          response.setStatus(read > LIMIT ? 413 : 200);
          response.write(true, ByteBuffer.wrap(("read " + read).getBytes(StandardCharsets.UTF_8)), callback);
        } finally {
          reading.decrementAndGet();
        }
        return true;
      }
    }, LIMIT, DRAIN_LIMIT, budget);
    server.setHandler(prefetch);
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  private Socket open(String head) throws Exception {
    Socket s = new Socket("127.0.0.1", ((ServerConnector) server.getConnectors()[0]).getLocalPort());
    s.setSoTimeout(10_000);
    s.setTcpNoDelay(true);
    send(s, head);
    return s;
  }

  private static void send(Socket s, String text) throws Exception {
    OutputStream out = s.getOutputStream();
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private static String answer(Socket s) throws Exception {
    return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  /** Headers that announce a large body take no memory, and no thread waits on the body. */
  @Test
  void announced_bodies_take_no_memory_and_no_thread() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < 50; i++) {
        sockets.add(open("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\nConnection: close\r\n\r\n"));
      }
      Thread.sleep(300);
      assertThat(prefetch.buffered()).as("headers alone").isZero();
      assertThat(reading.get()).as("no thread waits on a body that has not come").isZero();
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  /**
   * Bodies read ahead stay within the budget: one that has not all come when it would take them
   * past it is a 503, not handed to a thread to wait on the rest (which clients trickling bodies
   * could hold, once others had filled the budget). The others are read whole and served.
   */
  @Test
  void a_body_that_would_take_the_bodies_read_ahead_past_the_budget_is_a_503() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < 10; i++) {
        Socket s = open("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\nConnection: close\r\n\r\n");
        send(s, "a".repeat(1000));
        sockets.add(s);
      }
      // a buffer of 4,096 bytes each: four fit in 20,000, and the six others are refused as
      // their first bytes come; the rest is sent only once all ten have been read, or a body's
      // two parts could come as one, whole, which is always served
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (prefetch.buffered() < 4 * 4096 || answered(sockets) < 6) {
        assertThat(System.nanoTime()).as("four bodies read ahead, six refused").isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(reading.get()).isZero();
      List<String> answers = new ArrayList<>();
      for (Socket s : sockets) {
        try {
          send(s, "b".repeat(3000));
        } catch (java.io.IOException closed) {
          // refused already, and closed
        }
      }
      for (Socket s : sockets) {
        String answer = answer(s);
        answers.add(answer.substring(0, Math.min(12, answer.length())));
        if (answer.startsWith("HTTP/1.1 200")) {
          assertThat(answer).endsWith("read 4000");
        }
      }
      assertThat(answers).filteredOn(a -> a.startsWith("HTTP/1.1 200")).hasSize(4);
      assertThat(answers).filteredOn(a -> a.startsWith("HTTP/1.1 503")).hasSize(6);
      assertThat(prefetch.buffered()).as("every byte given back").isZero();
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  /** How many of {@code sockets} have an answer to read. */
  private static int answered(List<Socket> sockets) throws Exception {
    int n = 0;
    for (Socket s : sockets) {
      n += s.getInputStream().available() > 0 ? 1 : 0;
    }
    return n;
  }

  /** A body sent in pieces is read whole before its thread is given to it. */
  @Test
  void a_body_whose_bytes_come_late_is_handed_on_whole() throws Exception {
    try (Socket s = open("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3000\r\nConnection: close\r\n\r\n")) {
      for (int i = 0; i < 3; i++) {
        Thread.sleep(200);
        assertThat(reading.get()).isZero();
        send(s, "a".repeat(1000));
      }
      assertThat(answer(s)).startsWith("HTTP/1.1 200").endsWith("read 3000");
    }
  }

  /**
   * A body over the limit, announced or found so as it comes, is read to its end and dropped
   * without a thread, then answered 413 on a connection that stays usable: a client trickling
   * the rest of it held a thread for one idle timeout per byte.
   */
  @Test
  void a_body_over_the_limit_is_read_to_its_end_without_a_thread() throws Exception {
    restartWithRoomForABody();
    String piece = "a".repeat(30_000);
    String chunk = Integer.toHexString(piece.length()) + "\r\n" + piece + "\r\n";
    String[] heads = {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + 4 * piece.length() + "\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"};
    for (String head : heads) {
      boolean chunked = head.contains("chunked");
      try (Socket s = open(head)) {
        for (int i = 0; i < 4; i++) {
          send(s, chunked ? chunk : piece);
          Thread.sleep(200);
          if (chunked || i < 3) {
            // (the fourth part ends the announced body, which is then handed on)
            assertThat(reading.get()).as("%s, %d of 4 parts sent", chunked ? "chunked" : "announced", i + 1).isZero();
          }
          assertThat(prefetch.buffered()).as("bytes past the limit are not kept").isLessThanOrEqualTo(LIMIT + 1);
        }
        send(s, (chunked ? "0\r\n\r\n" : "") + "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        String answers = answer(s);
        assertThat(answers).startsWith("HTTP/1.1 413").contains("read " + (LIMIT + 1));
        assertThat(answers.substring(answers.indexOf("read"))).as("the connection served the next request")
            .contains("HTTP/1.1 200").endsWith("read 0");
      }
    }
    assertThat(prefetch.buffered()).isZero();
  }

  /** A body that goes on past what is read for nothing is refused at once, and its connection closed. */
  @Test
  void a_body_past_the_drain_limit_is_refused_at_once() throws Exception {
    restartWithRoomForABody();
    String piece = "a".repeat(50_000);
    String chunk = Integer.toHexString(piece.length()) + "\r\n" + piece + "\r\n";
    try (Socket s = open("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")) {
      for (int i = 0; i * piece.length() <= DRAIN_LIMIT; i++) {
        send(s, chunk);
      }
      String answer = answer(s);
      assertThat(answer).startsWith("HTTP/1.1 413").contains("Connection: close");
    }
    assertThat(reading.get()).isZero();
    assertThat(prefetch.buffered()).isZero();
  }

  /** Starts the server again with room in the budget for a body up to the limit. */
  private void restartWithRoomForABody() throws Exception {
    server.stop();
    start(4L * LIMIT);
  }
}
