package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.shop.Environment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The embedded database keeps its data in the data directory across restarts. */
class RestartTest {

  @Test
  void restarting_the_service_keeps_every_payment_and_key() throws Exception {
    Path data = ScratchDirectories.create("tollgate-restart");
    Map<String, String> env = Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
        "TOLLGATE_DATA_DIR", data.toString());
    HttpClient http = HttpClient.newHttpClient();
    String apiKey;
    String paymentId;
    try (Tollgate first = Tollgate.start(TollgateConfig.from(env))) {
      var demo = first.demo().orElseThrow();
      apiKey = demo.keys().apiKey();
      HttpResponse<String> created = OpenApiContract.checked(http.send(HttpRequest.newBuilder(URI.create(first.baseUri() + "/api/v1/payments"))
          .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\",\"amount\":7,\"currency\":\"EUR\"}"))
          .build(), HttpResponse.BodyHandlers.ofString()));
      assertThat(created.statusCode()).isEqualTo(200);
      paymentId = TestGateway.JSON.readTree(created.body()).at("/result/id").asText();
    }
    assertThat(data.resolve("master.key")).exists();

    try (Tollgate second = Tollgate.start(TollgateConfig.from(env))) {
      assertThat(second.demo()).as("the demo merchant is seeded only once").isEmpty();
      HttpResponse<String> read = OpenApiContract.checked(http.send(HttpRequest.newBuilder(
              URI.create(second.baseUri() + "/api/v1/payments/" + paymentId))
          .header("Authorization", "Bearer " + apiKey).GET().build(), HttpResponse.BodyHandlers.ofString()));
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(TestGateway.JSON.readTree(read.body()).at("/result/amount").decimalValue()).isEqualByComparingTo("7");
      assertThat(second.services().environment()).isEqualTo(Environment.SANDBOX);
    }
  }

  /**
   * The embedded PostgreSQL is a process of its own and outlives a service killed with SIGKILL.
   * The next start found the directory held by that server, waited a minute, and failed; only
   * the start after it worked. It now stops the server left behind and starts at once.
   */
  @Test
  void a_service_killed_with_sigkill_starts_again_on_its_data_at_the_first_try() throws Exception {
    Path data = ScratchDirectories.create("tollgate-killed");
    Map<String, String> env = WebhookReliabilityTest.instanceEnv(Map.of("TOLLGATE_DATA_DIR", data.toString()));
    HttpClient http = HttpClient.newHttpClient();
    Process first = WebhookReliabilityTest.startChild(env);
    String apiKey;
    String paymentId;
    try {
      WebhookReliabilityTest.Started started = WebhookReliabilityTest.awaitStarted(first);
      apiKey = started.apiKey();
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(started.base().resolve("/api/v1/payments"))
          .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"paymentType\":\"DEPOSIT\",\"amount\":9,\"currency\":\"EUR\"}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(200);
      paymentId = TestGateway.JSON.readTree(created.body()).at("/result/id").asText();
    } finally {
      first.destroyForcibly().waitFor();
    }
    assertThat(data.resolve("postgres").resolve("postmaster.pid")).as("its server outlived it").exists();

    Process second = WebhookReliabilityTest.startChild(env);
    try {
      long t0 = System.nanoTime();
      URI base = WebhookReliabilityTest.awaitStarted(second).base();
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - t0)).isLessThan(java.time.Duration.ofSeconds(45));
      HttpResponse<String> read = http.send(HttpRequest.newBuilder(base.resolve("/api/v1/payments/" + paymentId))
          .header("Authorization", "Bearer " + apiKey).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(read.statusCode()).isEqualTo(200);
    } finally {
      second.destroy();
      second.waitFor();
    }
  }
}
