package io.tollgate.rest.common;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.io.EOFException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Anything we did not expect: logged in full for the operator, answered as a bare 500 with
 * no stack trace or SQL for the client. A lost database connection is a 503; a client that
 * stopped sending its body is a 408.
 */
public final class UnexpectedExceptionMapper implements ExceptionMapper<Throwable> {

  private static final Logger LOG = LoggerFactory.getLogger(UnexpectedExceptionMapper.class);

  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(Throwable e) {
    String path = RequestPaths.of(uriInfo);
    // as the envelope and the access line show it: a card number split by escapes is masked too
    String logged = ErrorEnvelope.maskedPath(path);
    String aborted = abortedTransaction(e);
    if (aborted != null) {
      // our doing, not the database's health: in full for the operator, so that a deadlock
      // between two of our own statements is seen as the defect it is, not as an outage
      LOG.error("transaction rolled back by the database ({}) while serving {}", aborted, logged, e);
      return unavailable(path);
    }
    if (isDatabaseUnavailable(e)) {
      LOG.warn("database unavailable while serving {}: {}", logged, e.toString());
      return unavailable(path);
    }
    if (isBodyNotSent(e)) {
      // the client's doing, not ours: a line for the operator, no stack trace
      LOG.warn("request body not received while serving {}: {}", logged, e.toString());
      return ErrorResponses.of(408, "The request body stopped before its end; send the request again",
          List.of(), path);
    }
    LOG.error("unexpected error while serving {}", logged, e);
    return ErrorResponses.of(500, "Internal server error", List.of(), path);
  }

  /**
   * Whether reading the request body failed because the client stopped sending it: the server's
   * input stream fails with an {@link IOException} caused by the idle timeout (a
   * {@link TimeoutException}), or by the connection ending before the body did (an
   * {@link EOFException}; Jetty's {@code EofException} is one). A body the client sent whole but
   * that is not JSON fails in the parser instead, whose exceptions are neither.
   */
  private static boolean isBodyNotSent(Throwable e) {
    if (!(e instanceof IOException)) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException || t instanceof EOFException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static boolean isDatabaseUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLTransientConnectionException) {
        return true;
      }
      // 08: connection lost; 25006: the database is read-only (a standby after a failover);
      // 57P01-57P03: the server is shutting down or not yet accepting connections
      if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("08") || sql.getSQLState().equals("25006")
              || sql.getSQLState().startsWith("57P0"))) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * "deadlock" or "serialization failure" when the database rolled the request's transaction
   * back as a deadlock's victim (40P01) or a serialization failure (40001); null otherwise. The
   * transaction that failed left nothing, and the same request may be sent again (any step an
   * earlier transaction of the request committed is what a retry finds, as after any failure),
   * so the client is answered 503 with a {@code Retry-After}.
   */
  private static String abortedTransaction(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null) {
        if (sql.getSQLState().equals("40P01")) {
          return "deadlock";
        }
        if (sql.getSQLState().equals("40001")) {
          return "serialization failure";
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  private static Response unavailable(String path) {
    return Response.fromResponse(ErrorResponses.of(503,
        "Service temporarily unavailable; retry shortly", List.of(), path))
        .header("Retry-After", "5").build();
  }
}
