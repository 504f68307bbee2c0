package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.Permission;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generated hostile input at every endpoint of both APIs and the checkout form: the 4xx the
 * contract names for it (JSON envelope for the APIs), never a 500, and nothing changed.
 */
class HostileInputTest {

  static TestGateway gw;
  static String[] user;
  /** A deposit with its card, waiting in CHECKOUT: a PATCH that got through would complete it. */
  static String deposit;
  /** A pre-authorised deposit: a capture that got through would complete it. */
  static String authorized;
  /** A withdrawal of {@link #approvalKey}'s shop waiting for approval: a reject would cancel it. */
  static String awaiting;
  static String approvalKey;
  static long binGroup;
  static long shopGroup;
  static final List<String> failures = new ArrayList<>();

  /** Values that break parsers, validators and renderers. */
  static final List<String> VALUES = List.of(
      "\"\"", "null", "true", "[]", "{}", "-1", "0", "1e400", "-1e400", "123456789012345678901234567890.123456789",
      "0.0000000001", "\"12.345\"", "\"abc\"", "\"" + "x".repeat(5000) + "\"", "\"\\u0000\\u0001\\u001f\"",
      "\"\\ud800\"", "\"'; DROP TABLE payments; --\"", "\"<script>alert(1)</script>\"", "\"${jndi:ldap://x/a}\"",
      "\"%00%0d%0aSet-Cookie: x=y\"", "\"../../etc/passwd\"", "\"\\u202e\\u0644\\u0639\"", "9223372036854775808",
      "[1,2,3]", "{\"a\":{\"b\":{\"c\":[]}}}");

