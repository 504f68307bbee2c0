package io.tollgate.rest.common;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.uri.UriTemplate;

/**
 * {@code http.server.requests}: one timer per API, method (HTTP's own, any other as
 * {@code OTHER}), route template (never the raw path, so ids do not explode the series) and
 * status. A request refused before a route was matched is counted under {@value #UNMATCHED}.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 200) // before the body limit, whose 413 is counted too
public final class RequestMetricsFilter implements ContainerRequestFilter, ContainerResponseFilter {

  /**
   * The request property (a servlet request attribute under Jersey's servlet container) that
   * says this filter has the request: one refused before it ({@link #recordRefused}) has not.
   */
  public static final String STARTED = "tollgate.metrics.started";
  public static final String UNMATCHED = "UNMATCHED";

  private static final int MAX_CACHED_SERIES = 1_000;
  private static final Pattern SLASHES = Pattern.compile("/+");

  private final MeterRegistry registry;
  private final String api;
  private final Map<SeriesKey, Timer> timers = new ConcurrentHashMap<>();
  private final Map<List<UriTemplate>, String> routes = new ConcurrentHashMap<>();

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
    timer(HttpMethods.label(request.getMethod()), route(request), response.getStatus())
        .record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
  }

  /** Counts a request of this API answered before it reached this filter (a rate limit's 429). */
  public void recordRefused(String method, int status, long nanos) {
    timer(HttpMethods.label(method), UNMATCHED, status).record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * The timer of one series. Looking it up through Micrometer's builder costs a sorted tag set
   * and a registry lookup per request; the series are few (the API's routes, methods and
   * statuses), so each instance keeps the ones it has seen, up to a bound past which (odd
   * methods or statuses sent on purpose) it goes back to the builder.
   */
  private Timer timer(String method, String route, int status) {
    SeriesKey key = new SeriesKey(method, route, status);
    Timer timer = timers.get(key);
    if (timer == null) {
      timer = Timer.builder("http.server.requests")
          .description("HTTP requests by API, route template and status")
          .tags("api", api, "method", method, "route", route, "status", Integer.toString(status))
          .publishPercentileHistogram()
          .register(registry);
      if (timers.size() < MAX_CACHED_SERIES) {
        timers.putIfAbsent(key, timer);
      }
    }
    return timer;
  }

  private String route(ContainerRequestContext request) {
    if (!(request.getUriInfo() instanceof ExtendedUriInfo info)) {
      return "UNKNOWN";
    }
    List<UriTemplate> templates = info.getMatchedTemplates();
    if (templates.isEmpty()) {
      return UNMATCHED;
    }
    // Matched templates come from the resource classes, so they are few and each is named once.
    String route = routes.get(templates);
    if (route == null) {
      route = routeOf(templates);
      if (routes.size() < MAX_CACHED_SERIES) {
        routes.putIfAbsent(List.copyOf(templates), route);
      }
    }
    return route;
  }

  private static String routeOf(List<UriTemplate> templates) {
    StringBuilder route = new StringBuilder();
    for (int i = templates.size() - 1; i >= 0; i--) {
      String t = templates.get(i).getTemplate();
      if (!t.isEmpty() && !t.equals("/")) {
        route.append(t.startsWith("/") ? "" : "/").append(t);
      }
    }
    return route.length() == 0 ? "/" : SLASHES.matcher(route).replaceAll("/");
  }

  private record SeriesKey(String method, String route, int status) {}
}
