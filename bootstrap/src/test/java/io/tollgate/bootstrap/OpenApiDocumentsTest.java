package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import io.tollgate.bootstrap.TestGateway.Answer;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The OpenAPI documents: served, valid OpenAPI 3.1, in step with the resource classes, and
 * strict enough that {@link OpenApiContract} (which every REST test's answers pass through)
 * catches a field, a status or a path that the code adds without the document.
 */
class OpenApiDocumentsTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static Answer anonymous(String path) {
    return gw.send(HttpRequest.newBuilder(gw.uri(path)).GET());
  }

  @ParameterizedTest
  @ValueSource(strings = {"/api/v1/openapi.json", "/merchant-api/v1/openapi.json"})
  void each_document_is_served_without_credentials_and_is_valid_openapi_3_1(String path) {
    Answer a = anonymous(path);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.header("Content-Type")).startsWith("application/json");
    assertThat(a.header("Cache-Control")).as("a client asks again after an upgrade").isEqualTo("no-cache");
    assertThat(a.json().get("openapi").asText()).isEqualTo("3.1.0");
    assertThat(a.json().at("/servers/0/url").asText()).isEqualTo(path.replace("/openapi.json", ""));

    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    SwaggerParseResult parsed = new OpenAPIParser().readContents(a.body(), null, options);
    assertThat(parsed.getMessages()).as("problems the OpenAPI parser finds").isEmpty();
    assertThat(parsed.getOpenAPI().getPaths()).isNotEmpty();
  }

  @Test
  void every_resource_method_is_documented_and_every_documented_operation_exists() {
    check(OpenApiContract.INSTANCE.gateway.document(), List.of(io.tollgate.rest.gateway.PaymentResource.class,
        io.tollgate.rest.gateway.PaymentActionsResource.class, io.tollgate.rest.gateway.BalanceResource.class));
    check(OpenApiContract.INSTANCE.merchant.document(), List.of(io.tollgate.rest.merchant.GroupResource.class,
        io.tollgate.rest.merchant.WebhookLogResource.class, io.tollgate.rest.merchant.ReferenceDataResource.class,
        io.tollgate.rest.merchant.MerchantListsResource.class, io.tollgate.rest.merchant.MerchantRecordsResource.class));
  }

  private static void check(JsonNode document, List<Class<?>> resources) {
    List<String> code = new ArrayList<>();
    for (Class<?> resource : resources) {
      for (Method m : resource.getDeclaredMethods()) {
        String verb = httpMethod(m);
        if (verb == null) {
          continue;
        }
        String classPath = resource.getAnnotation(Path.class).value();
        String methodPath = m.isAnnotationPresent(Path.class) ? m.getAnnotation(Path.class).value() : "";
        for (String template : expand(classPath + "/" + methodPath)) {
          code.add(verb + " " + template);
        }
      }
    }
    List<String> documented = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = document.get("paths").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> path = it.next();
      path.getValue().fieldNames().forEachRemaining(verb -> {
        if (List.of("get", "post", "put", "patch", "delete").contains(verb)) {
          documented.add(verb.toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
        }
      });
    }
    for (String op : code) {
      assertThat(documented).as("the document describes " + op).anyMatch(d -> sameOperation(op, d));
    }
    for (String op : documented) {
      assertThat(code).as("the code serves " + op).anyMatch(c -> sameOperation(c, op));
    }
  }

  @Test
  void every_query_parameter_the_code_reads_is_a_documented_parameter_of_its_operation() {
    checkQueryParameters(OpenApiContract.INSTANCE.gateway.document(), List.of(
        io.tollgate.rest.gateway.PaymentResource.class, io.tollgate.rest.gateway.PaymentActionsResource.class,
        io.tollgate.rest.gateway.BalanceResource.class));
    checkQueryParameters(OpenApiContract.INSTANCE.merchant.document(), List.of(
        io.tollgate.rest.merchant.GroupResource.class, io.tollgate.rest.merchant.WebhookLogResource.class,
        io.tollgate.rest.merchant.ReferenceDataResource.class, io.tollgate.rest.merchant.MerchantListsResource.class,
        io.tollgate.rest.merchant.MerchantRecordsResource.class));
  }

  private static void checkQueryParameters(JsonNode document, List<Class<?>> resources) {
    for (Class<?> resource : resources) {
      for (Method m : resource.getDeclaredMethods()) {
        String verb = httpMethod(m);
        if (verb == null) {
          continue;
        }
        List<String> read = new ArrayList<>();
        for (Annotation[] annotations : m.getParameterAnnotations()) {
          for (Annotation a : annotations) {
            if (a instanceof jakarta.ws.rs.QueryParam q) {
              read.add(q.value());
            }
          }
        }
        String classPath = resource.getAnnotation(Path.class).value();
        String methodPath = m.isAnnotationPresent(Path.class) ? m.getAnnotation(Path.class).value() : "";
        for (String template : expand(classPath + "/" + methodPath)) {
          String op = verb + " " + template;
          for (Iterator<Map.Entry<String, JsonNode>> it = document.get("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            String lower = verb.toLowerCase(java.util.Locale.ROOT);
            if (!path.getValue().has(lower) || !sameOperation(op, verb + " " + path.getKey())) {
              continue;
            }
            JsonNode operation = path.getValue().get(lower);
            List<String> documented = new ArrayList<>();
            for (JsonNode list : List.of(path.getValue().path("parameters"), operation.path("parameters"))) {
              list.forEach(p -> documented.add(resolve(document, p).path("name").asText()));
            }
            String says = operation.path("description").asText("");
            for (String name : read) {
              if (says.contains("`" + name + "`") && says.contains("are not parameters here")) {
                continue;
              }
              assertThat(documented).as(op + " documents its query parameter " + name).contains(name);
            }
          }
        }
      }
    }
  }

  private static JsonNode resolve(JsonNode document, JsonNode node) {
    String ref = node.path("$ref").asText(null);
    return ref == null ? node : document.at(ref.substring(1));
  }

  private static String httpMethod(Method m) {
    for (Annotation a : m.getAnnotations()) {
      HttpMethod verb = a.annotationType().getAnnotation(HttpMethod.class);
      if (verb != null) {
        return verb.value();
      }
    }
    return null;
  }

  /** {@code /{c: a|b}/x} becomes {@code /a/x} and {@code /b/x}; doubled and trailing slashes go. */
  private static List<String> expand(String raw) {
    String path = ("/" + raw).replaceAll("/+", "/").replaceAll("(.)/$", "$1");
    java.util.regex.Matcher alternatives = java.util.regex.Pattern.compile("\\{\\w+:\\s*([^}]+)}").matcher(path);
    if (!alternatives.find()) {
      return List.of(path);
    }
    List<String> all = new ArrayList<>();
    for (String choice : alternatives.group(1).split("\\|")) {
      all.addAll(expand(path.substring(0, alternatives.start()) + choice.strip() + path.substring(alternatives.end())));
    }
    return all;
  }

  /** Same verb and, segment by segment, equal literals or a parameter on either side. */
  private static boolean sameOperation(String a, String b) {
    String[] x = a.split(" ", 2);
    String[] y = b.split(" ", 2);
    if (!x[0].equals(y[0])) {
      return false;
    }
    String[] xs = x[1].split("/");
    String[] ys = y[1].split("/");
    if (xs.length != ys.length) {
      return false;
    }
    for (int i = 0; i < xs.length; i++) {
      if (!xs[i].equals(ys[i]) && !xs[i].startsWith("{") && !ys[i].startsWith("{")) {
        return false;
      }
    }
    return true;
  }

  @Test
  void the_contract_check_catches_an_undocumented_field_a_missing_field_a_wrong_type_and_an_unknown_status() {
    OpenApiContract contract = OpenApiContract.INSTANCE;
    String id = gw.deposit("10.00", "EUR");
    Answer real = gw.get("/api/v1/payments/" + id);
    String path = "/api/v1/payments/" + id;
    assertThat(contract.problems("GET", path, 200, "application/json", real.body())).isEmpty();

    String extraField = real.body().replace("\"state\":", "\"secretField\":1,\"state\":");
    assertThat(contract.problems("GET", path, 200, "application/json", extraField))
        .anyMatch(p -> p.contains("secretField"));
    String noState = real.body().replaceAll("\"state\":\"[A-Z_]+\",", "");
    assertThat(contract.problems("GET", path, 200, "application/json", noState)).anyMatch(p -> p.contains("state"));
    String stringAmount = real.body().replace("\"amount\":10.00", "\"amount\":\"10.00\"");
    assertThat(stringAmount).isNotEqualTo(real.body());
    assertThat(contract.problems("GET", path, 200, "application/json", stringAmount)).anyMatch(p -> p.contains("amount"));
    String unknownState = real.body().replaceAll("\"state\":\"[A-Z_]+\"", "\"state\":\"LOST\"");
    assertThat(contract.problems("GET", path, 200, "application/json", unknownState)).isNotEmpty();

    assertThat(contract.problems("GET", path, 201, "application/json", real.body()))
        .anyMatch(p -> p.contains("status 201 is not documented"));
    assertThat(contract.problems("GET", "/api/v1/payouts", 200, "application/json", real.body()))
        .anyMatch(p -> p.contains("not in the OpenAPI document"));
    assertThat(contract.problems("GET", path, 404, "application/json", "{\"status\":404}")).isNotEmpty();
    assertThat(contract.problems("POST", "/merchant-api/v1/bin-groups/1/bins", 201, null, "{\"id\":1}"))
        .anyMatch(p -> p.contains("promises no body"));
  }

  private static JsonNode gatewaySchema(String name) {
    return OpenApiContract.INSTANCE.gateway.document().at("/components/schemas/" + name);
  }

  private static JsonNode operation(JsonNode document, String path, String verb) {
    return document.at("/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + verb);
  }

  private static List<String> errorFields(Answer a) {
    List<String> fields = new ArrayList<>();
    a.json().get("errors").forEach(e -> fields.add(e.get("field").asText()));
    return fields;
  }

  /** {@code value} followed by spaces up to {@code length} characters: an address the server trims. */
  private static String padded(String value, int length) {
    return value + " ".repeat(length - value.length());
  }

  @Test
  void the_host_to_host_limits_the_document_gives_are_the_ones_the_server_keeps() {
    JsonNode fields = gatewaySchema("HostToHostRequest").get("properties");
    int ip = fields.at("/customerIp/maxLength").asInt(-1);
    int agent = fields.at("/customerUserAgent/maxLength").asInt(-1);
    int language = fields.at("/browserLanguage/maxLength").asInt(-1);
    assertThat(List.of(ip, agent, language)).as("each field documents its limit").allMatch(max -> max > 0);
    String id = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":3,\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}}")
        .json().at("/result/id").asText();
    com.fasterxml.jackson.databind.node.ObjectNode body = TestGateway.JSON.createObjectNode()
        .put("customerIp", padded("203.0.113.9", ip)).put("customerUserAgent", "u".repeat(agent))
        .put("browserLanguage", "l".repeat(language)).put("ipCountryCode", "!!");
    Answer atLimits = gw.patch("/api/v1/payments/" + id, body.toString());
    assertThat(atLimits.status()).isEqualTo(400);
    assertThat(errorFields(atLimits)).as("refused for the country code alone").containsExactly("ipCountryCode");

    body.put("customerIp", padded("203.0.113.9", ip + 1)).put("customerUserAgent", "u".repeat(agent + 1))
        .put("browserLanguage", "l".repeat(language + 1)).remove("ipCountryCode");
    Answer over = gw.patch("/api/v1/payments/" + id, body.toString());
    assertThat(over.status()).isEqualTo(400);
    assertThat(errorFields(over)).containsExactlyInAnyOrder("customerIp", "customerUserAgent", "browserLanguage");

    int customerIp = gatewaySchema("Customer").at("/properties/ip/maxLength").asInt(-1);
    assertThat(customerIp).as("customer.ip documents its limit").isPositive();
    String deposit = "{\"paymentType\":\"DEPOSIT\",\"amount\":3,\"currency\":\"EUR\",\"customer\":{\"ip\":\"%s\"}}";
    assertThat(gw.post("/api/v1/payments", deposit.formatted(padded("203.0.113.9", customerIp))).status())
        .isEqualTo(200);
    Answer overIp = gw.post("/api/v1/payments", deposit.formatted(padded("203.0.113.9", customerIp + 1)));
    assertThat(overIp.status()).isEqualTo(400);
    assertThat(errorFields(overIp)).containsExactly("customer.ip");
  }

  @Test
  void the_additional_parameters_limits_the_document_gives_are_the_ones_the_server_keeps() {
    JsonNode schema = gatewaySchema("PaymentRequest").at("/properties/additionalParameters");
    int entries = schema.path("maxProperties").asInt(-1);
    int keyMin = schema.at("/propertyNames/minLength").asInt(-1);
    int keyMax = schema.at("/propertyNames/maxLength").asInt(-1);
    int valueMax = schema.at("/additionalProperties/maxLength").asInt(-1);
    assertThat(List.of(entries, keyMin, keyMax, valueMax)).as("each limit is documented").allMatch(n -> n > 0);

    java.util.function.Function<java.util.Map<String, String>, Answer> create = params -> {
      com.fasterxml.jackson.databind.node.ObjectNode body = TestGateway.JSON.createObjectNode()
          .put("paymentType", "DEPOSIT").put("amount", 3).put("currency", "EUR");
      params.forEach(body.putObject("additionalParameters")::put);
      return gw.post("/api/v1/payments", body.toString());
    };
    java.util.Map<String, String> full = new java.util.LinkedHashMap<>();
    for (int i = 0; i < entries; i++) {
      String n = Integer.toString(i);
      full.put("k".repeat(keyMax - n.length()) + n, "v".repeat(valueMax));
    }
    Answer atLimits = create.apply(full);
    assertThat(atLimits.status()).as(atLimits.body()).isEqualTo(200);
    assertThat(atLimits.json().at("/result/additionalParameters").size()).isEqualTo(entries);

    full.put("one-more", "v");
    assertThat(errorFields(create.apply(full))).containsExactly("additionalParameters");
    assertThat(errorFields(create.apply(Map.of("k".repeat(keyMax + 1), "v")))).containsExactly("additionalParameters");
    assertThat(errorFields(create.apply(Map.of("k".repeat(keyMin - 1), "v")))).containsExactly("additionalParameters");
    assertThat(errorFields(create.apply(Map.of("key", "v".repeat(valueMax + 1)))))
        .containsExactly("additionalParameters.key");
  }

  @Test
  void the_return_url_is_documented_as_the_absolute_url_with_the_placeholders_the_server_takes() {
    JsonNode returnUrl = gatewaySchema("PaymentRequest").at("/properties/returnUrl");
    // a URI template, not a URI: {id} and the other placeholders are no URI's characters, and a
    // client that checks the format would refuse the URLs the server takes
    assertThat(returnUrl.path("format").asText()).isEqualTo("uri-template");
    String says = returnUrl.path("description").asText();
    String create = "{\"paymentType\":\"DEPOSIT\",\"amount\":3,\"currency\":\"EUR\",\"returnUrl\":\"%s\"}";

    Answer relative = gw.post("/api/v1/payments", create.formatted("/orders/1"));
    assertThat(relative.status()).isEqualTo(400);
    assertThat(says).contains("absolute", "`http`", "`https`");

    Answer misnamed = gw.post("/api/v1/payments", create.formatted("https://shop.example/r/{orderId}"));
    assertThat(misnamed.status()).isEqualTo(400);
    String message = misnamed.json().at("/errors/0/message").asText();
    List<String> placeholders = new ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{\\w+}")
        .matcher(message.substring(message.indexOf("use ")));
    while (m.find()) {
      placeholders.add(m.group());
    }
    assertThat(placeholders).as(message).isNotEmpty();
    for (String placeholder : placeholders) {
      assertThat(says).as("the document names " + placeholder).contains("`" + placeholder + "`");
    }
    assertThat(gw.post("/api/v1/payments", create.formatted("https://shop.example/r/" + String.join("/", placeholders)))
        .status()).as("every placeholder named is taken").isEqualTo(200);
  }

  @Test
  void approve_and_reject_are_documented_with_the_state_and_fields_they_answer() {
    io.tollgate.domain.shop.ShopId approving = gw.createShop(gw.merchant, "Documented approvals", true);
    String key = gw.issueKey(approving, gw.app.services().environment());
    String payout = "{\"paymentType\":\"WITHDRAWAL\",\"amount\":2,\"currency\":\"EUR\","
        + "\"card\":{\"cardNumber\":\"4000000000000408\",\"cardholderName\":\"A Payee\"}}";
    JsonNode document = OpenApiContract.INSTANCE.gateway.document();

    String approved = gw.post("/api/v1/payments", payout, key, null).json().at("/result/id").asText();
    Answer approve = gw.post("/api/v1/payments/" + approved + "/approve", "", key, null);
    assertThat(approve.status()).isEqualTo(200);
    String state = approve.json().at("/result/state").asText();
    assertThat(operation(document, "/payments/{id}/approve", "post").at("/responses/200/description").asText())
        .as("the answer's state").contains("`" + state + "`");

    String rejected = gw.post("/api/v1/payments", payout, key, null).json().at("/result/id").asText();
    Answer reject = gw.post("/api/v1/payments/" + rejected + "/reject", "{\"rejectReason\":\"no such payee\"}",
        key, null);
    assertThat(reject.status()).isEqualTo(200);
    JsonNode result = reject.json().get("result");
    assertThat(result.get("externalResultCode").asText()).isEqualTo("no such payee");
    JsonNode rejectOp = operation(document, "/payments/{id}/reject", "post");
    assertThat(rejectOp.at("/responses/200/description").asText()).contains("`" + result.get("state").asText() + "`",
        "`" + result.get("errorCode").asText() + "`", "`rejectReason`", "`externalResultCode`");
    assertThat(rejectOp.at("/requestBody/content/application~1json/schema/properties/rejectReason/description")
        .asText()).contains("`externalResultCode`");
    for (String schema : List.of("PaymentResult", "PaymentListEntry")) {
      assertThat(gatewaySchema(schema).at("/properties/externalResultCode/description").asText()).as(schema)
          .contains("`rejectReason`");
    }
  }

  @Test
  void the_redirect_url_is_documented_for_the_payments_that_answer_one() {
    String card = "\"card\":{\"cardNumber\":\"%s\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";
    JsonNode checkout = gw.get("/api/v1/payments/" + gw.deposit("3", "EUR")).json().get("result");
    String challenged = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":3,\"currency\":\"EUR\","
        + card.formatted("4000000000000002") + "}").json().at("/result/id").asText();
    JsonNode cardPending = gw.patch("/api/v1/payments/" + challenged, "{\"customerIp\":\"203.0.113.9\"}")
        .json().get("result");
    String transfer = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"paymentMethod\":\"BANKTRANSFER\",\"amount\":3,\"currency\":\"EUR\"}")
        .json().at("/result/id").asText();
    JsonNode transferPending = gw.patch("/api/v1/payments/" + transfer, "{\"customerIp\":\"203.0.113.9\"}")
        .json().get("result");
    JsonNode payout = gw.post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"amount\":2,\"currency\":"
        + "\"EUR\"," + card.formatted("4000000000000408") + "}").json().get("result");

    assertThat(List.of(checkout, cardPending)).allMatch(p -> p.has("redirectUrl"));
    assertThat(List.of(transferPending, payout)).noneMatch(p -> p.has("redirectUrl"));
    assertThat(cardPending.get("state").asText()).isEqualTo(transferPending.get("state").asText());
    for (String schema : List.of("PaymentResult", "PaymentListEntry")) {
      assertThat(gatewaySchema(schema).at("/properties/redirectUrl/description").asText()).as(schema)
          .contains("`" + checkout.get("paymentType").asText() + "`", "`" + checkout.get("state").asText() + "`",
              "`" + cardPending.get("paymentMethod").asText() + "`", "`" + cardPending.get("state").asText() + "`");
    }
  }

  @Test
  void the_payment_states_an_operations_filter_accepts_beyond_ours_are_documented_and_match_nothing() {
    gw.completedDeposit("3.00", "EUR", gw.apiKey);
    String[] user = gw.merchantUser(gw.merchant, "states@documents.example");
    Answer unknown = gw.merchantGet("/merchant-api/v1/operations?paymentState.in=NO_SUCH_STATE", user);
    assertThat(unknown.status()).isEqualTo(400);
    String message = unknown.json().at("/errors/0/message").asText();
    List<String> accepted = List.of(message.substring(message.indexOf("expected one of ") + 16).split(", "));
    List<String> ours = java.util.Arrays.stream(io.tollgate.domain.payment.PaymentState.values()).map(Enum::name)
        .toList();
    List<String> referenceOnly = accepted.stream().filter(s -> !ours.contains(s)).toList();
    assertThat(referenceOnly).as(message).isNotEmpty();

    JsonNode parameters = operation(OpenApiContract.INSTANCE.merchant.document(), "/operations", "get")
        .get("parameters");
    String says = "";
    for (JsonNode p : parameters) {
      if (p.path("name").asText().equals("paymentState.in")) {
        says = p.path("description").asText();
      }
    }
    for (String state : referenceOnly) {
      assertThat(says).as("the document names " + state).contains("`" + state + "`");
    }
    String ofOurs = gw.sinceStarted("/merchant-api/v1/operations?paymentState.in=COMPLETED");
    assertThat(gw.merchantGet(ofOurs, user).json().get("result")).isNotEmpty();
    Answer onlyTheirs = gw.merchantGet("/merchant-api/v1/operations?paymentState.in="
        + String.join(",", referenceOnly), user);
    assertThat(onlyTheirs.status()).isEqualTo(200);
    assertThat(onlyTheirs.json().get("result")).isEmpty();
    assertThat(says).contains("empty");
  }

  /** The status of the answer to a raw HTTP request. */
  private static int rawStatus(String requestHead) throws Exception {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", gw.app.port())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(requestHead.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      return Integer.parseInt(answer.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"/api/v1/payments", "/merchant-api/v1/payments"})
  void the_statuses_the_server_answers_a_request_too_large_to_read_are_documented(String path) throws Exception {
    int longUri = rawStatus("GET " + path + "?x=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n"
        + "Connection: close\r\n\r\n");
    int bigHeaders = rawStatus("GET " + path + " HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(20_000)
        + "\r\nConnection: close\r\n\r\n");
    JsonNode document = path.startsWith("/api/") ? OpenApiContract.INSTANCE.gateway.document()
        : OpenApiContract.INSTANCE.merchant.document();
    String says = document.at("/components/responses/Error/description").asText();
    for (int status : List.of(longUri, bigHeaders)) {
      assertThat(status).isBetween(400, 499);
      assertThat(says).as("the error statuses name " + status).containsPattern("\\b" + status + "\\b");
    }
  }

  @Test
  void the_core_profile_is_documented_with_the_webhook_log_it_keeps() throws Exception {
    String paragraph = "";
    for (String p : OpenApiContract.INSTANCE.merchant.document().at("/info/description").asText().split("\n\n")) {
      if (p.contains("TOLLGATE_MERCHANT_API=core")) {
        paragraph = p;
      }
    }
    try (TestGateway core = TestGateway.start(Map.of("TOLLGATE_MERCHANT_API", "core"))) {
      String[] user = core.merchantUser(core.merchant, "core@documents.example");
      String id = core.deposit("3", "EUR");
      assertThat(core.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", user).status()).isEqualTo(200);
      assertThat(core.merchantGet("/merchant-api/v1/customers", user).status()).isEqualTo(404);
    }
    assertThat(paragraph).contains("`/payments/{id}/webhooks`", "resend", "404");
  }

  @Test
  void the_docs_page_and_its_assets_are_served_locally() {
    Answer page = anonymous("/docs/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Type")).startsWith("text/html");
    assertThat(page.body()).contains("swagger-ui-bundle.js", "docs.js");
    assertThat(page.header("Cache-Control")).isEqualTo("no-cache");
    Answer bundle = anonymous("/docs/swagger-ui-bundle.js");
    assertThat(bundle.status()).isEqualTo(200);
    assertThat(bundle.body()).contains("SwaggerUIBundle");
    assertThat(bundle.header("Cache-Control")).isEqualTo("public, max-age=86400");
    assertThat(anonymous("/docs/docs.js").body()).contains("/api/v1/openapi.json", "/merchant-api/v1/openapi.json");
    assertThat(anonymous("/docs/../../etc/passwd").status()).isIn(400, 404);
    assertThat(anonymous("/docs/META-INF/MANIFEST.MF").status()).isEqualTo(404);
  }
}
