package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the checkout page tells the customer, read from its HTML through HTTP: the context a
 * screen reader needs for the bare values at its top. How the page behaves in a browser is
 * {@link CheckoutPageBrowserTest}'s.
 */
class CheckoutPageTextTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** The shop's name and the amount are read out with what they are, not as two bare values. */
  @Test
  void the_shop_and_the_amount_are_read_with_what_they_are() {
    String page = page(gw.deposit("12.50", "EUR"));
    assertThat(page).contains("<p class=\"shop\"><span class=\"visually-hidden\">Paying </span>Test Shop</p>")
        .contains("<span class=\"visually-hidden\">Amount: </span><span id=\"amount\">12.50 EUR</span>");
    String css = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/assets/checkout.css")).GET()).body();
    assertThat(css).containsPattern("\\.visually-hidden \\{[^}]*clip: rect\\(0 0 0 0\\)");
  }

  private static String page(String id) {
    return gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
  }
}