  /** Bodies that are no JSON at all, or JSON the contract calls malformed: each a 400 saying so. */
  static final List<String> MALFORMED = List.of(
      "{", "}", "[", "{\"a\":1,\"a\":2}", "{\"paymentType\":\"DEPOSIT\"} trailing", "nul", "\u0000\u0001",
      "<xml/>", "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",}", "[" + "[".repeat(2000));

  /** No body to speak of: a 400 where a body is required, the action itself where it is optional. */
  static final List<String> BLANK = List.of("", " ");

  /** Over the 64 KiB limit: a 413. */
  static final String OVERSIZE = "{\"x\":\"" + "y".repeat(70_000) + "\"}";

  /**
   * An endpoint taking a body, the credentials it is sent with, a body it accepts and the 2xx it
   * answers that with, and whether it may be sent with no body at all.
   */
  record Endpoint(String method, String path, String auth, String valid, int accepted, boolean bodyOptional) {
    @Override
    public String toString() {
      return method + " " + path;
    }
  }

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    user = gw.merchantUser(gw.merchant, "hostile@shop.example", Permission.values());
    deposit = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", "10.00", false);
    authorized = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", "8.00", true);
    String authorizing = gw.patch("/api/v1/payments/" + authorized, "{\"customerIp\":\"203.0.113.9\"}")
        .json().at("/result/state").asText();
    assertThat(authorizing).isEqualTo("AUTHORIZED");
    ShopId approvalShop = gw.createShop(gw.merchant, "Approval shop", true);
    approvalKey = gw.issueKey(approvalShop, gw.app.services().environment());
    TestGateway.Answer withdrawal = gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":3.00,"
        + "\"currency\":\"EUR\",\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\","
        + "\"expiryYear\":\"2045\"}}", approvalKey, null);
    assertThat(withdrawal.json().at("/result/state").asText()).as(withdrawal.body()).isEqualTo("AWAITING_APPROVAL");
    awaiting = withdrawal.json().at("/result/id").asText();
    binGroup = gw.app.services().groups().create(gw.merchant, GroupKind.BIN, "h", false).id();
    shopGroup = gw.app.services().persistence().referenceData().createShopGroup(gw.merchant, "hostile", Instant.now());
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /**
   * Records a failure unless the answer's status is one of {@code expected}, an error in the
   * JSON envelope with nothing of our insides in it.
   */
  static void check(String what, TestGateway.Answer a, int... expected) {
    boolean ok = java.util.Arrays.stream(expected).anyMatch(s -> s == a.status());
    if (ok && a.status() >= 400) {
      try {
        JsonNode body = a.json();
        ok = body.get("status").asInt() == a.status() && body.has("error") && body.has("message") && body.has("path")
            && body.get("errors").isArray();
      } catch (AssertionError notJson) {
        ok = false;
      }
    }
    if (a.body() != null && (a.body().contains("Exception") || a.body().contains("at io.tollgate")
        || a.body().contains("org.postgresql"))) {
      ok = false;
    }
    if (!ok) {
      failures.add(what + " -> " + a.status() + " (expected " + java.util.Arrays.toString(expected) + ") "
          + (a.body() == null ? "" : a.body().substring(0, Math.min(300, a.body().length()))));
    }
  }

  /** {@link #check}, for a 400 whose message says the body is malformed JSON. */
  static void checkMalformed(String what, TestGateway.Answer a) {
    check(what, a, 400);
    if (a.status() == 400 && !a.json().get("message").asText().startsWith("Malformed JSON")) {
      failures.add(what + " -> 400 without saying the JSON is malformed: " + a.json().get("message").asText());
    }
  }

  static TestGateway.Answer send(String method, String path, String body, String auth, String contentType) {
    HttpRequest.Builder b = HttpRequest.newBuilder(gw.uri(path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (auth != null) {
      b.header("Authorization", auth);
    }
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    return gw.send(b);
  }

  static String state(String id, String key) {
    return gw.get("/api/v1/payments/" + id, key).json().at("/result/state").asText();
  }

  static int operations(String id, String key) {
    return gw.get("/api/v1/payments/" + id + "/operations", key).json().get("result").size();
  }

  @Test
  void every_api_endpoint_answers_hostile_bodies_with_its_4xx_envelope_and_changes_nothing() {
    String bearer = "Bearer " + gw.apiKey;
    String basic = TestGateway.basic(user);
    String bins = "/merchant-api/v1/bin-groups/" + binGroup + "/bins";
    String shops = "/merchant-api/v1/shop-groups/" + shopGroup + "/shops";
    String shopList = "{\"shops\":[" + gw.shop.value() + "]}";
    List<Endpoint> endpoints = List.of(
        new Endpoint("POST", "/api/v1/payments", bearer,
            "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\"}", 200, false),
        new Endpoint("PATCH", "/api/v1/payments/" + deposit, bearer, "{\"customerIp\":\"203.0.113.9\"}", 200, false),
        new Endpoint("POST", "/api/v1/payments/" + authorized + "/capture", bearer, "{\"amount\":8.00}", 200, true),
        new Endpoint("POST", "/api/v1/payments/" + awaiting + "/reject", "Bearer " + approvalKey,
            "{\"rejectReason\":\"checked\"}", 200, true),
        new Endpoint("POST", bins, basic, "{\"bins\":[\"400000\"]}", 201, false),
        new Endpoint("DELETE", bins, basic, "{\"bins\":[\"400000\"]}", 204, false),
        new Endpoint("POST", shops, basic, shopList, 201, false),
        new Endpoint("DELETE", shops, basic, shopList, 204, false));
    int payments = gw.countPayments();
    int authorizedOperations = operations(authorized, gw.apiKey);
    int awaitingOperations = operations(awaiting, approvalKey);
    for (Endpoint e : endpoints) {
      for (String body : MALFORMED) {
        checkMalformed(e + " body=" + abbreviate(body), send(e.method(), e.path(), body, e.auth(), "application/json"));
      }
      if (!e.bodyOptional()) {
        for (String body : BLANK) {
          check(e + " body='" + body + "'", send(e.method(), e.path(), body, e.auth(), "application/json"), 400);
        }
      }
      check(e + " oversize body", send(e.method(), e.path(), OVERSIZE, e.auth(), "application/json"), 413);
      check(e + " form body", send(e.method(), e.path(), "a=1", e.auth(), "application/x-www-form-urlencoded"), 415);
    }
    Random random = new Random(42);
    String[] fields = {"paymentType", "amount", "currency", "referenceId", "description", "paymentMethod", "card",
        "customer", "billingAddress", "returnUrl", "webhookUrl", "preAuth", "parentPaymentId", "additionalParameters"};
    for (int i = 0; i < 600; i++) {
      StringBuilder body = new StringBuilder("{");
      int n = 1 + random.nextInt(4);
      for (int f = 0; f < n; f++) {
        body.append(f == 0 ? "" : ",").append('"').append(fields[random.nextInt(fields.length)]).append("\":")
            .append(VALUES.get(random.nextInt(VALUES.size())));
      }
      String json = body.append('}').toString();
      check("POST /api/v1/payments " + abbreviate(json), send("POST", "/api/v1/payments", json, bearer,
          "application/json"), 400);
    }
    for (String value : VALUES) {
      String raw = value.replace("\"", "");
      String entries = "{\"bins\":[" + value + "]}";
      check("bins " + abbreviate(entries), send("POST", bins, entries, basic, "application/json"), 400);
      check("shops " + abbreviate(value), send("POST", shops, "{\"shops\":[" + value + "]}", basic,
          "application/json"), 400);
      check("patch ip " + abbreviate(value), send("PATCH", "/api/v1/payments/" + deposit,
          "{\"customerIp\":" + value + "}", bearer, "application/json"), 400);
      for (String param : new String[] {"offset", "limit", "created.gte", "referenceId.eq"}) {
        String q = "?" + param + "=" + URLEncoder.encode(raw.length() > 300 ? raw.substring(0, 300) : raw,
            StandardCharsets.UTF_8);
        check("GET /api/v1/payments" + abbreviate(q), send("GET", "/api/v1/payments" + q, null, bearer, null), 200,
            400);
        check("GET /merchant-api/v1/payments" + abbreviate(q), send("GET", "/merchant-api/v1/payments"
            + q.replace("referenceId.eq", "created.lt"), null, basic, null), 200, 400);
      }
    }
    // the gateway reads a body of no declared type as JSON: this one lacks the required fields
    check("no content type", send("POST", "/api/v1/payments", "{}", bearer, null), 400);
    check("header abuse", send("GET", "/api/v1/payments", null, "Bearer " + "k".repeat(6000), null), 401);
    check("bad basic", send("GET", "/merchant-api/v1/shops", null, "Basic %%%not-base64", null), 401);
    check("basic without colon", send("GET", "/merchant-api/v1/shops", null, "Basic "
        + java.util.Base64.getEncoder().encodeToString("nocolon".getBytes(StandardCharsets.UTF_8)), null), 401);
    check("unknown method", send("PROPFIND", "/api/v1/payments", null, bearer, null), 405);

    assertThat(failures).isEmpty();
    assertThat(gw.countPayments()).as("no payment was created").isEqualTo(payments);
    assertThat(state(deposit, gw.apiKey)).isEqualTo("CHECKOUT");
    assertThat(gw.get("/api/v1/payments/" + deposit + "/operations").json().get("result").findValuesAsText("operation"))
        .as("the deposit was not executed").containsExactly("CREATE_PAYMENT");
    assertThat(state(authorized, gw.apiKey)).isEqualTo("AUTHORIZED");
    assertThat(operations(authorized, gw.apiKey)).as("the pre-auth was not captured").isEqualTo(authorizedOperations);
    assertThat(state(awaiting, approvalKey)).isEqualTo("AWAITING_APPROVAL");
    assertThat(operations(awaiting, approvalKey)).as("the withdrawal was not rejected").isEqualTo(awaitingOperations);
    assertThat(gw.merchantGet("/merchant-api/v1/bin-groups/" + binGroup, user).json().get("result"))
        .as("the BIN group is still empty").isEmpty();
    assertThat(gw.merchantGet("/merchant-api/v1/shop-groups/" + shopGroup, user).json().at("/result/shops"))
        .as("the shop group is still empty").isEmpty();

    // the same credentials and paths take a good body: the refusals above were the bodies' doing
    for (Endpoint e : endpoints) {
      TestGateway.Answer a = send(e.method(), e.path(), e.valid(), e.auth(), "application/json");
      assertThat(a.status()).as(e + " " + a.body()).isEqualTo(e.accepted());
    }
    assertThat(state(deposit, gw.apiKey)).isEqualTo("COMPLETED");
    assertThat(state(authorized, gw.apiKey)).isEqualTo("COMPLETED");
    assertThat(state(awaiting, approvalKey)).isEqualTo("CANCELLED");
  }

  @Test
  void the_checkout_form_refuses_hostile_input_and_escapes_what_it_echoes() {
    String id = gw.deposit("5.00", "EUR");
    String page = send("GET", "/checkout/" + id, null, null, null).body();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(m.find()).isTrue();
    String csrf = m.group(1);
    Random random = new Random(7);
    for (int i = 0; i < 80; i++) {
      String hostile = VALUES.get(random.nextInt(VALUES.size())).replace("\"", "");
      String form = "csrf=" + csrf + "&cardNumber=" + URLEncoder.encode(hostile, StandardCharsets.UTF_8)
          + "&cardholderName=" + URLEncoder.encode("<b onmouseover=alert(1)>" + hostile, StandardCharsets.UTF_8)
          + "&expiryMonth=" + URLEncoder.encode(hostile, StandardCharsets.UTF_8) + "&expiryYear=99&cardSecurityCode=x";
      TestGateway.Answer a = gw.refusedFormPage(
          send("POST", "/checkout/" + id, form, null, "application/x-www-form-urlencoded"));
      assertThat(a.status()).as(form).isEqualTo(200);
      assertThat(a.body()).contains("aria-invalid").doesNotContain("<b onmouseover")
          .doesNotContain("<script>alert(1)</script>");
    }
    TestGateway.Answer garbage = send("POST", "/checkout/" + id, "%%%&&&==", null, "application/x-www-form-urlencoded");
    assertThat(garbage.status()).isBetween(400, 499);
    assertThat(gw.get("/api/v1/payments/" + id).json().at("/result/state").asText()).isEqualTo("CHECKOUT");
  }

  static String abbreviate(String s) {
    return s.length() > 120 ? s.substring(0, 120) + "…" : s;
  }
}
