package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.user.Permission;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A bank transfer whose first terminal will not open it, with a code its connector cascades on,
 * is opened by the next connector's terminal, as a card deposit is charged there (CONTRACT
 * section 3): it was declined for good, and the customer never got the instructions the next
 * terminal would have given.
 */
class BankTransferCascadeTest {

  /** Terminals named so refuse to open a bank transfer, 4.02; all else goes to the sandbox. */
  private static final String REFUSING = "refusing";

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of(), sandbox -> (PaymentProcessor) Proxy.newProxyInstance(
        PaymentProcessor.class.getClassLoader(), new Class<?>[] {PaymentProcessor.class}, (proxy, method, args) -> {
          if (method.getName().equals("startBankTransfer")
              && ((PaymentProcessor.Terminal) args[1]).name().endsWith(REFUSING)) {
            return PaymentProcessor.Result.declined(ErrorCode.E4_02_DO_NOT_HONOR, "refused-1", "05");
          }
          try {
            return method.invoke(sandbox, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        }));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** A shop whose bank transfers go to {@code first}, cascading on 4.02 to {@code second}. */
  private static TestGateway.KeyedShop shopWith(String name, String first, String second) {
    TestGateway.KeyedShop shop = gw.keyedShop(name);
    ReferenceData reference = gw.app.services().persistence().referenceData();
    long a = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, first, "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT"), Instant.now()));
    long b = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, second, "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT"), Instant.now()));
    long codes = gw.app.services().groups().create(gw.merchant, GroupKind.ERROR_CODE, name + " codes", false).id();
    String[] admin = gw.merchantUser(gw.merchant, "admin@" + name.replace(' ', '-') + ".example", Permission.values());
    TestGateway.Answer added = gw.send(HttpRequest.newBuilder(gw.uri("/merchant-api/v1/error-code-groups/" + codes
        + "/error-codes")).POST(HttpRequest.BodyPublishers.ofString("{\"errorCodes\":[\"4.02\"]}"))
        .header("Content-Type", "application/json").header("Authorization", TestGateway.basic(admin)));
    assertThat(added.status()).as(added.body()).isIn(201, 204);
    reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), a, null, "ACTIVE", "BANKTRANSFER",
        "EUR", 1, 100, null, null, codes, null, null), Instant.now());
    reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), b, null, "ACTIVE", "BANKTRANSFER",
        "EUR", 2, 100, null, null, null, null, null), Instant.now());
    return shop;
  }

  /** A bank transfer deposit of the shop, opened host to host: the payment as the PATCH answers it. */
  private static JsonNode open(TestGateway.KeyedShop shop) {
    String id = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","paymentMethod":"BANKTRANSFER","amount":40.00,"currency":"EUR"}""",
        shop.key(), null).json().at("/result/id").asText();
    TestGateway.Answer opened = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.7\"}", shop.key());
    assertThat(opened.status()).as(opened.body()).isEqualTo(200);
    return opened.json().get("result");
  }

  @Test
  void a_bank_transfer_its_first_terminal_refuses_is_opened_by_the_next() {
    TestGateway.KeyedShop shop = shopWith("Bank cascade", "Bank A " + REFUSING, "Bank B");
    JsonNode p = open(shop);
    String id = p.get("id").asText();
    assertThat(p.get("state").asText()).isEqualTo("PENDING");
    assertThat(p.get("terminalName").asText()).isEqualTo("Bank B");
    assertThat(p.at("/externalRefs/iban").asText()).isNotBlank();
    assertThat(p.has("errorCode")).as("the payment, not declined, has none").isFalse();

    // (the job may have settled the transfer since: a DEPOSIT more, COMPLETED)
    List<JsonNode> ops = gw.merchantOperations(shop.id(), id).subList(0, 4);
    assertThat(ops).extracting(o -> o.get("operation").asText())
        .containsExactly("CREATE_PAYMENT", "DEPOSIT", "CASCADING", "DEPOSIT");
    assertThat(ops.get(1).get("terminalName").asText()).isEqualTo("Bank A " + REFUSING);
    assertThat(ops.get(1).get("errorCode").asText()).startsWith("4.02");
    assertThat(ops.get(3).get("terminalName").asText()).isEqualTo("Bank B");
  }

  /**
   * The bank-transfer button pressed twice on the checkout page, when the first press was opened
   * by the next terminal: the second goes on as the first did, keeping the customer's mark for
   * their way back to the shop, as after a transfer opened at once. It was taken for a form from
   * a stale tab, and the mark was cleared.
   */
  @Test
  void the_transfer_button_pressed_twice_after_a_cascade_goes_on_as_the_first_press() {
    TestGateway.KeyedShop shop = shopWith("Bank double press", "Bank E " + REFUSING, "Bank F");
    String id = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","paymentMethod":"BANKTRANSFER","amount":40.00,"currency":"EUR",
         "returnUrl":"https://shop.example/thanks"}""", shop.key(), null).json().at("/result/id").asText();
    TestGateway.Answer page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET());
    java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
        .matcher(page.body());
    assertThat(csrf.find()).as(page.body()).isTrue();
    HttpRequest.Builder press = HttpRequest.newBuilder(gw.uri("/checkout/" + id + "/bank-transfer"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + java.net.URLEncoder.encode(csrf.group(1),
            java.nio.charset.StandardCharsets.UTF_8)));

    TestGateway.Answer first = gw.send(press);
    assertThat(first.status()).isEqualTo(303);
    assertThat(gw.get("/api/v1/payments/" + id, shop.key()).json().at("/result/terminalName").asText())
        .isEqualTo("Bank F");
    TestGateway.Answer second = gw.send(press);

    assertThat(second.status()).isEqualTo(303);
    assertThat(second.header("Location")).isEqualTo("/checkout/" + id);
    assertThat(second.header("Set-Cookie")).startsWith("tollgate_returning=1").contains("Max-Age=1800");
  }

  /** Refused by every terminal, it is declined once, with the last one's code, and its steps say who. */
  @Test
  void a_bank_transfer_every_terminal_refuses_is_declined_once() {
    TestGateway.KeyedShop shop = shopWith("Bank refusals", "Bank C " + REFUSING, "Bank D " + REFUSING);
    JsonNode p = open(shop);
    assertThat(p.get("state").asText()).isEqualTo("DECLINED");
    assertThat(p.get("errorCode").asText()).isEqualTo("4.02");
    assertThat(p.get("terminalName").asText()).isEqualTo("Bank D " + REFUSING);
    List<JsonNode> ops = gw.merchantOperations(shop.id(), p.get("id").asText());
    assertThat(ops).extracting(o -> o.get("operation").asText() + " " + o.path("terminalName").asText("-"))
        .containsExactly("CREATE_PAYMENT -", "DEPOSIT Bank C " + REFUSING, "CASCADING Bank C " + REFUSING,
            "DEPOSIT Bank D " + REFUSING);
    long events = gw.database.jdbi().withHandle(h -> h.createQuery(
        "SELECT count(*) FROM webhook_events WHERE payment_id = :id").bind("id", p.get("id").asText())
        .mapTo(Long.class).one());
    assertThat(events).as("one event, for the decline").isEqualTo(1);
  }
}
