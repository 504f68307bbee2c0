package io.tollgate.bootstrap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.oas.OpenApi31;
import io.tollgate.rest.gateway.GatewayApi;
import io.tollgate.rest.merchant.MerchantApi;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Checks an HTTP answer of our APIs against the OpenAPI document that describes it: the path
 * and method must be documented, a success status must be listed, and the body must validate
 * against the schema of that status (or of {@code default} for errors). The test gateway runs
 * every answer of the REST suites through this, so the documents cannot drift from the code.
 */
final class OpenApiContract {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ERROR_SCHEMA = "#/components/schemas/ErrorEnvelope";

  static final OpenApiContract INSTANCE = new OpenApiContract();

  /** How many answers were checked per documented operation and status, written to target/ when the JVM ends. */
  private final Map<String, java.util.concurrent.atomic.AtomicInteger> checked = new ConcurrentHashMap<>();

  /** One API: its path prefix, its document with every response schema named, and a schema factory. */
  record Api(String prefix, String base, JsonNode document, JsonSchemaFactory factory,
      Map<String, JsonSchema> schemas) {

    JsonSchema schema(String pointer) {
      return schemas.computeIfAbsent(pointer, p -> factory.getSchema(SchemaLocation.of(base + p)));
    }
  }

  final Api gateway;
  final Api merchant;

  private OpenApiContract() {
    this.gateway = api("/api/v1", "https://tollgate.invalid/gateway.json", GatewayApi.openApi().tree());
    this.merchant = api("/merchant-api/v1", "https://tollgate.invalid/merchant.json", MerchantApi.openApi().tree());
    Runtime.getRuntime().addShutdownHook(new Thread(this::writeCoverage));
  }

  /** {@code target/openapi-coverage.txt}: every documented operation with the statuses the suite saw. */
  private void writeCoverage() {
    StringBuilder out = new StringBuilder();
    for (Api api : List.of(gateway, merchant)) {
      api.document().get("paths").fields().forEachRemaining(path -> path.getValue().fieldNames().forEachRemaining(verb -> {
        if (!verb.equals("parameters")) {
          String op = verb.toUpperCase(Locale.ROOT) + " " + api.prefix() + path.getKey();
          String seen = checked.entrySet().stream().filter(e -> e.getKey().startsWith(op + " "))
              .map(e -> e.getKey().substring(op.length() + 1) + "x" + e.getValue()).sorted()
              .collect(java.util.stream.Collectors.joining(" "));
          out.append(op).append(": ").append(seen.isEmpty() ? "NOT EXERCISED" : seen).append('\n');
        }
      }));
    }
    try {
      java.nio.file.Files.writeString(java.nio.file.Path.of("target", "openapi-coverage.txt"), out);
    } catch (IOException | RuntimeException e) {
      // a report only; a read-only working directory must not fail the run
    }
  }

