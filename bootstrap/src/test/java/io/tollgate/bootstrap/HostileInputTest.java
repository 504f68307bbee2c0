package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.domain.user.Permission;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generated hostile input at every endpoint of both APIs and the checkout form: always a 4xx
 * (JSON envelope for the APIs), never a 500, and nothing stored.
 */
class HostileInputTest {

  static TestGateway gw;
  static String[] user;
  static String deposit;
  static long binGroup;
  static final List<String> failures = new ArrayList<>();

  /** Values that break parsers, validators and renderers. */
  static final List<String> VALUES = List.of(
      "\"\"", "null", "true", "[]", "{}", "-1", "0", "1e400", "-1e400", "123456789012345678901234567890.123456789",
      "0.0000000001", "\"12.345\"", "\"abc\"", "\"" + "x".repeat(5000) + "\"", "\"\\u0000\\u0001\\u001f\"",
      "\"\\ud800\"", "\"'; DROP TABLE payments; --\"", "\"<script>alert(1)</script>\"", "\"${jndi:ldap://x/a}\"",
      "\"%00%0d%0aSet-Cookie: x=y\"", "\"../../etc/passwd\"", "\"\\u202e\\u0644\\u0639\"", "9223372036854775808",
      "[1,2,3]", "{\"a\":{\"b\":{\"c\":[]}}}");

  /** Whole bodies that are not what any endpoint expects. */
  static final List<String> BODIES = List.of(
      "", " ", "{", "}", "[", "{\"a\":1,\"a\":2}", "{\"paymentType\":\"DEPOSIT\"} trailing", "nul", "\u0000\u0001",
      "<xml/>", "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",}", "[" + "[".repeat(2000),
      "{\"x\":\"" + "y".repeat(70_000) + "\"}");

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    user = gw.merchantUser(gw.merchant, "hostile@shop.example", Permission.values());
    deposit = gw.deposit("10.00", "EUR");
    binGroup = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.BIN, "h", false).id();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static void check(String what, TestGateway.Answer a, boolean json) {
    boolean ok = a.status() >= 400 && a.status() < 500;
    if (ok && json) {
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
      failures.add(what + " -> " + a.status() + " " + (a.body() == null ? "" : a.body().substring(0, Math.min(300,
          a.body().length()))));
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

  @Test
  void every_api_endpoint_answers_hostile_bodies_with_a_4xx_envelope_and_stores_nothing() {
    String bearer = "Bearer " + gw.apiKey;
    String basic = TestGateway.basic(user);
    List<String[]> endpoints = List.of(
        new String[] {"POST", "/api/v1/payments", bearer},
        new String[] {"PATCH", "/api/v1/payments/" + deposit, bearer},
        new String[] {"POST", "/api/v1/payments/" + deposit + "/capture", bearer},
        new String[] {"POST", "/api/v1/payments/" + deposit + "/reject", bearer},
        new String[] {"POST", "/merchant-api/v1/bin-groups/" + binGroup + "/bins", basic},
        new String[] {"DELETE", "/merchant-api/v1/bin-groups/" + binGroup + "/bins", basic},
        new String[] {"POST", "/merchant-api/v1/shop-groups/1/shops", basic});
    int payments = gw.countPayments();
    for (String[] e : endpoints) {
      for (String body : BODIES) {
        check(e[0] + " " + e[1] + " body=" + abbreviate(body), send(e[0], e[1], body, e[2], "application/json"), true);
      }
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
      TestGateway.Answer a = send("POST", "/api/v1/payments", json, bearer, "application/json");
      if (a.status() != 200) {
        check("POST /api/v1/payments " + abbreviate(json), a, true);
      } else {
        failures.add("accepted garbage: " + abbreviate(json));
      }
    }
    for (String value : VALUES) {
      String raw = value.replace("\"", "");
      String bins = "{\"bins\":[" + value + "]}";
      check("bins " + abbreviate(bins), send("POST", "/merchant-api/v1/bin-groups/" + binGroup + "/bins", bins, basic,
          "application/json"), true);
      check("patch ip " + abbreviate(value), send("PATCH", "/api/v1/payments/" + deposit,
          "{\"customerIp\":" + value + "}", bearer, "application/json"), true);
      for (String param : new String[] {"offset", "limit", "created.gte", "referenceId.eq"}) {
        String q = "?" + param + "=" + URLEncoder.encode(raw.length() > 300 ? raw.substring(0, 300) : raw,
            StandardCharsets.UTF_8);
        TestGateway.Answer a = send("GET", "/api/v1/payments" + q, null, bearer, null);
        if (a.status() != 200) {
          check("GET /api/v1/payments" + abbreviate(q), a, true);
        }
        TestGateway.Answer m = send("GET", "/merchant-api/v1/payments" + q.replace("referenceId.eq", "created.lt"),
            null, basic, null);
        if (m.status() != 200) {
          check("GET /merchant-api/v1/payments" + abbreviate(q), m, true);
        }
      }
    }
    check("wrong content type", send("POST", "/api/v1/payments", "amount=1", bearer, "application/x-www-form-urlencoded"),
        true);
    check("no content type", send("POST", "/api/v1/payments", "{}", bearer, null), true);
    check("header abuse", send("GET", "/api/v1/payments", null, "Bearer " + "k".repeat(6000), null), true);
    check("bad basic", send("GET", "/merchant-api/v1/shops", null, "Basic %%%not-base64", null), true);
    check("basic without colon", send("GET", "/merchant-api/v1/shops", null, "Basic "
        + java.util.Base64.getEncoder().encodeToString("nocolon".getBytes(StandardCharsets.UTF_8)), null), true);
    check("unknown method", send("PROPFIND", "/api/v1/payments", null, bearer, null), true);

    assertThat(failures).isEmpty();
    assertThat(gw.countPayments()).as("nothing was stored").isEqualTo(payments);
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
