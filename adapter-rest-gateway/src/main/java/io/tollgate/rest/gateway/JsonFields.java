package io.tollgate.rest.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Pan;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads typed fields from a JSON object, recording a violation for each field of the wrong
 * JSON type instead of stopping at the first. JSON {@code null} counts as absent.
 *
 * <p>Scalars are taken as the platform the API follows takes them (Jackson's defaults there): a
 * number or {@code true}/{@code false} where a string is due is its text, a number with a
 * fraction where an integer is due is its whole part ({@code 1642.67} is 1642, as a browser
 * measures a zoomed window), {@code 1} and {@code 0} where a boolean is due are true and false,
 * and a number written as a string ({@code "10.50"}) is a number, kept exact. Hand-written
 * integrations send all of these; a value that is then wrong (an expiry month of {@code 1}) is
 * refused by the field's own rule, which says what is wrong with it. Objects and arrays where a
 * scalar is due are refused.
 */
final class JsonFields {

  /** A number as a string may carry: digits, an optional sign and fraction, no exponent. */
  private static final java.util.regex.Pattern PLAIN_NUMBER =
      java.util.regex.Pattern.compile("^-?[0-9]{1,30}(\\.[0-9]{1,30})?$");

  private final List<Violation> violations;
  private final String prefix;
  private final ObjectNode node;

  JsonFields(ObjectNode node, String prefix, List<Violation> violations) {
    this.node = node;
    this.prefix = prefix;
    this.violations = violations;
  }

  static JsonFields root(ObjectNode node) {
    return new JsonFields(node, "", new ArrayList<>());
  }

  List<Violation> violations() {
    return violations;
  }

  private String path(String name) {
    return prefix + name;
  }

  private JsonNode value(String name) {
    JsonNode v = node.get(name);
    return v == null || v.isNull() ? null : v;
  }

  String text(String name) {
    JsonNode v = value(name);
    if (v == null) {
      return null;
    }
    String text = scalarText(v);
    if (text == null) {
      violations.add(Violation.of(path(name), "must be a string", shortText(v)));
    }
    return text;
  }

  /** A string, or a number or boolean as its text; null for an object or array. */
  private static String scalarText(JsonNode v) {
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isIntegralNumber()) {
      return v.bigIntegerValue().toString();
    }
    if (v.isNumber()) {
      return v.decimalValue().toPlainString();
    }
    if (v.isBoolean()) {
      return String.valueOf(v.booleanValue());
    }
    return null;
  }

  /**
   * A field of the reference API that Tollgate does not offer, refused whenever it is given:
   * accepted and ignored, it would leave the merchant believing something happened that did not.
   * Its value is not echoed. Sent empty ({@code ""}, {@code {}}, or an object of nothing but such
   * values and nulls), as clients that write every field of a structure send it, it asks for
   * nothing and counts as not sent.
   */
  void unsupported(String name, String message) {
    JsonNode v = value(name);
    if (v != null && !holdsNothing(v)) {
      violations.add(Violation.of(path(name), message, null));
    }
  }

  /** JSON null, a blank string, or an object whose members all hold nothing. */
  private static boolean holdsNothing(JsonNode v) {
    if (v.isNull() || v.isTextual() && v.textValue().isBlank()) {
      return true;
    }
    if (!v.isObject()) {
      return false;
    }
    for (JsonNode member : v) {
      if (!holdsNothing(member)) {
        return false;
      }
    }
    return true;
  }

  /** A string that must not be echoed back (card number, security code). */
  String secret(String name) {
    JsonNode v = value(name);
    if (v == null) {
      return null;
    }
    if (v.isIntegralNumber()) {
      // a card number or code sent as a JSON number: its digits (a code's leading zero is lost
      // in JSON itself, and the code's own rule then refuses it)
      return v.bigIntegerValue().toString();
    }
    if (!v.isTextual()) {
      violations.add(Violation.of(path(name), "must be a string", null));
      return null;
    }
    return v.textValue();
  }

  BigDecimal number(String name) {
    JsonNode v = value(name);
    if (v == null) {
      return null;
    }
    if (v.isTextual() && PLAIN_NUMBER.matcher(v.textValue()).matches()) {
      return new BigDecimal(v.textValue());
    }
    if (!v.isNumber()) {
      violations.add(Violation.of(path(name), "must be a number", shortText(v)));
      return null;
    }
    return v.decimalValue();
  }

  Boolean bool(String name) {
    JsonNode v = value(name);
    if (v == null) {
      return null;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isTextual() && (v.textValue().equalsIgnoreCase("true") || v.textValue().equalsIgnoreCase("false"))) {
      return Boolean.valueOf(v.textValue());
    }
    BigInteger bit = v.isIntegralNumber() ? v.bigIntegerValue() : null;
    if (BigInteger.ONE.equals(bit) || BigInteger.ZERO.equals(bit)) {
      return BigInteger.ONE.equals(bit);
    }
    violations.add(Violation.of(path(name), "must be true or false", shortText(v)));
    return null;
  }

  JsonFields object(String name) {
    JsonNode v = value(name);
    if (v == null) {
      return null;
    }
    if (!v.isObject()) {
      violations.add(Violation.of(path(name), "must be an object", shortText(v)));
      return null;
    }
    return new JsonFields((ObjectNode) v, path(name) + ".", violations);
  }

  Map<String, String> stringMap(String name) {
    JsonNode v = value(name);
    if (v == null) {
      return null;
    }
    if (!v.isObject()) {
      violations.add(Violation.of(path(name), "must be an object of strings", shortText(v)));
      return null;
    }
    Map<String, String> map = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = v.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String text = scalarText(e.getValue());
      if (text != null) {
        map.put(e.getKey(), text);
      } else if (!e.getValue().isNull()) {
        violations.add(Violation.of(path(name) + "." + e.getKey(), "must be a string", shortText(e.getValue())));
      }
    }
    return map;
  }

  Integer integer(String name) {
    Long whole = whole(name, Integer.MIN_VALUE, Integer.MAX_VALUE);
    return whole == null ? null : whole.intValue();
  }

  Long longInteger(String name) {
    return whole(name, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /**
   * A number from {@code min} to {@code max}, its fraction dropped; {@code ""}, which would be
   * refused, counts as not sent (every integer field is optional).
   */
  private Long whole(String name, long min, long max) {
    JsonNode v = value(name);
    if (v == null || v.isTextual() && v.textValue().isEmpty()) {
      return null;
    }
    BigDecimal n = v.isNumber() ? v.decimalValue()
        : v.isTextual() && PLAIN_NUMBER.matcher(v.textValue()).matches() ? new BigDecimal(v.textValue()) : null;
    // compared before the fraction is dropped, which would be slow for an extreme exponent (1e-99999999)
    if (n == null || n.compareTo(BigDecimal.valueOf(min).subtract(BigDecimal.ONE)) <= 0
        || n.compareTo(BigDecimal.valueOf(max).add(BigDecimal.ONE)) >= 0) {
      violations.add(Violation.of(path(name), "must be an integer", shortText(v)));
      return null;
    }
    return n.abs().compareTo(BigDecimal.ONE) < 0 ? 0L : n.setScale(0, RoundingMode.DOWN).longValueExact();
  }

  /** The refused value as echoed back: short, and with anything like a card number masked. */
  private static String shortText(JsonNode v) {
    String s = Pan.maskForDisplay(v.toString());
    return s.length() <= 64 ? s : s.substring(0, 64) + "…";
  }
}
