package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tollgate.rest.common.UnexpectedExceptionMapper;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What the operator reads of a request that failed in the database: a deadlock or serialization
 * failure between our own statements is a defect to look at, logged as an ERROR with its trace,
 * while the client is told to retry as when the database is out of reach, which is a WARN line.
 */
class UnexpectedErrorsTest {

  @Test
  void a_deadlock_is_a_503_to_retry_and_an_error_with_its_trace_for_the_operator() {
    for (String state : new String[] {"40P01", "40001"}) {
      List<ILoggingEvent> logged = new java.util.ArrayList<>();
      Response r = answered(new IllegalStateException("write failed", new SQLException("aborted", state)), logged);
      assertThat(r.getStatus()).as(state).isEqualTo(503);
      assertThat(r.getHeaderString("Retry-After")).isEqualTo("5");
      assertThat(logged).as(state).singleElement().satisfies(e -> {
        assertThat(e.getLevel()).isEqualTo(Level.ERROR);
        assertThat(e.getFormattedMessage()).contains("rolled back by the database");
        assertThat(e.getThrowableProxy()).isNotNull();
      });
    }
  }

  @Test
  void a_database_out_of_reach_is_a_503_and_a_warning_line() {
    List<ILoggingEvent> logged = new java.util.ArrayList<>();
    Response r = answered(new IllegalStateException(new SQLTransientConnectionException("pool timed out")), logged);
    assertThat(r.getStatus()).isEqualTo(503);
    assertThat(logged).singleElement().satisfies(e -> {
      assertThat(e.getLevel()).isEqualTo(Level.WARN);
      assertThat(e.getFormattedMessage()).contains("database unavailable");
    });
  }

  @Test
  void anything_else_is_a_500() {
    List<ILoggingEvent> logged = new java.util.ArrayList<>();
    Response r = answered(new IllegalStateException(new SQLException("constraint", "23505")), logged);
    assertThat(r.getStatus()).isEqualTo(500);
    assertThat(logged).singleElement().extracting(ILoggingEvent::getLevel).isEqualTo(Level.ERROR);
  }

  private static Response answered(Throwable e, List<ILoggingEvent> into) {
    Logger logger = (Logger) LoggerFactory.getLogger(UnexpectedExceptionMapper.class);
    ListAppender<ILoggingEvent> captured = OperabilityTest.capturing();
    captured.start();
    logger.addAppender(captured);
    try {
      return new UnexpectedExceptionMapper().toResponse(e);
    } finally {
      logger.detachAppender(captured);
      synchronized (captured) {
        into.addAll(captured.list);
      }
    }
  }
}
