package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Production refuses webhook and return URLs that point into private networks; sandbox allows them. */
class WebhookDestinationsTest {

  @Test
  void production_refuses_private_destinations_at_creation_and_stores_nothing() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_ENVIRONMENT", "production"))) {
      for (String url : new String[] {"http://127.0.0.1:9000/hook", "http://169.254.169.254/latest/meta-data",
          "http://10.20.30.40/hook", "http://[::1]/hook", "http://192.168.0.10/hook"}) {
        TestGateway.Answer a = gw.post("/api/v1/payments",
            "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",\"webhookUrl\":\"" + url + "\"}");
        assertThat(a.status()).as(url).isEqualTo(400);
        JsonNode error = a.json().get("errors").get(0);
        assertThat(error.get("field").asText()).isEqualTo("webhookUrl");
        assertThat(error.get("rejectedValue").asText()).isEqualTo(url);
        assertThat(error.get("message").asText()).contains("non-public");
      }
      TestGateway.Answer both = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":1,"currency":"EUR","webhookUrl":"http://127.0.0.1/a",
           "returnUrl":"http://127.0.0.1/back?id={id}"}""");
      assertThat(both.status()).isEqualTo(400);
      assertThat(both.json().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("webhookUrl", "returnUrl");
      assertThat(gw.countPayments()).isZero();

      TestGateway.Answer publicUrl = gw.post("/api/v1/payments",
          "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",\"webhookUrl\":\"https://93.184.215.14/hook\","
              + "\"returnUrl\":\"https://93.184.215.14/back/{id}\"}");
      assertThat(publicUrl.status()).as(publicUrl.body()).isEqualTo(200);
      assertThat(gw.countPayments()).isEqualTo(1);
    }
  }

  @Test
  void sandbox_allows_local_receivers() throws Exception {
    try (TestGateway gw = TestGateway.start()) {
      TestGateway.Answer a = gw.post("/api/v1/payments",
          "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",\"webhookUrl\":\"http://127.0.0.1:9000/hook\"}");
      assertThat(a.status()).isEqualTo(200);
    }
  }
}
