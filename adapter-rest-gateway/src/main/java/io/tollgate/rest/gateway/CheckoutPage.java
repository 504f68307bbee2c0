package io.tollgate.rest.gateway;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import java.io.StringWriter;
import java.util.Map;

/** Renders the checkout page template; every value is HTML-escaped by Mustache. */
final class CheckoutPage {

  private final Mustache template =
      new DefaultMustacheFactory("io/tollgate/rest/gateway/checkout").compile("page.mustache");

  String render(Map<String, Object> scope) {
    StringWriter out = new StringWriter();
    template.execute(out, scope);
    return out.toString();
  }
}