  /**
   * The document with every inline response schema copied to {@code components.schemas} under
   * a generated name, so that each can be loaded by a plain JSON pointer.
   */
  private static Api api(String prefix, String base, JsonNode original) {
    ObjectNode document = (ObjectNode) original.deepCopy();
    ObjectNode schemas = (ObjectNode) document.with("components").with("schemas");
    document.get("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
      JsonNode responses = op.getValue().get("responses");
      if (responses == null) {
        return;
      }
      ((ObjectNode) op.getValue()).put("x-path", path.getKey());
      responses.fields().forEachRemaining(r -> {
        JsonNode response = resolve(document, r.getValue());
        JsonNode schema = response.at("/content/application~1json/schema");
        if (!schema.isMissingNode()) {
          ((ObjectNode) r.getValue()).put("x-schema-name", name(path.getKey(), op.getKey(), r.getKey()));
          schemas.set(name(path.getKey(), op.getKey(), r.getKey()), schema);
        }
      });
    }));
    String text;
    try {
      text = JSON.writeValueAsString(document);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
        b -> b.metaSchema(OpenApi31.getInstance()).defaultMetaSchemaIri(OpenApi31.getInstance().getIri())
            .schemaLoaders(l -> l.schemas(Map.of(base, text))));
    return new Api(prefix, base, document, factory, new ConcurrentHashMap<>());
  }

  private static String name(String path, String method, String status) {
    return "response" + path.replaceAll("[^A-Za-z0-9]+", "_") + "_" + method + "_" + status;
  }

  private static JsonNode resolve(JsonNode document, JsonNode node) {
    JsonNode ref = node.get("$ref");
    return ref == null ? node : document.at(ref.asText().substring(1));
  }

  /** Every way this answer differs from the documents. */
  List<String> problems(java.net.http.HttpResponse<String> r) {
    return problems(r.request().method(), r.uri().getRawPath(), r.statusCode(),
        r.headers().firstValue("Content-Type").orElse(null), r.body());
  }

  /** The answer, after failing the test if it differs from the documents (for tests with their own client). */
  static java.net.http.HttpResponse<String> checked(java.net.http.HttpResponse<String> r) {
    List<String> problems = INSTANCE.problems(r);
    if (!problems.isEmpty()) {
      throw new AssertionError("the answer does not match the OpenAPI document:\n" + String.join("\n", problems));
    }
    return r;
  }

  /** Every way a webhook body differs from the {@code paymentResult} webhook of the gateway document. */
  List<String> webhookProblems(String body) {
    List<String> problems = new ArrayList<>();
    validate(gateway, "#/components/schemas/PaymentResult", body, "webhook paymentResult", problems);
    return problems;
  }

  /** Whether {@code path} (without its query) belongs to one of the two documented APIs. */
  Api apiOf(String path) {
    if (path.equals("/api/v1/openapi.json") || path.equals("/merchant-api/v1/openapi.json")) {
      return null;
    }
    if (path.startsWith(gateway.prefix() + "/")) {
      return gateway;
    }
    if (path.startsWith(merchant.prefix() + "/")) {
      return merchant;
    }
    return null;
  }

  /** Every way the answer differs from the document; empty when it matches or is not ours to check. */
  List<String> problems(String method, String rawPath, int status, String contentType, String body) {
    String path = rawPath.split("\\?", 2)[0];
    Api api = apiOf(path);
    if (api == null || method.equals("HEAD") || method.equals("OPTIONS")) {
      return List.of();
    }
    String where = method + " " + path + " -> " + status;
    JsonNode operation = operation(api, method.toLowerCase(Locale.ROOT), path.substring(api.prefix().length()));
    List<String> problems = new ArrayList<>();
    if (operation == null) {
      if (status < 400) {
        return List.of(where + ": the operation is not in the OpenAPI document");
      }
      validate(api, ERROR_SCHEMA, body, where, problems);
      return problems;
    }
    checked.computeIfAbsent(method + " " + api.prefix() + operation.path("x-path").asText() + " " + status,
        k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
    JsonNode responses = operation.get("responses");
    JsonNode response = responses.get(Integer.toString(status));
    if (response == null && status >= 400) {
      response = responses.get("default");
    }
    if (response == null) {
      return List.of(where + ": status " + status + " is not documented for this operation");
    }
    JsonNode schemaName = response.get("x-schema-name");
    boolean hasBody = body != null && !body.isEmpty();
    if (schemaName == null) {
      if (hasBody) {
        problems.add(where + ": the document promises no body, the answer has one: " + abbreviate(body));
      }
      return problems;
    }
    if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      problems.add(where + ": expected application/json, got " + contentType);
      return problems;
    }
    validate(api, "#/components/schemas/" + schemaName.asText(), body, where, problems);
    return problems;
  }

  private void validate(Api api, String pointer, String body, String where, List<String> problems) {
    JsonNode instance;
    try {
      instance = JSON.readTree(body == null ? "" : body);
    } catch (IOException e) {
      problems.add(where + ": the body is not JSON: " + abbreviate(body));
      return;
    }
    if (instance == null || instance.isMissingNode()) {
      problems.add(where + ": the body is empty where the document promises JSON");
      return;
    }
    Set<ValidationMessage> messages = api.schema(pointer).validate(instance);
    for (ValidationMessage m : messages) {
      problems.add(where + ": " + m.getMessage() + " in " + abbreviate(body));
    }
  }

  /** The documented operation of {@code method} on {@code path}: literal segments win over parameters. */
  JsonNode operation(Api api, String method, String path) {
    JsonNode best = null;
    int bestLiterals = -1;
    for (Iterator<Map.Entry<String, JsonNode>> it = api.document().get("paths").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String template = e.getKey();
      if (!matches(template, path) || !e.getValue().has(method)) {
        continue;
      }
      int literals = (int) java.util.Arrays.stream(template.split("/")).filter(s -> !s.startsWith("{")).count();
      if (literals > bestLiterals) {
        best = e.getValue().get(method);
        bestLiterals = literals;
      }
    }
    return best;
  }

  static boolean matches(String template, String path) {
    String regex = java.util.Arrays.stream(template.split("/", -1))
        .map(s -> s.startsWith("{") ? "[^/]+" : Pattern.quote(s))
        .collect(java.util.stream.Collectors.joining("/"));
    return path.matches(regex);
  }

  private static String abbreviate(String s) {
    return s == null ? "" : s.length() > 400 ? s.substring(0, 400) + "…" : s;
  }
}
