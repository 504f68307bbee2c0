package io.tollgate.bootstrap;

import io.tollgate.rest.common.Json;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Operators' endpoints: {@code /health/live} (the process answers), {@code /health/ready}
 * (database reachable, migrations applied, webhook dispatcher running; 503 otherwise) and
 * {@code /metrics} (Prometheus text format).
 */
final class OpsServlet extends ReadOnlyServlet {

  static final String LIVE = "/health/live";
  static final String READY = "/health/ready";
  static final String METRICS = "/metrics";
  /** The paths answered, as requested: orchestrators and scrapers poll them, and no limit holds them back. */
  static final java.util.Set<String> PATHS = java.util.Set.of(LIVE, READY, METRICS);

  /** One readiness check: null when fine, else what is wrong. */
  record Check(String name, Supplier<String> problem) {}

  private final transient Observability observability;
  private final transient java.util.List<Check> checks;

  OpsServlet(Observability observability, java.util.List<Check> checks) {
    this.observability = observability;
    this.checks = checks;
  }

  @Override
  boolean serves(String path) {
    return PATHS.contains(path);
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String path = request.getRequestURI();
    response.setHeader("Cache-Control", "no-store");
    switch (path) {
      case LIVE -> json(response, 200, "{\"status\":\"UP\"}");
      case READY -> ready(response);
      case METRICS -> {
        response.setStatus(200);
        response.setContentType("text/plain; version=0.0.4; charset=utf-8");
        response.getOutputStream().write(observability.scrape().getBytes(StandardCharsets.UTF_8));
      }
      default -> response.sendError(404);
    }
  }

  private void ready(HttpServletResponse response) throws IOException {
    Map<String, String> results = new LinkedHashMap<>();
    boolean up = true;
    for (Check c : checks) {
      String problem;
      try {
        problem = c.problem().get();
      } catch (RuntimeException e) {
        problem = e.toString();
      }
      results.put(c.name(), problem == null ? "UP" : problem);
      up &= problem == null;
    }
    // Jackson, not text put together: a problem is an exception's message, which may span lines
    // (Flyway's do) or hold control characters, and a body that does not parse tells no one why
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", up ? "UP" : "DOWN");
    body.put("checks", results);
    json(response, up ? 200 : 503, Json.MAPPER.writeValueAsString(body));
  }

  private static void json(HttpServletResponse response, int status, String body) throws IOException {
    response.setStatus(status);
    response.setContentType("application/json");
    response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
  }
}
