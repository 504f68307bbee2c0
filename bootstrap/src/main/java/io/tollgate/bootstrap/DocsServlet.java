package io.tollgate.bootstrap;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;

/**
 * The two OpenAPI documents and a browsable docs page ({@code /docs/}): Swagger UI from its
 * webjar, served from our own jar so the page works on a machine without internet.
 */
final class DocsServlet extends ReadOnlyServlet {

  private static final long serialVersionUID = 1L;
  private static final String WEBJAR = "META-INF/resources/webjars/swagger-ui/";
  /** The Swagger UI files the page needs; nothing else of the jar is reachable. */
  private static final Map<String, String> ASSETS = Map.of(
      "swagger-ui.css", "text/css; charset=utf-8",
      "swagger-ui-bundle.js", "text/javascript; charset=utf-8",
      "swagger-ui-standalone-preset.js", "text/javascript; charset=utf-8",
      "favicon-32x32.png", "image/png",
      "favicon-16x16.png", "image/png");

  private static final String INDEX = """
      <!doctype html>
      <html lang="en">
      <head>
        <meta charset="utf-8">
        <title>Tollgate API documentation</title>
        <link rel="icon" type="image/png" href="favicon-32x32.png">
        <link rel="stylesheet" href="swagger-ui.css">
      </head>
      <body>
        <div id="docs"></div>
        <script src="swagger-ui-bundle.js"></script>
        <script src="swagger-ui-standalone-preset.js"></script>
        <script src="docs.js"></script>
      </body>
      </html>
      """;

  private static final String SCRIPT = """
      window.ui = SwaggerUIBundle({
        urls: [
          {url: "../api/v1/openapi.json", name: "Gateway API (/api/v1)"},
          {url: "../merchant-api/v1/openapi.json", name: "Merchant API (/merchant-api/v1)"}
        ],
        dom_id: "#docs",
        deepLinking: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        layout: "StandaloneLayout"
      });
      """;

  private final byte[] gateway;
  private final byte[] merchant;
  private final String webjarRoot;
  /** The Swagger UI files read so far: read from the jar once, not again for every request (1.4 MB of script). */
  private final transient Map<String, byte[]> read = new java.util.concurrent.ConcurrentHashMap<>();

  DocsServlet(byte[] gateway, byte[] merchant) {
    this.gateway = gateway.clone();
    this.merchant = merchant.clone();
    this.webjarRoot = WEBJAR + swaggerUiVersion() + "/";
  }

  private static String swaggerUiVersion() {
    Properties p = new Properties();
    try (InputStream in = DocsServlet.class.getClassLoader()
        .getResourceAsStream("META-INF/maven/org.webjars/swagger-ui/pom.properties")) {
      if (in == null) {
        throw new IllegalStateException("the swagger-ui webjar is missing from the class path");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p.getProperty("version");
  }

  @Override
  boolean serves(String path) {
    return switch (path) {
      case "/api/v1/openapi.json", "/merchant-api/v1/openapi.json", "/docs", "/docs/", "/docs/index.html",
          "/docs/docs.js" -> true;
      default -> path.startsWith("/docs/") && ASSETS.containsKey(path.substring(6));
    };
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String path = request.getRequestURI();
    // The documents and the page change with each release of Tollgate, under the same paths, so a
    // client must ask again each time (an upgraded gateway's fields are then seen at once); the
    // Swagger UI assets live under their webjar's version and keep a day.
    if (path.equals("/api/v1/openapi.json")) {
      response.setHeader("Cache-Control", "no-cache");
      send(response, "application/json", gateway);
    } else if (path.equals("/merchant-api/v1/openapi.json")) {
      response.setHeader("Cache-Control", "no-cache");
      send(response, "application/json", merchant);
    } else if (path.equals("/docs")) {
      response.setStatus(301);
      response.setHeader("Location", "/docs/");
    } else if (path.equals("/docs/") || path.equals("/docs/index.html")) {
      response.setHeader("Cache-Control", "no-cache");
      send(response, "text/html; charset=utf-8", INDEX.getBytes(StandardCharsets.UTF_8));
    } else if (path.equals("/docs/docs.js")) {
      response.setHeader("Cache-Control", "no-cache");
      send(response, "text/javascript; charset=utf-8", SCRIPT.getBytes(StandardCharsets.UTF_8));
    } else {
      String name = path.startsWith("/docs/") ? path.substring(6) : "";
      String type = ASSETS.get(name);
      if (type == null) {
        response.sendError(404);
        return;
      }
      byte[] asset = read.computeIfAbsent(name, this::readAsset);
      if (asset == null) {
        response.sendError(404);
        return;
      }
      response.setHeader("Cache-Control", "public, max-age=86400");
      send(response, type, asset);
    }
  }

  /** A Swagger UI file of the webjar, or null when the jar has none of that name. */
  private byte[] readAsset(String name) {
    try (InputStream in = DocsServlet.class.getClassLoader().getResourceAsStream(webjarRoot + name)) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void send(HttpServletResponse response, String type, byte[] body) throws IOException {
    response.setStatus(200);
    response.setContentType(type);
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
