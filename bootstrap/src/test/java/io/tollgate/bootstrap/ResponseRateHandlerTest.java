package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ResponseRateHandler} between an answer's writes and the connection. */
class ResponseRateHandlerTest {

  private Server server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  /**
   * A large write handed on in slices keeps the write's own way of being told it is done: a
   * servlet's blocked write is told on the selector, not by a thread of the pool. The slices
   * were taken as blocking, so each slice's end waited for a free thread, and when the pool was
   * busy (as under the flood of slow readers the handler is for) that wait ran out the grace of
   * clients reading fast enough.
   */
  @Test
  void a_large_write_in_slices_is_told_its_end_as_the_write_would_be() throws Exception {
    List<InvocationType> handedOn = new CopyOnWriteArrayList<>();
    ResponseRateHandler paced = new ResponseRateHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        response.setStatus(200);
        response.getHeaders().put("Content-Length", String.valueOf(64 * 1024));
        response.write(true, ByteBuffer.allocate(64 * 1024),
            Callback.from(InvocationType.NON_BLOCKING, callback::succeeded, callback::failed));
        return true;
      }
    });
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(new Handler.Wrapper(paced) {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        return super.handle(request, new Response.Wrapper(request, response) {
          @Override
          public void write(boolean last, ByteBuffer content, Callback written) {
            handedOn.add(Invocable.getInvocationType(written));
            super.write(last, content, written);
          }
        }, callback);
      }
    });
    server.start();

    try (Socket s = new Socket("127.0.0.1", connector.getLocalPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      long read = 0;
      byte[] sink = new byte[8192];
      int n;
      while ((n = in.read(sink)) >= 0) {
        read += n;
      }
      assertThat(read).as("the whole answer").isGreaterThan(64 * 1024);
    }

    assertThat(handedOn).as("four slices of 16 KiB").hasSize(4).containsOnly(InvocationType.NON_BLOCKING);
  }
}
