package io.tollgate.rest.merchant;

import io.tollgate.domain.DomainException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses a change asked for by another site's page. A browser that has signed in to this API
 * keeps its Basic credentials and sends them with any request to it, a cross-site form's or
 * script's too; a body-less {@code POST} (a webhook resend) needs no JSON that would make the
 * browser ask first. Such a request carries {@code Sec-Fetch-Site} other than
 * {@code same-origin}, or an {@code Origin} other than this API's own; a client that is no
 * browser (an integration, curl) sends neither and is let through.
 */
@Priority(Priorities.AUTHENTICATION - 100)
final class CrossSiteFilter implements ContainerRequestFilter {

  private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

  @Override
  public void filter(ContainerRequestContext request) {
    if (SAFE.contains(request.getMethod())) {
      return;
    }
    String site = request.getHeaderString("Sec-Fetch-Site");
    if (site != null) {
      // the browser's own word, which no page can set: trusted over an Origin compared with a
      // Host that a proxy in front may have rewritten
      if (site.equalsIgnoreCase("same-origin") || site.equalsIgnoreCase("none")) {
        return;
      }
      throw refused();
    }
    String origin = request.getHeaderString("Origin");
    if (origin != null && !sameOrigin(origin, request)) {
      throw refused();
    }
  }

  /** The Origin names the host this request was sent to (as the client or a proxy in front saw it). */
  private static boolean sameOrigin(String origin, ContainerRequestContext request) {
    String authority;
    try {
      URI uri = new URI(origin.strip());
      if (uri.getScheme() == null || uri.getRawAuthority() == null) {
        return false; // "null", an opaque origin: a sandboxed frame, a file, a redirect across sites
      }
      authority = uri.getRawAuthority().toLowerCase(Locale.ROOT);
    } catch (URISyntaxException e) {
      return false;
    }
    for (String header : new String[] {"Host", "X-Forwarded-Host"}) {
      String host = request.getHeaderString(header);
      if (host != null && sameAuthority(authority, host.split(",")[0].strip().toLowerCase(Locale.ROOT))) {
        return true;
      }
    }
    return false;
  }

  /** Equal, or equal but for a default port that one of them leaves out. */
  private static boolean sameAuthority(String origin, String host) {
    return origin.equals(host) || withoutDefaultPort(origin).equals(withoutDefaultPort(host));
  }

  private static String withoutDefaultPort(String authority) {
    if (authority.endsWith(":80")) {
      return authority.substring(0, authority.length() - 3);
    }
    if (authority.endsWith(":443")) {
      return authority.substring(0, authority.length() - 4);
    }
    return authority;
  }

  private static DomainException refused() {
    return new DomainException.Forbidden("A change to this API cannot be asked for by another site's page");
  }
}
