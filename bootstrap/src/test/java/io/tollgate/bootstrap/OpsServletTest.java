package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.rest.common.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/** The readiness answer, whatever its checks say: a JSON body a probe or an operator's tool can read. */
class OpsServletTest {

  /** Flyway's messages span lines; a check's problem may hold any character. */
  @Test
  void a_problem_with_line_breaks_quotes_and_control_characters_is_valid_json() throws Exception {
    String problem = "cannot read the migration history: a\nb\r\n\t\"quoted\" \\ \u0001 end";
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(new OpsServlet(null, List.of(
        new OpsServlet.Check("database", () -> null),
        new OpsServlet.Check("migrations", () -> problem)))), "/health/*");
    server.setHandler(context);
    server.start();
    try {
      HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/health/ready")).build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t)
          .startsWith("application/json"));
      JsonNode body = Json.MAPPER.readTree(answer.body());
      assertThat(body.get("status").asText()).isEqualTo("DOWN");
      assertThat(body.at("/checks/database").asText()).isEqualTo("UP");
      assertThat(body.at("/checks/migrations").asText()).isEqualTo(problem);
    } finally {
      server.stop();
    }
  }
}
