package io.tollgate.bootstrap;

import io.tollgate.rest.common.RequestMetricsFilter;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Counts in {@code http.server.requests} the refusals of an API's requests that the API's own
 * filter never saw: the body reader's (a body over the limit refused by its declared length, one
 * too slow, too many bodies at once), the rate limit's 429, a malformed header's 400, a wait for a
 * large page given up, a path no API serves. An operator alerting on the rate of 429s, 413s or
 * 503s saw none of them. What the API answered, it counted itself; an answer below 400 that it
 * did not give (the OpenAPI documents) is no refusal, and is not counted here.
 */
final class RefusedRequestMetrics extends Handler.Wrapper {

  private final RequestMetricsFilter gateway;
  private final RequestMetricsFilter merchant;

  RefusedRequestMetrics(Handler next, RequestMetricsFilter gateway, RequestMetricsFilter merchant) {
    super(next);
    this.gateway = gateway;
    this.merchant = merchant;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = Request.getPathInContext(request);
    RequestMetricsFilter api = path.startsWith("/api/") ? gateway : path.startsWith("/merchant-api/") ? merchant : null;
    if (api == null) {
      return super.handle(request, response, callback);
    }
    long started = System.nanoTime();
    return super.handle(request, response, new Callback.Nested(callback) {
      @Override
      public void succeeded() {
        count(response.getStatus());
        super.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        // a response that could not be completed: the connection is gone, whatever it said
        count(response.isCommitted() ? response.getStatus() : 500);
        super.failed(x);
      }

      private void count(int status) {
        if (status >= 400 && request.getAttribute(RequestMetricsFilter.STARTED) == null) {
          api.recordRefused(request.getMethod(), status, System.nanoTime() - started);
        }
      }
    });
  }
}
