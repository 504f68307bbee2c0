package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.ShopId;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/** The hosted checkout page in a real headless Chromium, card table row by row. */
class CheckoutPageBrowserTest {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  static TestGateway gw;
  static WebDriver browser;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue("true".equals(System.getenv("CI")) || (Files.exists(CHROMIUM) && Files.exists(CHROMEDRIVER)),
        "Chromium and chromedriver are installed by .ci/run; install them to run this test locally");
    // the bank "receives" a transfer 3 s after its details are shown: long enough for the browser to
    // show the waiting page on a loaded machine before the job settles it
    gw = TestGateway.start(java.util.Map.of("TOLLGATE_SANDBOX_BANK_DELAY", "PT3S"));
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage",
        "--user-data-dir=" + ScratchDirectories.create("tollgate-chromium"));
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    browser = new ChromeDriver(service, options);
    browser.manage().window().setSize(new Dimension(360, 800));
    browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20));
    browser.manage().timeouts().implicitlyWait(Duration.ofSeconds(10));
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (gw != null) {
      gw.close();
    }
  }

  private static String deposit(String extra) {
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":12.50,\"currency\":\"EUR\","
        + "\"description\":\"<script>alert(1)</script> & tea\"" + extra + "}");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/result/id").asText();
  }

  /** A card sent with the deposit's request (StS mode), as the merchant sends it: the page takes no card. */
  private static final String CARD_SENT =
      ",\"card\":{\"cardNumber\":\"4000000000000408\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";

  private static void open(String id) {
    browser.get(gw.app.publicUrl() + "/checkout/" + id);
  }

  private static void typeCard(String number) {
    browser.findElement(By.id("cardNumber")).sendKeys(number);
    browser.findElement(By.id("cardholderName")).sendKeys("Ann Lee");
    browser.findElement(By.id("expiryMonth")).sendKeys("12");
    browser.findElement(By.id("expiryYear")).sendKeys("2045");
    browser.findElement(By.id("cardSecurityCode")).sendKeys("123");
    browser.findElement(By.id("pay")).click();
  }

  /** Types what is given (null: leaves the field as it is) and sends the form. */
  private static void send(String number, String month, String year, String code) {
    String[][] fields = {{"cardNumber", number}, {"expiryMonth", month}, {"expiryYear", year},
        {"cardSecurityCode", code}};
    for (String[] field : fields) {
      if (field[1] != null) {
        browser.findElement(By.id(field[0])).sendKeys(field[1]);
      }
    }
    browser.findElement(By.id("pay")).click();
  }

  private static JsonNode payment(String id) {
    return gw.get("/api/v1/payments/" + id).json().get("result");
  }

  private static List<String> operations(String id) {
    List<String> ops = new ArrayList<>();
    gw.get("/api/v1/payments/" + id + "/operations").json().get("result")
        .forEach(o -> ops.add(o.get("operation").asText() + ":" + o.get("paymentState").asText()));
    return ops;
  }

  @ParameterizedTest(name = "{0} -> {1} {2}")
  @CsvSource(nullValues = "-", value = {
      "4000000000000408, COMPLETED, -",
      "5555000000000107, COMPLETED, -",
      "4000000000000416, DECLINED, 4.00",
      "5555000000000115, DECLINED, 4.00",
      "4000000000009995, DECLINED, 4.01",
      "4000000000000069, DECLINED, 4.04",
      "4000000000000127, DECLINED, 4.07"})
  void a_card_not_enrolled_in_3ds_is_decided_when_the_form_is_sent(String card, String state, String code) {
    String id = deposit("");
    open(id);
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("12.50 EUR");
    typeCard(card);
    assertThat(browser.findElement(By.id("result")).getText())
        .isEqualTo(state.equals("COMPLETED") ? "Thank you: your payment is complete." : "Your payment was declined.");
    JsonNode p = payment(id);
    assertThat(p.get("state").asText()).isEqualTo(state);
    if (code != null) {
      assertThat(p.get("errorCode").asText()).isEqualTo(code);
      assertThat(browser.findElement(By.id("result-error")).getText()).startsWith(code);
      assertThat(browser.findElement(By.id("result-explanation")).getText())
          .isEqualTo("Your bank declined the payment. No money was taken.");
    }
    assertThat(operations(id)).containsExactly("DEPOSIT:" + state, "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
    assertThat(p.at("/paymentMethodDetails/customerAccountNumber").asText()).isEqualTo(card.substring(0, 6) + "******" + card.substring(12));
  }

  @ParameterizedTest(name = "{0} answering {1} -> {2}")
  @CsvSource(nullValues = "-", value = {
      "4000000000000002, authenticate, COMPLETED, -",
      "5555000000000008, authenticate, COMPLETED, -",
      "4000000000000002, fail-authentication, DECLINED, 5.00",
      "4242424242424242, authenticate, DECLINED, 5.00",
      "5555000000000438, authenticate, DECLINED, 5.00"})
  void a_3ds_card_goes_through_the_issuer_challenge(String card, String answer, String state, String code) {
    String id = deposit("");
    open(id);
    typeCard(card);
    assertThat(browser.findElement(By.id("authenticate")).isDisplayed()).isTrue();
    assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Confirm with your bank");
    assertThat(payment(id).get("state").asText()).isEqualTo("PENDING");
    browser.findElement(By.id(answer)).click();
    browser.findElement(By.id("result"));
    JsonNode p = payment(id);
    assertThat(p.get("state").asText()).isEqualTo(state);
    if (code != null) {
      assertThat(p.get("errorCode").asText()).isEqualTo(code);
    }
    List<String> ops = operations(id);
    assertThat(ops.get(ops.size() - 1)).isEqualTo("CREATE_PAYMENT:CHECKOUT");
    assertThat(ops).contains("DEPOSIT:PENDING", state.equals("COMPLETED") ? "CONFIRMATION:PENDING" : "CONFIRMATION:DECLINED");
  }

  @Test
  void the_api_docs_page_renders_both_documents_from_local_assets() {
    browser.get(gw.app.publicUrl() + "/docs/");
    var wait = new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(20));
    wait.until(d -> documentedPaths().contains("/payments/{id}/capture"));
    assertThat(documentedPaths()).contains("/payments", "/payments/{id}", "/balances");

    new org.openqa.selenium.support.ui.Select(browser.findElement(By.cssSelector(".topbar select")))
        .selectByVisibleText("Merchant API (/merchant-api/v1)");
    wait.until(d -> documentedPaths().contains("/bin-groups/{groupId}/bins"));
    assertThat(documentedPaths()).contains("/operations", "/shop-groups/{groupId}/shops")
        .doesNotContain("/payments/{id}/capture");
  }

  private static List<String> documentedPaths() {
    List<String> paths = new ArrayList<>();
    for (WebElement e : browser.findElements(By.cssSelector(".opblock-summary-path"))) {
      paths.add(e.getAttribute("data-path"));
    }
    return paths;
  }

  @Test
  void the_customer_returns_to_the_merchant_with_the_placeholders_filled() {
    String id = deposit(",\"referenceId\":\"order 7/8\",\"returnUrl\":\"" + gw.app.publicUrl()
        + "/shop/return?payment={id}&ref={referenceId}&state={state}&type={type}\"");
    open(id);
    assertThat(browser.findElement(By.id("cancel")).getText()).isEqualTo("Cancel and return to Test Shop");
    typeCard("4000000000000408");
    new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10))
        .until(org.openqa.selenium.support.ui.ExpectedConditions.urlContains("/shop/return"));
    assertThat(browser.getCurrentUrl()).isEqualTo(gw.app.publicUrl() + "/shop/return?payment=" + id
        + "&ref=order%207%2F8&state=COMPLETED&type=DEPOSIT");
  }

  /**
   * A merchant's return page often redirects again (to www., to another host). The way back
   * used to end the redirects that follow the card form, and the browser holds each of those
   * to the page's form-action: the customer, charged, stayed on the card form.
   */
  @Test
  void the_customer_reaches_the_merchant_through_a_return_page_that_redirects_elsewhere() throws Exception {
    com.sun.net.httpserver.HttpServer shop = merchantPage();
    int port = shop.getAddress().getPort();
    shop.createContext("/hop", exchange -> {
      exchange.getResponseHeaders().set("Location",
          "http://localhost:" + port + "/landed?" + exchange.getRequestURI().getRawQuery());
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
    });
    try {
      String id = deposit(",\"returnUrl\":\"http://127.0.0.1:" + port + "/hop?state={state}\"");
      open(id);
      typeCard("4000000000000408");
      new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10))
          .until(org.openqa.selenium.support.ui.ExpectedConditions.urlContains("/landed"));
      assertThat(browser.getCurrentUrl()).isEqualTo("http://localhost:" + port + "/landed?state=COMPLETED");
      assertThat(browser.findElement(By.id("landed")).getText()).isEqualTo("Back at the shop");
      assertThat(payment(id).get("state").asText()).isEqualTo("COMPLETED");
    } finally {
      shop.stop(0);
    }
  }

  /**
   * Back from the merchant's page, after paying, shows the payment's result with the way back
   * to the merchant: it used to send the customer straight back to the merchant, so that the
   * first press of Back seemed to do nothing.
   */
  @Test
  void back_from_the_merchant_after_paying_shows_the_result_and_stays() throws Exception {
    atMerchant(thanks -> {
      String id = deposit(",\"returnUrl\":\"" + thanks + "?state={state}\"");
      open(id);
      typeCard("4000000000000408");
      var wait = new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10));
      wait.until(org.openqa.selenium.support.ui.ExpectedConditions.urlContains("/thanks"));
      browser.navigate().back();
      wait.until(org.openqa.selenium.support.ui.ExpectedConditions.urlContains("/checkout/" + id));
      assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
      Thread.sleep(1500);
      assertThat(browser.getCurrentUrl()).as("stays on the result").contains("/checkout/" + id);
      browser.findElement(By.id("return")).click();
      wait.until(org.openqa.selenium.support.ui.ExpectedConditions.urlContains("/thanks"));
      assertThat(browser.getCurrentUrl()).isEqualTo(thanks + "?state=COMPLETED");
    });
  }

  /**
   * The customer waiting on a bank transfer's page is taken back to the merchant once it has
   * arrived, when they look, however long they waited (their mark from the page is gone here).
   */
  @Test
  void a_bank_transfer_that_arrives_takes_the_waiting_customer_back_to_the_merchant() throws Exception {
    atMerchant(thanks -> {
      String id = deposit(",\"paymentMethod\":\"BANKTRANSFER\",\"returnUrl\":\"" + thanks + "?state={state}\"");
      open(id);
      browser.findElement(By.id("show-bank-details")).click();
      assertThat(browser.findElement(By.id("bank-iban")).isDisplayed()).isTrue();
      gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10));
      browser.manage().deleteAllCookies();
      browser.findElement(By.id("check-again")).click();
      new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10))
          .until(org.openqa.selenium.support.ui.ExpectedConditions.urlContains("/thanks"));
      assertThat(browser.getCurrentUrl()).isEqualTo(thanks + "?state=COMPLETED");
    });
  }

  /**
   * Every state of the page passes axe-core's automated WCAG 2.1 A and AA checks: the card form,
   * the form with its errors, the 3-D Secure challenge, a bank transfer's details, each result,
   * the page of an unknown payment, and that of a card sent with the request. (Automated checks
   * find a part of what a person with a screen reader would; they catch what a change breaks.)
   */
  @Test
  void every_state_of_the_page_passes_the_automated_accessibility_checks() {
    java.util.Map<String, List<String>> found = new java.util.LinkedHashMap<>();
    String form = deposit("");
    open(form);
    found.put("card form", accessibilityViolations());
    send("4000000000000409", "13", "2045", "12");
    browser.findElement(By.id("form-error"));
    found.put("form with errors", accessibilityViolations());
    browser.findElement(By.id("cardNumber")).sendKeys("4000000000000408");
    browser.findElement(By.id("expiryMonth")).clear();
    browser.findElement(By.id("expiryYear")).clear();
    send(null, "12", "2019", "123");
    browser.findElement(By.id("expiryDate-error"));
    found.put("form with a past expiry date", accessibilityViolations());
    open(deposit(""));
    typeCard("4000000000000002");
    browser.findElement(By.id("authenticate"));
    found.put("3-D Secure challenge", accessibilityViolations());
    browser.findElement(By.id("authenticate")).click();
    browser.findElement(By.id("result"));
    found.put("completed", accessibilityViolations());
    open(deposit(""));
    typeCard("4000000000000416");
    browser.findElement(By.id("result-error"));
    found.put("declined", accessibilityViolations());
    open(deposit(",\"paymentMethod\":\"BANKTRANSFER\""));
    found.put("bank transfer", accessibilityViolations());
    browser.findElement(By.id("show-bank-details")).click();
    browser.findElement(By.id("bank-iban"));
    found.put("bank details", accessibilityViolations());
    String cancelled = deposit("");
    open(cancelled);
    browser.findElement(By.id("cancel")).click();
    browser.findElement(By.id("result"));
    found.put("cancelled", accessibilityViolations());
    open("00000000000000000000000000000000");
    found.put("unknown payment", accessibilityViolations());
    // the page of a card sent with the request, as a customer without script sees it
    ChromeDriver chromium = (ChromeDriver) browser;
    chromium.executeCdpCommand("Emulation.setScriptExecutionDisabled", java.util.Map.of("value", true));
    try {
      open(deposit(CARD_SENT));
      browser.findElement(By.id("process"));
    } finally {
      chromium.executeCdpCommand("Emulation.setScriptExecutionDisabled", java.util.Map.of("value", false));
    }
    found.put("card sent with the request", accessibilityViolations());
    assertThat(found).allSatisfy((page, violations) -> assertThat(violations).as(page).isEmpty());
  }

  /** What axe-core finds against WCAG 2.1 A and AA on the page as it is now: rule, impact and where. */
  private static List<String> accessibilityViolations() {
    com.deque.html.axecore.results.Results results = new com.deque.html.axecore.selenium.AxeBuilder()
        .withTags(List.of("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice")).analyze(browser);
    List<String> violations = new ArrayList<>();
    for (com.deque.html.axecore.results.Rule rule : results.getViolations()) {
      for (com.deque.html.axecore.results.CheckedNode node : rule.getNodes()) {
        violations.add(rule.getId() + " (" + rule.getImpact() + "): " + node.getTarget() + " " + rule.getHelp());
      }
    }
    return violations;
  }

  /** A test of the way back to a merchant, given the address of the merchant's page. */
  private interface AtMerchant {
    void run(String thanks) throws Exception;
  }

  /** Runs {@code test} with a merchant's site up (see {@link #merchantPage}), given its {@code /thanks} page. */
  private static void atMerchant(AtMerchant test) throws Exception {
    com.sun.net.httpserver.HttpServer shop = merchantPage();
    try {
      test.run("http://127.0.0.1:" + shop.getAddress().getPort() + "/thanks");
    } finally {
      shop.stop(0);
    }
  }

  /** A merchant's site on a port of its own, answering every path with its page, as a shop's return page. */
  private static com.sun.net.httpserver.HttpServer merchantPage() throws java.io.IOException {
    com.sun.net.httpserver.HttpServer shop = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    shop.createContext("/", exchange -> {
      byte[] body = "<!DOCTYPE html><title>Shop</title><p id=\"landed\">Back at the shop</p>"
          .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    shop.start();
    return shop;
  }

  /**
   * A deposit in a currency the shop's terminals do not take is charged converted. The customer
   * confirmed with their bank an amount in another currency than the one they were asked for.
   */
  @Test
  void a_converted_deposit_keeps_showing_what_the_customer_was_asked_to_pay() {
    TestGateway.KeyedShop shop = gw.keyedShop("Euro terminals only");
    var reference = gw.app.services().persistence().referenceData();
    reference.upsertCurrencyRate(new io.tollgate.application.port.out.ReferenceData.CurrencyRate("USD", "EUR",
        new java.math.BigDecimal("0.9200"), java.time.Instant.now()));
    long terminal = reference.createTerminal(new io.tollgate.application.port.out.ReferenceData.Terminal(0, gw.merchant,
        "Euro acquirer", "ACTIVE", "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT", "WITHDRAWAL", "REFUND"),
        java.time.Instant.now()));
    reference.createConnector(new io.tollgate.application.port.out.ReferenceData.Connector(0, shop.id().value(),
        terminal, null, "ACTIVE", "BASIC_CARD", "EUR", 1, 100, null, null, null, null, null), java.time.Instant.now());
    Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":10.00,\"currency\":\"USD\"}",
        shop.key(), null);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    String id = a.json().at("/result/id").asText();
    open(id);
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("10.00 USD");
    typeCard("5555000000000008");

    assertThat(browser.findElement(By.id("authenticate")).isDisplayed()).isTrue();
    JsonNode p = gw.get("/api/v1/payments/" + id, shop.key()).json().get("result");
    assertThat(p.get("currency").asText()).as("charged converted").isEqualTo("EUR");
    assertThat(p.get("customerCurrency").asText()).isEqualTo("USD");
    String charged = p.get("amount").decimalValue().setScale(2).toPlainString() + " " + p.get("currency").asText();
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("10.00 USD");
    assertThat(browser.findElement(By.id("charged-as")).getText()).isEqualTo("Charged as " + charged);

    browser.findElement(By.id("authenticate")).click();
    assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("10.00 USD");
    assertThat(browser.findElement(By.id("charged-as")).getText()).isEqualTo("Charged as " + charged);
  }

  @Test
  void bad_card_details_are_shown_next_to_each_field_and_change_nothing() {
    String id = deposit("");
    open(id);
    browser.findElement(By.id("cardNumber")).sendKeys("4000 12");
    browser.findElement(By.id("cardholderName")).sendKeys("Ann <b>Lee</b>");
    browser.findElement(By.id("expiryMonth")).sendKeys("13");
    browser.findElement(By.id("pay")).click();
    assertThat(browser.findElement(By.id("cardNumber-error")).getText()).contains("12 to 19 digits");
    assertThat(browser.findElement(By.id("expiryMonth-error")).getText()).contains("01 to 12");
    assertThat(browser.findElement(By.id("expiryYear-error")).isDisplayed()).isTrue();
    assertThat(browser.findElement(By.id("cardSecurityCode-error")).isDisplayed()).isTrue();
    assertThat(browser.findElement(By.id("cardNumber")).getAttribute("aria-invalid")).isEqualTo("true");
    assertThat(browser.findElement(By.id("cardholderName")).getAttribute("value")).isEqualTo("Ann <b>Lee</b>");
    assertThat(browser.findElement(By.id("cardNumber")).getAttribute("value")).as("the card number is not echoed").isEmpty();
    assertThat(browser.getPageSource()).doesNotContain("<b>Lee</b>").doesNotContain("<script>alert(1)</script>");
    assertThat(payment(id).get("state").asText()).isEqualTo("CHECKOUT");
    // the title says so, the summary links each field, and the first field to fix has the focus
    assertThat(browser.getTitle()).startsWith("Error: Pay by card");
    assertThat(browser.findElements(By.cssSelector("#form-error a")))
        .extracting(e -> e.getAttribute("href").replaceAll(".*#", ""))
        .containsExactly("cardNumber", "expiryMonth", "expiryYear", "cardSecurityCode");
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("cardNumber");
  }

  /**
   * A mistyped card number (its check digit is wrong) or an expiry date already past is the
   * customer's to correct on the form: sent to the terminal, its decline (4.13, 4.04) would end
   * the payment, and the shop would have to start a new one.
   */
  @Test
  void a_mistyped_card_number_or_a_past_expiry_is_corrected_on_the_form() {
    String id = deposit("");
    open(id);
    send("4000000000000409", "12", "2045", "123");
    assertThat(browser.findElement(By.id("cardNumber-error")).getText()).contains("not a valid card number");
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("cardNumber");
    assertThat(payment(id).get("state").asText()).isEqualTo("CHECKOUT");

    java.time.YearMonth lastMonth = java.time.YearMonth.now(java.time.ZoneOffset.UTC).minusMonths(1);
    browser.findElement(By.id("expiryMonth")).clear();
    browser.findElement(By.id("expiryYear")).clear();
    send("4000000000000408", String.format("%02d", lastMonth.getMonthValue()), String.valueOf(lastMonth.getYear()),
        "123");
    assertThat(browser.findElement(By.id("expiryDate-error")).getText()).contains("has passed");
    assertThat(payment(id).get("state").asText()).isEqualTo("CHECKOUT");

    browser.findElement(By.id("expiryYear")).clear();
    send("4000000000000408", null, "2045", "123");
    assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  /**
   * The card number and security code are never sent back into the page: a mistake elsewhere
   * empties them, and the page says why instead of leaving the customer to find out on the next
   * try. It says so as a hint, not as an error: the focus, the error summary and a screen reader
   * go to what is wrong (the month here), not to a card number with nothing wrong with it.
   */
  @Test
  void a_mistake_elsewhere_says_why_the_card_number_and_code_are_empty_again() {
    String id = deposit("");
    open(id);
    send("4000000000000408", "13", "2045", "123");
    assertThat(browser.findElement(By.id("expiryMonth-error")).getText()).contains("01 to 12");
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("expiryMonth");
    assertThat(browser.findElements(By.cssSelector("#form-error a"))).extracting(WebElement::getText)
        .containsExactly("Expiry month: Enter the month as on the card, 01 to 12");
    for (String field : List.of("cardNumber", "cardSecurityCode")) {
      WebElement input = browser.findElement(By.id(field));
      WebElement hint = browser.findElement(By.id(field + "-hint"));
      assertThat(hint.getText()).as(field).isEqualTo("For your security, please enter it again");
      assertThat(input.getAttribute("aria-invalid")).as(field).isNull();
      assertThat(input.getAttribute("aria-describedby")).as(field).isEqualTo(field + "-hint");
      assertThat(hint.getCssValue("color")).as("not an error's red").isNotEqualTo(
          browser.findElement(By.id("expiryMonth-error")).getCssValue("color"));
      assertThat(browser.findElements(By.id(field + "-error"))).as(field).isEmpty();
    }
    assertThat(browser.findElement(By.id("cardNumber")).getAttribute("value")).isEmpty();
    assertThat(browser.getPageSource()).doesNotContain("4000000000000408");

    // the refused POST was answered with a redirect: the page reloads without sending the form
    // again, and paying from it then leaves a history the back button walks without a
    // "Confirm Form Resubmission"
    assertThat(browser.getCurrentUrl()).contains("/checkout/" + id + "?form=");
    browser.navigate().refresh();
    assertThat(browser.findElement(By.id("expiryMonth-error")).getText()).contains("01 to 12");
    assertThat(browser.findElement(By.id("cardNumber-hint")).isDisplayed()).isTrue();
    browser.findElement(By.id("cardNumber")).sendKeys("4000000000000408");
    browser.findElement(By.id("expiryMonth")).clear();
    browser.findElement(By.id("expiryMonth")).sendKeys("12");
    browser.findElement(By.id("cardSecurityCode")).sendKeys("123");
    browser.findElement(By.id("pay")).click();
    assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    browser.navigate().back();
    // our page (the browser may show it as it was), not the browser's "Confirm Form Resubmission"
    assertThat(browser.findElements(By.cssSelector("main.card"))).as(browser.getPageSource()).hasSize(1);
    browser.navigate().refresh();
    assertThat(browser.findElement(By.id("result")).getText()).as("where the payment stands")
        .isEqualTo("Thank you: your payment is complete.");
  }

  /**
   * The month and year are one expiry date, grouped under its name; a date already past is one
   * error of that date, which both inputs are marked with and described by. (It used to mark the
   * month alone, as though the year were right and the month wrong.)
   */
  @Test
  void a_past_expiry_date_is_one_error_for_the_month_and_year_together() {
    String id = deposit("");
    open(id);
    WebElement date = browser.findElement(By.tagName("fieldset"));
    assertThat(date.getAriaRole()).isEqualTo("group");
    assertThat(date.getAccessibleName()).isEqualTo("Expiry date");
    assertThat(date.findElements(By.cssSelector("input"))).extracting(e -> e.getAttribute("id"))
        .containsExactly("expiryMonth", "expiryYear");

    send("4000000000000408", "12", "2019", "123");
    WebElement error = browser.findElement(By.id("expiryDate-error"));
    assertThat(error.getText()).isEqualTo("This expiry date has passed: check it, or use another card");
    for (String field : List.of("expiryMonth", "expiryYear")) {
      WebElement input = browser.findElement(By.id(field));
      assertThat(input.getAttribute("aria-invalid")).as(field).isEqualTo("true");
      assertThat(input.getAttribute("aria-describedby")).as(field).isEqualTo("expiryDate-error");
      assertThat(browser.findElements(By.id(field + "-error"))).as(field).isEmpty();
    }
    WebElement link = browser.findElement(By.cssSelector("#form-error a"));
    assertThat(link.getText()).isEqualTo("Expiry date: This expiry date has passed: check it, or use another card");
    assertThat(link.getAttribute("href")).endsWith("#expiryMonth");
    assertThat(browser.findElements(By.cssSelector("#form-error a"))).hasSize(1);
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("expiryMonth");
    assertThat(payment(id).get("state").asText()).isEqualTo("CHECKOUT");
  }

  /**
   * A link of the error summary scrolls its input to the top of the screen: the label above it
   * stays in sight, so the customer sees which field they are looking at.
   */
  @Test
  void a_link_of_the_error_summary_leaves_its_fields_label_in_sight() {
    try {
      // low enough that the link scrolls the card number to the top of the screen
      browser.manage().window().setSize(new Dimension(360, 300));
      open(deposit(""));
      send("4000000000000409", "12", "2045", "123");
      browser.findElement(By.cssSelector("#form-error a[href$='#cardNumber']")).click();
      new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(5)).until(d -> scrollY() > 0);
      Number labelTop = (Number) ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
          "return document.querySelector('label[for=cardNumber]').getBoundingClientRect().top;");
      assertThat(labelTop.doubleValue()).as("the label's top, once scrolled to its input").isGreaterThanOrEqualTo(0);
    } finally {
      browser.manage().window().setSize(new Dimension(360, 800));
    }
  }

  private static long scrollY() {
    return ((Number) ((org.openqa.selenium.JavascriptExecutor) browser).executeScript("return window.scrollY;"))
        .longValue();
  }

  /** The shop's name and the amount are read with what they are; the words are not shown. */
  @Test
  void the_shop_and_the_amount_are_read_with_what_they_are_but_not_shown() {
    open(deposit(""));
    WebElement shop = browser.findElement(By.cssSelector(".shop"));
    assertThat(shop.getAttribute("textContent")).isEqualTo("Paying Test Shop");
    assertThat(browser.findElement(By.cssSelector(".amount")).getAttribute("textContent"))
        .isEqualTo("Amount: 12.50 EUR");
    List<WebElement> words = browser.findElements(By.cssSelector(".summary .visually-hidden"));
    assertThat(words).extracting(w -> w.getAttribute("textContent")).containsExactly("Paying ", "Amount: ");
    for (WebElement hidden : words) {
      // a box of a pixel at most, clipped to nothing: nothing of it is painted
      assertThat(hidden.getSize().getWidth()).isLessThanOrEqualTo(1);
      assertThat(hidden.getSize().getHeight()).isLessThanOrEqualTo(1);
      assertThat(hidden.getCssValue("clip")).isEqualTo("rect(0px, 0px, 0px, 0px)");
    }
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("12.50 EUR");
  }

  /** The answer that a transfer has not arrived yet takes the focus, so a screen reader reads it. */
  @Test
  void the_answer_that_a_transfer_has_not_arrived_takes_the_focus() {
    String id = deposit(",\"paymentMethod\":\"BANKTRANSFER\"");
    open(id);
    browser.findElement(By.id("show-bank-details")).click();
    browser.findElement(By.id("bank-iban"));
    browser.get(gw.app.publicUrl() + "/checkout/" + id + "?looked=1");
    // the bank "receives" the transfer 3 s after its details were shown: a machine too slow for this
    // shows the result instead, and proves nothing either way
    assumeTrue(!browser.findElements(By.id("not-yet")).isEmpty(), "the transfer arrived before the page was seen");
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("not-yet");
  }

  /** The page names its own icon, which is served, so a browser asks for no /favicon.ico (a 404 in its console). */
  @Test
  void the_page_has_an_icon_that_is_served() {
    open(deposit(""));
    String href = browser.findElement(By.cssSelector("link[rel=icon]")).getAttribute("href");
    Answer icon = gw.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(href)).GET());
    assertThat(icon.status()).isEqualTo(200);
    assertThat(icon.header("Content-Type")).startsWith("image/svg+xml");
    assertThat(icon.body()).startsWith("<svg");
  }

  /** A month and year typed as the card prints them: 1 is January, 45 is 2045. */
  @Test
  void a_one_digit_month_and_a_two_digit_year_are_read_as_the_card_prints_them() {
    String id = deposit("");
    open(id);
    assertThat(browser.findElement(By.cssSelector("label[for=expiryYear]")).getText())
        .isEqualTo("Expiry year YY or YYYY");
    // the name is left empty: it is optional, and says so
    assertThat(browser.findElement(By.cssSelector("label[for=cardholderName]")).getText())
        .isEqualTo("Name on card (optional)");
    send("4000000000000408", "1", "45", "123");
    assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    assertThat(payment(id).at("/paymentMethodDetails/cardExpiryMonth").asText()).isEqualTo("01");
    assertThat(payment(id).at("/paymentMethodDetails/cardExpiryYear").asText()).isEqualTo("2045");
  }

  /** A year of four digits that no card prints is named for what is wrong with it. */
  @ParameterizedTest
  @CsvSource({"2100, too far in the future", "1999, printed on the card", "204, such as 2030 or 30"})
  void a_year_no_card_prints_is_refused_for_its_reason(String year, String message) {
    String id = deposit("");
    open(id);
    send("4000000000000408", "12", year, "123");
    assertThat(browser.findElement(By.id("expiryYear-error")).getText()).contains(message);
    assertThat(payment(id).get("state").asText()).isEqualTo("CHECKOUT");
  }

  /** A shop's long name wraps instead of widening a phone's page; big and crypto amounts read as prices. */
  @Test
  void long_names_wrap_and_amounts_read_as_prices_on_a_360_pixel_screen() throws Exception {
    var shop = gw.keyedShop("www.supercalifragilisticexpialidociousgifts.example");
    Answer big = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1234567.89,\"currency\":\"EUR\"}",
        shop.key(), null);
    open(big.json().at("/result/id").asText());
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("1,234,567.89 EUR");
    Long scrollWidth = (Long) ((org.openqa.selenium.JavascriptExecutor) browser)
        .executeScript("return document.documentElement.scrollWidth;");
    assertThat(scrollWidth).isLessThanOrEqualTo(360);

    Answer crypto = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":12.5,\"currency\":\"USDT\"}");
    open(crypto.json().at("/result/id").asText());
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("12.50 USDT");
    Answer fils = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":1.25,\"currency\":\"BHD\"}");
    open(fils.json().at("/result/id").asText());
    assertThat(browser.findElement(By.id("amount")).getText()).isEqualTo("1.250 BHD");
  }

  @Test
  void the_form_works_with_the_keyboard_alone() {
    String id = deposit("");
    open(id);
    WebElement number = browser.findElement(By.id("cardNumber"));
    number.click();
    browser.switchTo().activeElement().sendKeys("4000000000000408", Keys.TAB);
    browser.switchTo().activeElement().sendKeys("Ann Lee", Keys.TAB);
    browser.switchTo().activeElement().sendKeys("12", Keys.TAB);
    browser.switchTo().activeElement().sendKeys("2045", Keys.TAB);
    browser.switchTo().activeElement().sendKeys("123", Keys.ENTER);
    assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
  }

  @Test
  void the_page_fits_a_360_pixel_screen() {
    open(deposit(""));
    Long scrollWidth = (Long) ((org.openqa.selenium.JavascriptExecutor) browser)
        .executeScript("return document.documentElement.scrollWidth;");
    assertThat(scrollWidth).isLessThanOrEqualTo(360);
    assertThat(browser.findElement(By.id("pay")).getSize().getWidth()).isGreaterThan(250);
  }

  @Test
  void the_expiry_and_security_code_inputs_line_up_on_wide_and_narrow_screens() {
    String id = deposit("");
    try {
      for (int width : new int[] {1024, 360}) {
        browser.manage().window().setSize(new Dimension(width, 800));
        open(id);
        assertThat(topsOfTheShortInputs()).as("at %d pixels", width).hasSize(1);
        // an error under one field of the row leaves the inputs beside it where they were
        browser.findElement(By.id("expiryYear")).sendKeys("3");
        browser.findElement(By.id("pay")).click();
        assertThat(browser.findElement(By.id("expiryYear-error")).isDisplayed()).isTrue();
        assertThat(topsOfTheShortInputs()).as("at %d pixels, with an error", width).hasSize(1);
        // and the error of a date already past, under the month and year together
        browser.findElement(By.id("expiryYear")).clear();
        send(null, "12", "2019", null);
        assertThat(browser.findElement(By.id("expiryDate-error")).isDisplayed()).isTrue();
        assertThat(topsOfTheShortInputs()).as("at %d pixels, with the date's error", width).hasSize(1);
        WebElement error = browser.findElement(By.id("expiryDate-error"));
        // (to the pixel: each rectangle is rounded on its own)
        assertThat(error.getRect().getX()).isCloseTo(browser.findElement(By.id("expiryMonth")).getRect().getX(),
            org.assertj.core.data.Offset.offset(1));
        WebElement year = browser.findElement(By.id("expiryYear"));
        assertThat(error.getRect().getX() + error.getRect().getWidth()).as("under both")
            .isCloseTo(year.getRect().getX() + year.getRect().getWidth(), org.assertj.core.data.Offset.offset(1));
      }
    } finally {
      browser.manage().window().setSize(new Dimension(360, 800));
    }
  }

  private static java.util.Set<Integer> topsOfTheShortInputs() {
    java.util.Set<Integer> tops = new java.util.HashSet<>();
    for (String field : List.of("expiryMonth", "expiryYear", "cardSecurityCode")) {
      tops.add(browser.findElement(By.id(field)).getRect().getY());
    }
    return tops;
  }

  @Test
  void the_customer_can_cancel() {
    String id = deposit("");
    open(id);
    // no return URL: the button promises no way back to the shop
    assertThat(browser.findElement(By.id("cancel")).getText()).isEqualTo("Cancel payment");
    browser.findElement(By.id("cancel")).click();
    assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Your payment was cancelled.");
    JsonNode p = payment(id);
    assertThat(p.get("state").asText()).isEqualTo("CANCELLED");
    assertThat(p.get("errorCode").asText()).isEqualTo("2.00");
  }

  /**
   * The page of a card sent with the request charges nothing when it is opened (a preview may
   * open it first) but sends a form, by its script, at once: the customer goes straight to the
   * result, and the page's Content-Security-Policy lets that script run and blocks nothing.
   */
  @Test
  void a_card_sent_with_the_request_skips_the_form() {
    String id = deposit(CARD_SENT);
    List<String> blocked = blockedByThePolicy(() -> {
      open(id);
      assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    });
    assertThat(blocked).as("what the Content-Security-Policy blocked").isEmpty();
    assertThat(browser.getPageSource()).doesNotContain("id=\"cardNumber\"");
    assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  /** Opening the merchant's link takes the customer on to the merchant, as it did when the GET charged the card. */
  @Test
  void a_card_sent_with_the_request_takes_the_customer_straight_back_to_the_merchant() throws Exception {
    atMerchant(thanks -> {
      String id = deposit(",\"returnUrl\":\"" + thanks + "?state={state}\"," + CARD_SENT.substring(1));
      open(id);
      new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10))
          .until(org.openqa.selenium.support.ui.ExpectedConditions.urlContains("/thanks"));
      assertThat(browser.getCurrentUrl()).isEqualTo(thanks + "?state=COMPLETED");
      assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
    });
  }

  /**
   * Out of sight (a tab opened in the background, a preview rendered off screen, as a scanner
   * that runs scripts has it) the page sends nothing: the card is charged once it is shown.
   */
  @Test
  void a_card_sent_with_the_request_is_charged_only_once_the_page_is_shown() throws Exception {
    String id = deposit(CARD_SENT);
    ChromeDriver chromium = (ChromeDriver) browser;
    // the page takes itself for hidden until the test shows it
    java.util.Map<String, Object> hidden = chromium.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument",
        java.util.Map.of("source", "window.shownByTest = false; Object.defineProperty(document, 'visibilityState', "
            + "{configurable: true, get: function () { return window.shownByTest ? 'visible' : 'hidden'; }});"));
    try {
      open(id);
      assertThat(browser.findElement(By.id("heading")).getText()).isEqualTo("Processing your payment");
      Thread.sleep(1_000); // room for a form sent by mistake to reach the gateway
      assertThat(payment(id).get("state").asText()).as("nothing charged while hidden").isEqualTo("CHECKOUT");

      chromium.executeScript("window.shownByTest = true; document.dispatchEvent(new Event('visibilitychange'));");
      assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    } finally {
      chromium.executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument",
          java.util.Map.of("identifier", hidden.get("identifier")));
    }
    assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  /** Without script the page waits for the customer, who sends the card on with its button. */
  @Test
  void without_script_a_card_sent_with_the_request_is_sent_on_by_the_button() {
    String id = deposit(CARD_SENT);
    ChromeDriver chromium = (ChromeDriver) browser;
    chromium.executeCdpCommand("Emulation.setScriptExecutionDisabled", java.util.Map.of("value", true));
    try {
      open(id);
      assertThat(browser.findElement(By.id("heading")).getText()).isEqualTo("Processing your payment");
      assertThat(payment(id).get("state").asText()).isEqualTo("CHECKOUT");
      browser.findElement(By.id("process")).click();
      assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    } finally {
      chromium.executeCdpCommand("Emulation.setScriptExecutionDisabled", java.util.Map.of("value", false));
    }
    assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "CHECKOUT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  /**
   * What the pages the browser opens while {@code steps} run find their Content-Security-Policy
   * blocks (a console error the customer never sees, and a script that does not run), each as
   * its directive and what it blocked; the pages must stay on the gateway's origin, where it is
   * kept.
   */
  private static List<String> blockedByThePolicy(Runnable steps) {
    ChromeDriver chromium = (ChromeDriver) browser;
    // run by the browser itself on every page before the page's own, whatever its policy allows
    Object listener = chromium.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", java.util.Map.of("source",
        "document.addEventListener('securitypolicyviolation', function (e) {"
        + " var seen = JSON.parse(localStorage.getItem('blocked') || '[]');"
        + " seen.push(e.violatedDirective + ' ' + e.blockedURI); localStorage.setItem('blocked', JSON.stringify(seen));"
        + " });")).get("identifier");
    try {
      steps.run();
      Object seen = ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
          "var seen = localStorage.getItem('blocked'); localStorage.removeItem('blocked'); return seen || '[]';");
      List<String> blocked = new ArrayList<>();
      TestGateway.JSON.readTree((String) seen).forEach(v -> blocked.add(v.asText()));
      return blocked;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      chromium.executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument", java.util.Map.of("identifier", listener));
    }
  }

  /** The listener of {@link #blockedByThePolicy} hears what the page's policy blocks: a script of no allowed hash. */
  @Test
  void what_the_pages_policy_blocks_is_heard() {
    List<String> blocked = blockedByThePolicy(() -> {
      open(deposit(""));
      ((org.openqa.selenium.JavascriptExecutor) browser).executeScript("var s = document.createElement('script');"
          + " s.textContent = 'document.title = 1'; document.body.appendChild(s);");
      new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(5)).until(driver -> ((org.openqa
          .selenium.JavascriptExecutor) driver).executeScript("return localStorage.getItem('blocked')") != null);
    });
    assertThat(blocked).singleElement().asString().startsWith("script-src");
  }

  @Test
  void a_bank_transfer_shows_the_bank_details_and_then_the_result() throws Exception {
    String id = deposit(",\"paymentMethod\":\"BANKTRANSFER\"");
    open(id);
    assertThat(browser.findElement(By.id("heading")).getText()).isEqualTo("Pay by bank transfer");
    browser.findElement(By.id("show-bank-details")).click();
    assertThat(browser.findElement(By.id("bank-iban")).getText()).as("in groups of four, as banks print it")
        .isEqualTo("DE89 3704 0044 0532 0130 00");
    assertThat(browser.getPageSource()).as("no reloading under a customer copying the details")
        .doesNotContain("http-equiv=\"refresh\"");
    String reference = browser.findElement(By.id("bank-paymentReference")).getText();
    assertThat(reference).startsWith("TG");
    try {
      browser.manage().window().setSize(new Dimension(320, 800));
      Object lines = ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
          "const r = document.createRange(); r.selectNodeContents(document.getElementById('bank-paymentReference'));"
          + " return r.getClientRects().length;");
      assertThat(lines).as("the reference on one line, to be copied whole, on a 320 pixel screen").isEqualTo(1L);
    } finally {
      browser.manage().window().setSize(new Dimension(360, 800));
    }
    assertThat(payment(id).get("state").asText()).isEqualTo("PENDING");
    assertThat(payment(id).at("/externalRefs/paymentReference").asText()).isEqualTo(reference);

    gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(10));
    browser.findElement(By.id("check-again")).click();
    assertThat(browser.findElement(By.id("result")).getText()).isEqualTo("Thank you: your payment is complete.");
    assertThat(operations(id)).containsExactly("DEPOSIT:COMPLETED", "DEPOSIT:PENDING", "CREATE_PAYMENT:CHECKOUT");
  }

  @Test
  void a_3ds_card_sent_with_the_request_goes_straight_to_the_challenge() {
    String id = deposit(",\"card\":{\"cardNumber\":\"5555000000000008\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}");
    open(id);
    browser.findElement(By.id("authenticate")).click();
    browser.findElement(By.id("result"));
    assertThat(payment(id).get("state").asText()).isEqualTo("COMPLETED");
  }

  @Test
  void a_form_without_its_csrf_token_is_refused() {
    String id = deposit("");
    Answer a = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("cardNumber=4000000000000408&expiryMonth=12&expiryYear=2045&cardSecurityCode=123&csrf=forged")));
    assertThat(a.status()).isEqualTo(403);
    assertThat(payment(id).get("state").asText()).isEqualTo("CHECKOUT");
  }

  @Test
  void the_page_is_served_with_strict_security_headers() {
    Answer a = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + deposit(""))).GET());
    assertThat(a.header("Content-Security-Policy")).contains("default-src 'none'").contains("frame-ancestors 'none'")
        .as("the page's scripts by their hashes, and no other")
        .containsPattern("script-src 'sha256-[A-Za-z0-9+/]+=*'( 'sha256-[A-Za-z0-9+/]+=*')*;")
        .doesNotContain("unsafe-inline").doesNotContain("strict-dynamic");
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(a.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(a.body()).contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; tea");
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + "0".repeat(32))).GET()).status()).isEqualTo(404);
  }

  /**
   * The page writes the deadline in UTC, all that a page without script can know, and its script
   * writes it again in the customer's own zone, with that zone, and with the date once it is not
   * the customer's today. Asia/Kolkata's half hour leaves no doubt which of the two is shown.
   */
  @Test
  void the_deadline_shows_in_the_customers_time_zone_and_without_script_in_utc() {
    String soon = deposit("");
    ShopId shop = gw.createShop(gw.merchant, "A day to pay", false, false, Duration.ofDays(1));
    Answer created = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\"}",
        gw.issueKey(shop, Environment.SANDBOX), null);
    String later = created.json().at("/result/id").asText();

    java.util.Map<String, Instant> deadlines = new java.util.HashMap<>();
    ChromeDriver chromium = (ChromeDriver) browser;
    chromium.executeCdpCommand("Emulation.setTimezoneOverride", java.util.Map.of("timezoneId", KOLKATA.getId()));
    try {
      open(soon);
      Instant by = deadline();
      deadlines.put(soon, by);
      assertThat(browser.findElement(By.id("pay-by")).getText())
          .matches("Please pay within (29|30) minutes \\(by " + Pattern.quote(inKolkata(by)) + "\\)\\.");

      open(later);
      by = deadline();
      deadlines.put(later, by);
      assertThat(inKolkata(by)).as("a day on (the longest timeout): never the customer's today").endsWith(
          DateTimeFormatter.ofPattern(" 'on' d MMMM", Locale.ENGLISH).format(by.atZone(KOLKATA)));
      assertThat(browser.findElement(By.id("pay-by")).getText())
          .matches("Please pay within (24 hours|23 hours 59 minutes) \\(by " + Pattern.quote(inKolkata(by)) + "\\)\\.");
    } finally {
      chromium.executeCdpCommand("Emulation.setTimezoneOverride", java.util.Map.of("timezoneId", ""));
    }

    // without script, the server's own words: the same deadline, in UTC
    deadlines.forEach((id, by) -> {
      String utc = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).format(by.atZone(ZoneOffset.UTC)) + " UTC";
      assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body()).containsPattern(
          "<time id=\"pay-by-time\"\\s+datetime=\"" + by + "\">" + utc + "( on [0-9]+ [A-Z][a-z]+)?</time>");
    });
  }

  private static final ZoneId KOLKATA = ZoneId.of("Asia/Kolkata");

  /** The deadline of the page in the browser, as its {@code <time>} gives it, shown in the customer's zone. */
  private static Instant deadline() {
    WebElement time = browser.findElement(By.id("pay-by-time"));
    Instant by = Instant.parse(time.getAttribute("datetime"));
    assertThat(time.getText()).as("the deadline in Kolkata's time").isEqualTo(inKolkata(by));
    return by;
  }

  /**
   * The deadline as a customer in Kolkata (+05:30 all year) reads it: the time and the zone, and
   * the date once it is not their today.
   */
  private static String inKolkata(Instant by) {
    ZonedDateTime local = by.atZone(KOLKATA);
    String text = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).format(local) + " GMT+5:30";
    if (!local.toLocalDate().equals(LocalDate.now(KOLKATA))) {
      text += DateTimeFormatter.ofPattern(" 'on' d MMMM", Locale.ENGLISH).format(local);
    }
    return text;
  }
}
