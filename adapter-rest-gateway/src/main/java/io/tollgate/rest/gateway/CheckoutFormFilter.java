package io.tollgate.rest.gateway;

import io.tollgate.rest.common.ErrorResponses;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.Charset;
import java.util.List;

/**
 * The checkout page's forms are posted as {@code application/x-www-form-urlencoded} in a charset
 * the server knows. A POST without a Content-Type matched the form endpoints all the same and
 * then failed reading its fields, and an unknown charset failed decoding them: 500s, for what is
 * the client's mistake. They are a 415 and a 400 before any field is read.
 */
final class CheckoutFormFilter implements ContainerRequestFilter {

  @Override
  public void filter(ContainerRequestContext request) {
    if (!"POST".equals(request.getMethod())) {
      return;
    }
    String path = request.getUriInfo().getRequestUri().getRawPath();
    MediaType type = request.getMediaType();
    if (type == null || !MediaType.APPLICATION_FORM_URLENCODED_TYPE.isCompatible(type)) {
      request.abortWith(ErrorResponses.of(415, "Content-Type must be application/x-www-form-urlencoded", List.of(), path));
      return;
    }
    String charset = type.getParameters().get(MediaType.CHARSET_PARAMETER);
    if (charset != null && !supported(charset)) {
      request.abortWith(ErrorResponses.of(400, "Unknown charset " + charset.substring(0, Math.min(40, charset.length())),
          List.of(), path));
    }
  }

  private static boolean supported(String charset) {
    try {
      return Charset.isSupported(charset);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
