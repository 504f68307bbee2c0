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
