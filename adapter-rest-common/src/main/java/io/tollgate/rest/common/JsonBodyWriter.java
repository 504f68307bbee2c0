package io.tollgate.rest.common;

import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;

/** Writes response entities with {@link Json#MAPPER}. */
@Produces(MediaType.APPLICATION_JSON)
public final class JsonBodyWriter implements MessageBodyWriter<Object> {

  @Override
  public boolean isWriteable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
    return mediaType == null || mediaType.isCompatible(MediaType.APPLICATION_JSON_TYPE)
        || mediaType.isWildcardType();
  }

  @Override
  public void writeTo(Object value, Class<?> type, Type genericType, Annotation[] annotations,
      MediaType mediaType, MultivaluedMap<String, Object> headers, OutputStream out) throws IOException {
    Json.MAPPER.writeValue(out, value);
  }
}
