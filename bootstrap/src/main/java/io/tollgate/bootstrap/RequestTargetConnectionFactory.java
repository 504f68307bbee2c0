package io.tollgate.bootstrap;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * HTTP/1.1 connections that keep each request's target exactly as the client sent it, so that
 * {@link JsonErrorHandler} can give the path of a request Jetty refused before building it.
 *
 * <p>When Jetty cannot build a request (a bad escape such as {@code %zz}, a {@code ..} above the
 * root, a {@code CONNECT} to a path, a URI over the header limit, an unknown HTTP version) it
 * answers through the error handler with a stand-in request whose path is {@code /badMessage}.
 * Two hooks that Jetty's {@code HttpConnection} offers for its request handler and parser keep
 * the original (the class is in Jetty's {@code internal} package: check them when upgrading):
 * <ul>
 *   <li>the parser hands the target to {@code startRequest} before Jetty parses it as a URI,
 *       so every failure after the request line has been read finds the whole target;</li>
 *   <li>a failure inside the request line (414, a bad version or character) comes before
 *       {@code startRequest}; then the target is read from the bytes the parser was given,
 *       which Jetty has marked consumed but not overwritten. Only the part of an over-long
 *       target that arrived is known.</li>
 * </ul>
 * A request that is served normally costs a few field writes per parser call, no copy.
 */
final class RequestTargetConnectionFactory extends HttpConnectionFactory {

  /** Bytes of a request line kept across reads; more than the error envelope shows of a path. */
  private static final int KEPT_LINE_BYTES = 4096;

  RequestTargetConnectionFactory(HttpConfiguration configuration) {
    super(configuration);
  }

  @Override
  public org.eclipse.jetty.io.Connection newConnection(Connector connector, EndPoint endPoint) {
    TargetKeepingConnection connection = new TargetKeepingConnection(getHttpConfiguration(), connector, endPoint);
    connection.setUseInputDirectByteBuffers(isUseInputDirectByteBuffers());
    connection.setUseOutputDirectByteBuffers(isUseOutputDirectByteBuffers());
    return configure(connection, connector, endPoint);
  }

  /**
   * The request-target of the request being answered, as received (query included), or null
   * when the request line could not be read far enough to find one. On a connection of another
   * kind, Jetty's path of the request.
   */
  static String receivedTarget(Request request) {
    return request.getConnectionMetaData() instanceof TargetKeepingConnection connection ? connection.target
        : request.getHttpURI() == null ? null : request.getHttpURI().getPath();
  }

  /**
   * Jetty parses one request of a connection at a time and answers it before reading the next,
   * so {@code target} belongs to the request being answered. It is written by the thread that
   * parses and read by the one that answers, which Jetty starts after the parse.
   */
  private static final class TargetKeepingConnection extends HttpConnection {

    // No initialiser: the superclass constructor calls newRequestHandler, then newHttpParser.
    private RequestHandler handler;
    private String target;

    TargetKeepingConnection(HttpConfiguration configuration, Connector connector, EndPoint endPoint) {
      super(configuration, connector, endPoint);
    }

    @Override
    protected RequestHandler newRequestHandler() {
      handler = new TargetKeepingHandler();
      return handler;
    }

    @Override
    protected HttpParser newHttpParser(HttpCompliance compliance) {
      HttpConfiguration configuration = getHttpConfiguration();
      HttpParser parser = new TargetKeepingParser(handler, configuration.getRequestHeaderSize(), compliance);
      parser.setHeaderCacheSize(configuration.getHeaderCacheSize());
      parser.setHeaderCacheCaseSensitive(configuration.isHeaderCacheCaseSensitive());
      return parser;
    }

    private final class TargetKeepingHandler extends RequestHandler {
      @Override
      public void startRequest(String method, String uri, HttpVersion version) {
        target = uri;
        super.startRequest(method, uri, version);
      }
    }

    /** Remembers where the request line lies in the bytes it parses, until it has read it. */
    private final class TargetKeepingParser extends HttpParser {

      private ByteBuffer buffer;
      private int position;
      private int limit;
      private byte[] earlierPart = new byte[0];
      private int earlierLength;

      TargetKeepingParser(RequestHandler handler, int maxHeaderBytes, HttpCompliance compliance) {
        super(handler, maxHeaderBytes, compliance);
      }

      @Override
      public boolean parseNext(ByteBuffer bytes) {
        boolean inRequestLine = inRequestLine();
        if (inRequestLine) {
          if (getState() == State.START) {
            target = null;
            earlierLength = 0;
          }
          buffer = bytes;
          position = bytes.position();
          limit = bytes.limit();
        }
        boolean handled = super.parseNext(bytes);
        if (inRequestLine && inRequestLine() && getState() != State.START) {
          // The line goes on in the next read, and this buffer may be refilled before then.
          if (earlierPart.length < KEPT_LINE_BYTES) {
            earlierPart = Arrays.copyOf(earlierPart, KEPT_LINE_BYTES);
          }
          int length = Math.min(bytes.position() - position, KEPT_LINE_BYTES - earlierLength);
          bytes.get(position, earlierPart, earlierLength, length);
          earlierLength += length;
        }
        return handled;
      }

      /**
       * Called before Jetty builds its stand-in request. If the request line was refused
       * before it was read to its end, the parser has cleared the buffer's position and limit
       * but not its bytes: they are read through a copy set back to where this parse began.
       */
      @Override
      protected void badMessage(HttpException failure) {
        if (target == null && buffer != null) {
          ByteBuffer bytes = buffer.duplicate().limit(limit).position(position);
          byte[] line = Arrays.copyOf(earlierPart, earlierLength + Math.min(bytes.remaining(),
              KEPT_LINE_BYTES - earlierLength));
          bytes.get(line, earlierLength, line.length - earlierLength);
          target = targetOf(line);
        }
        super.badMessage(failure);
      }

      private boolean inRequestLine() {
        return getState().ordinal() < State.HEADER.ordinal();
      }
    }
  }

  /**
   * The target in the raw bytes of a request line: the word after the method, up to the next
   * space or the line's end. Null unless the line starts with a method token and a space, and
   * when the word holds control characters: then it is not text the client meant as a path
   * (a TLS handshake sent to the plain-text port, say).
   */
  private static String targetOf(byte[] line) {
    int start = 0;
    while (start < line.length && (line[start] == '\r' || line[start] == '\n')) {
      start++;
    }
    int method = start;
    while (method < line.length && isTokenChar(line[method])) {
      method++;
    }
    if (method == start || method >= line.length || line[method] != ' ') {
      return null;
    }
    int from = method + 1;
    int to = from;
    while (to < line.length && line[to] != ' ' && line[to] != '\r' && line[to] != '\n') {
      if ((line[to] & 0xff) < 0x20 || line[to] == 0x7f) {
        return null;
      }
      to++;
    }
    return to == from ? null : new String(line, from, to - from, StandardCharsets.UTF_8);
  }

  private static boolean isTokenChar(byte b) {
    return b > 0x20 && b < 0x7f && "\"(),/:;<=>?@[\\]{}".indexOf(b) < 0;
  }
}
