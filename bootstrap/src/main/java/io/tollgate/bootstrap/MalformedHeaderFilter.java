package io.tollgate.bootstrap;

import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Pan;
import io.tollgate.rest.common.ErrorEnvelope;
import io.tollgate.rest.common.Json;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.text.ParseException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.glassfish.jersey.message.internal.HttpHeaderReader;

/**
 * A {@code Content-Type} or {@code Accept} that is no media type, or a {@code Content-Type}
 * given twice, is a 400 in the error envelope.
 * Jersey parses both before any of our code runs and, when it cannot, answers a bare 400: no
 * body, no request id, no {@code Cache-Control}, and no exception mapper is asked. So they are
 * parsed here first, by Jersey's own readers, so that exactly what Jersey would refuse is
 * refused. The values seen to parse are remembered (a few hundred at most), so a request with
 * the usual headers costs two set lookups.
 */
final class MalformedHeaderFilter implements Filter {

  private static final int REMEMBERED = 256;
  private final Set<String> contentTypes = ConcurrentHashMap.newKeySet();
  private final Set<String> accepts = ConcurrentHashMap.newKeySet();

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    String contentType = request.getHeader("Content-Type");
    if (contentType != null && repeated(request, "Content-Type")) {
      // Jersey cannot tell which one the body is in, and answers a bare 400
      refuse(request, (HttpServletResponse) res, "Content-Type", contentType, "must be given once");
      return;
    }
    if (contentType != null && !contentTypes.contains(contentType)) {
      try {
        MediaType.valueOf(contentType);
        remember(contentTypes, contentType);
      } catch (IllegalArgumentException e) {
        refuse(request, (HttpServletResponse) res, "Content-Type", contentType, "is not a media type");
        return;
      }
    }
    for (var values = request.getHeaders("Accept"); values.hasMoreElements(); ) {
      String accept = values.nextElement();
      if (!accepts.contains(accept)) {
        try {
          HttpHeaderReader.readAcceptMediaType(accept);
          remember(accepts, accept);
        } catch (ParseException | IllegalArgumentException e) {
          refuse(request, (HttpServletResponse) res, "Accept", accept, "is not a list of media types");
          return;
        }
      }
    }
    chain.doFilter(req, res);
  }

  private static boolean repeated(HttpServletRequest request, String header) {
    var values = request.getHeaders(header);
    values.nextElement();
    return values.hasMoreElements();
  }

  private static void remember(Set<String> seen, String value) {
    if (seen.size() < REMEMBERED) {
      seen.add(value);
    }
  }

  private static void refuse(HttpServletRequest request, HttpServletResponse response, String header, String value,
      String why) throws IOException {
    // masked before it is cut, so that no cut leaves the first digits of a card number in clear
    String shown = Pan.maskForDisplay(value);
    shown = shown.length() <= 256 ? shown : shown.substring(0, 256) + "…";
    response.setStatus(400);
    response.setContentType("application/json");
    response.setHeader("Cache-Control", "no-store");
    response.getOutputStream().write(Json.MAPPER.writeValueAsBytes(ErrorEnvelope.of(400, "Malformed " + header
        + " header", List.of(Violation.of(header, why, shown)), request.getRequestURI())));
  }
}
