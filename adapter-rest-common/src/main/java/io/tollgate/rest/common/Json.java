package io.tollgate.rest.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one JSON set-up of our APIs: numbers as {@code BigDecimal}, strict parsing (a key
 * given twice or anything after the value is an error), nulls left out of responses.
 */
public final class Json {

  public static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      // a body's text never goes back in an error: it may hold a card number and its security code
      .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION.mappedFeature())
      .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .serializationInclusion(JsonInclude.Include.NON_NULL)
      .build();

  private Json() {}

  /** Whether a {@code Content-Type} declares JSON: {@code application/json} or a {@code +json} type. */
  public static boolean isJsonType(String contentType) {
    if (contentType == null) {
      return false;
    }
    String type = contentType.toLowerCase(java.util.Locale.ROOT).split(";", 2)[0].strip();
    return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
  }

  /**
   * Parses a request body that must be one JSON object.
   *
   * @throws DomainException.Invalid with a message that names the syntax problem
   */
  public static ObjectNode parseObject(byte[] body) {
    if (body == null || body.length == 0 || strictUtf8(body).isBlank()) {
      throw new DomainException.Invalid(Violation.of(null, "Request body is required", null));
    }
    JsonNode node = parse(body);
    if (!node.isObject()) {
      throw new DomainException.Invalid(
          Violation.of(null, "Request body must be a JSON object", null));
    }
    if (!usable(node)) {
      // only now, for the answer, each bad value's field path
      java.util.List<Violation> unusable = new java.util.ArrayList<>();
      checkValues(node, "", unusable);
      throw new DomainException.Invalid("Invalid request body", unusable);
    }
    return (ObjectNode) node;
  }

  /**
   * Refuses a body that is not well-formed JSON, of whatever kind ({@code []} as much as an
   * object): for an action that reads nothing from its body, whose body must still be the JSON
   * its {@code Content-Type} declares.
   *
   * @throws DomainException.Invalid with a message that names the syntax problem
   */
  public static void requireWellFormed(byte[] body) {
    strictUtf8(body);
    parse(body);
  }

  private static JsonNode parse(byte[] body) {
    JsonNode node;
    try {
      node = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw malformed(e.getOriginalMessage());
    } catch (IOException e) {
      throw malformed(e.getMessage());
    } catch (NumberFormatException e) {
      // an exponent past what a BigDecimal holds (1e10000000000), wherever it stands
      throw new DomainException.Invalid("Invalid request body", java.util.List.of(Violation.of(null,
          "number out of range", null)));
    }
    if (node == null || node.isMissingNode()) {
      throw malformed("no content");
    }
    return node;
  }

  /**
   * The body as UTF-8 text, refused when it is not: the JSON parser decodes an overlong form
   * ({@code C0 AF} for '/') as the character it spells, which would let bytes that no UTF-8
   * encoder writes reach a field as '/' or a control character.
   */
  private static String strictUtf8(byte[] body) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(body)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw malformed("the body is not UTF-8");
    }
  }

  /** {@link #checkValues} without the field paths: every body takes this walk, few fail it. */
  private static boolean usable(JsonNode node) {
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> e = fields.next();
        if (!storable(e.getKey()) || !usable(e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (node.isArray()) {
      for (JsonNode item : node) {
        if (!usable(item)) {
          return false;
        }
      }
      return true;
    }
    if (node.isNumber()) {
      return numberInRange(node);
    }
    return !node.isTextual() || storable(node.textValue());
  }

  private static boolean numberInRange(JsonNode number) {
    java.math.BigDecimal n;
    try {
      n = number.decimalValue();
    } catch (NumberFormatException beyondBigDecimal) {
      return false; // an exponent past an int's range: 1e10000000000
    }
    return Math.abs((long) n.scale()) <= MAX_NUMBER_SCALE && n.precision() - (long) n.scale() <= MAX_NUMBER_SCALE;
  }

  /** The largest power of ten a number may carry either way: amounts have 18 decimals at most. */
  static final int MAX_NUMBER_SCALE = 100;

  /**
   * Values no field can take, refused wherever they are, also in fields we do not read: a number
   * such as {@code 1e999999999}, eleven bytes that spell a billion digits (writing it out, as
   * the idempotency fingerprint and the error for a bad amount do, would take seconds and
   * gigabytes), and text with a NUL character or half a surrogate pair, which PostgreSQL cannot
   * store or would store changed.
   */
  private static void checkValues(JsonNode node, String path, java.util.List<Violation> unusable) {
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> e = fields.next();
        String field = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
        if (!storable(e.getKey())) {
          unusable.add(Violation.of(path.isEmpty() ? null : path,
              "field names must not contain NUL characters or unpaired surrogates", null));
        } else {
          checkValues(e.getValue(), field, unusable);
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        checkValues(node.get(i), path + "[" + i + "]", unusable);
      }
    } else if (node.isNumber()) {
      if (!numberInRange(node)) {
        unusable.add(Violation.of(path, "number out of range", null));
      }
    } else if (node.isTextual() && !storable(node.textValue())) {
      unusable.add(Violation.of(path, "must not contain NUL characters or unpaired surrogates", null));
    }
  }

  /** Text PostgreSQL stores as it is: no NUL character, no half of a surrogate pair. */
  public static boolean storable(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        return false;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  private static DomainException.Invalid malformed(String detail) {
    String clean = detail == null ? "unreadable" : detail.replaceAll("[\\r\\n\\t]+", " ");
    // a token Jackson quotes may be a card number
    clean = io.tollgate.domain.group.Pan.maskForDisplay(clean);
    if (clean.length() > 200) {
      clean = clean.substring(0, 200) + "…";
    }
    return new DomainException.Invalid("Malformed JSON: " + clean, java.util.List.of());
  }

  /**
   * A digest of the body that does not change with key order or white space, so that a retry
   * of the same request is recognised as such.
   */
  public static String fingerprint(JsonNode node) {
    try {
      byte[] canonical = MAPPER.writeValueAsBytes(canonical(node));
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object canonical(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> sorted = new TreeMap<>();
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> e = fields.next();
        sorted.put(e.getKey(), canonical(e.getValue()));
      }
      return sorted;
    }
    if (node.isArray()) {
      java.util.List<Object> items = new java.util.ArrayList<>();
      node.forEach(n -> items.add(canonical(n)));
      return items;
    }
    if (node.isNumber()) {
      return node.decimalValue().stripTrailingZeros().toPlainString();
    }
    return node;
  }
}
