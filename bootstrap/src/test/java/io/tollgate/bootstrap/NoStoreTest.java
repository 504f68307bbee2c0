package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.user.Permission;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No answer of the APIs may be kept by a browser or a proxy: they carry payments, customers and
 * card data. Every one says {@code Cache-Control: no-store}, a success as much as an error; so
 * does every page of the checkout, while its stylesheet may be cached.
 */
class NoStoreTest {

  static TestGateway gw;
  static String[] editor;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    editor = gw.merchantUser(gw.merchant, "editor@no-store.example", Permission.values());
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static void assertNoStore(Answer a, int status, String what) {
    assertThat(a.status()).as(what + " " + a.body()).isEqualTo(status);
    assertThat(a.header("Cache-Control")).as(what).isEqualTo("no-store");
  }

  @Test
  void every_answer_of_the_gateway_api_is_no_store() {
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":12.50,"currency":"EUR",
         "customer":{"referenceId":"c-1","email":"ann@example.com"},
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""");
    assertNoStore(created, 200, "POST /payments");
    String id = created.json().at("/result/id").asText();
    assertNoStore(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}",
        gw.apiKey, "no-store-1"), 200, "POST /payments with an Idempotency-Key");
    assertNoStore(gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}",
        gw.apiKey, "no-store-1"), 200, "a replayed POST /payments");
    assertNoStore(gw.get("/api/v1/payments"), 200, "GET /payments");
    assertNoStore(gw.get("/api/v1/payments/" + id), 200, "GET /payments/{id}");
    assertNoStore(gw.get("/api/v1/payments/" + id + "/operations"), 200, "GET /payments/{id}/operations");
    assertNoStore(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}"), 200, "PATCH /payments/{id}");
    assertNoStore(gw.get("/api/v1/balances"), 200, "GET /balances");
    assertNoStore(gw.get("/api/v1/available-withdrawal-balances"), 200, "GET /available-withdrawal-balances");

    assertNoStore(gw.get("/api/v1/payments/" + "0".repeat(32)), 404, "an unknown payment");
    assertNoStore(gw.get("/api/v1/payments", "wrong"), 401, "a wrong key");
    assertNoStore(gw.get("/api/v1/payments?limit=0"), 400, "a bad parameter");
  }

  @Test
  void every_answer_of_the_merchant_api_is_no_store() {
    gw.deposit("3.00", "EUR");
    for (String list : new String[] {"payments", "operations", "shops", "customers", "balances", "bin-groups",
        "shop-groups", "terminals"}) {
      assertNoStore(gw.merchantGet("/merchant-api/v1/" + list, editor), 200, "GET /" + list);
    }
    long bins = gw.app.services().groups().create(gw.merchant, GroupKind.BIN, "No-store BINs", false).id();
    String path = "/merchant-api/v1/bin-groups/" + bins;
    assertNoStore(gw.merchantPost(path + "/bins", "{\"bins\":[\"411111\"]}", editor), 201, "adding to a group");
    assertNoStore(gw.merchantGet(path, editor), 200, "one group's entries");
    assertNoStore(gw.send(HttpRequest.newBuilder(gw.uri(path + "/bins"))
        .method("DELETE", HttpRequest.BodyPublishers.ofString("{\"bins\":[\"411111\"]}"))
        .header("Content-Type", "application/json").header("Authorization", TestGateway.basic(editor))), 204,
        "removing from a group");

    assertNoStore(gw.merchantGet("/merchant-api/v1/bin-groups/999999999", editor), 404, "an unknown group");
    assertNoStore(gw.merchantGet("/merchant-api/v1/payments", new String[] {"nobody@no-store.example", "x"}), 401,
        "bad credentials");
  }

  @Test
  void the_checkout_pages_are_no_store_and_only_the_stylesheet_may_be_cached() {
    String id = gw.deposit("4.00", "EUR");
    Answer page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET());
    assertNoStore(page, 200, "the checkout page");
    assertThat(page.body()).contains("4.00 EUR");
    assertNoStore(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + "0".repeat(32))).GET()), 404,
        "an unknown payment's page");
    Answer css = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/assets/checkout.css")).GET());
    assertThat(css.status()).isEqualTo(200);
    assertThat(css.header("Cache-Control")).isEqualTo("public, max-age=3600");
  }
}
