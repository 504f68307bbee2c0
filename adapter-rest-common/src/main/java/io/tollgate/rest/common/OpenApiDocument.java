package io.tollgate.rest.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * An API's OpenAPI document: written by hand in YAML beside the resources it describes (easier
 * to review than JSON), served as JSON.
 */
public final class OpenApiDocument {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final JsonNode tree;
  private final byte[] json;

  private OpenApiDocument(JsonNode tree) {
    this.tree = tree;
    try {
      this.json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads the YAML resource {@code name} next to {@code owner}; fails at start-up if it is missing or broken. */
  public static OpenApiDocument load(Class<?> owner, String name) {
    try (InputStream in = owner.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("OpenAPI document " + name + " is missing next to " + owner.getName());
      }
      return new OpenApiDocument(YAML.readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException("OpenAPI document " + name + " is not valid YAML", e);
    }
  }

  public JsonNode tree() {
    return tree.deepCopy();
  }

  /** The document as UTF-8 JSON. */
  public byte[] json() {
    return json.clone();
  }
}
