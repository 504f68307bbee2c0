package io.tollgate.bootstrap;

import io.tollgate.rest.common.RequestMetricsFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Counts in {@code http.server.requests} the requests of an API that the API's own filter never
 * saw: refused by a servlet filter in front of it (the rate limit's 429, a malformed header's
 * 400, a wait for a large page given up) or by the container (a path no API serves). An operator
 * alerting on the rate of 429s saw none of them.
 */
final class RefusedRequestMetrics implements Filter {

  private final RequestMetricsFilter metrics;

  RefusedRequestMetrics(RequestMetricsFilter metrics) {
    this.metrics = metrics;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    long started = System.nanoTime();
    boolean failed = true;
    try {
      chain.doFilter(req, res);
      failed = false;
    } finally {
      if (req.getAttribute(RequestMetricsFilter.STARTED) == null) {
        // an exception thrown through here is answered 500 by the container's error handler
        metrics.recordRefused(((HttpServletRequest) req).getMethod(),
            failed ? 500 : ((HttpServletResponse) res).getStatus(), System.nanoTime() - started);
      }
    }
  }
}
