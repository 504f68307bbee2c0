package io.tollgate.rest.common;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.uri.UriTemplate;

/**
 * {@code http.server.requests}: one timer per API, method, route template (never the raw path,
 * so ids do not explode the series) and status.
 */
@PreMatching
public final class RequestMetricsFilter implements ContainerRequestFilter, ContainerResponseFilter {

  private static final String STARTED = "tollgate.metrics.started";

  private final MeterRegistry registry;
  private final String api;

  public RequestMetricsFilter(MeterRegistry registry, String api) {
    this.registry = registry;
    this.api = api;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    request.setProperty(STARTED, System.nanoTime());
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    Object started = request.getProperty(STARTED);
    if (!(started instanceof Long t0)) {
      return;
    }
    Timer.builder("http.server.requests")
        .description("HTTP requests by API, route template and status")
        .tags("api", api, "method", request.getMethod(), "route", route(request),
            "status", Integer.toString(response.getStatus()))
        .publishPercentileHistogram()
        .register(registry)
        .record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
  }

  private static String route(ContainerRequestContext request) {
    if (!(request.getUriInfo() instanceof ExtendedUriInfo info)) {
      return "UNKNOWN";
    }
    List<UriTemplate> templates = info.getMatchedTemplates();
    if (templates.isEmpty()) {
      return "UNMATCHED";
    }
    StringBuilder route = new StringBuilder();
    for (int i = templates.size() - 1; i >= 0; i--) {
      String t = templates.get(i).getTemplate();
      if (!t.isEmpty() && !t.equals("/")) {
        route.append(t.startsWith("/") ? "" : "/").append(t);
      }
    }
    return route.length() == 0 ? "/" : route.toString().replaceAll("/+", "/");
  }
}
