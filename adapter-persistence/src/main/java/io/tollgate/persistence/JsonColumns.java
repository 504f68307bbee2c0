package io.tollgate.persistence;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Map;

/** Records and maps in {@code jsonb} columns, by their component names. */
final class JsonColumns {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .serializationInclusion(JsonInclude.Include.NON_NULL)
      .build();
  /** Built once: resolving the map's type on every call was half of what reading one cost. */
  private static final ObjectReader STRING_MAP = MAPPER.readerFor(new TypeReference<Map<String, String>>() {});

  private JsonColumns() {}

  static String write(Object value) {
    if (value == null) {
      return null;
    }
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON column", e);
    }
  }

  static <T> T read(String json, Class<T> type) {
    if (json == null) {
      return null;
    }
    try {
      return MAPPER.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot read a JSON column as " + type.getSimpleName(), e);
    }
  }

  static Map<String, String> readMap(String json) {
    if (json == null) {
      return Map.of();
    }
    try {
      return STRING_MAP.readValue(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot read a JSON map column", e);
    }
  }
}
