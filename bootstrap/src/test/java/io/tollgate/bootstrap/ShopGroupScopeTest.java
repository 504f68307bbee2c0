package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.Permission;
import io.tollgate.persistence.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Shop groups at work (CONTRACT section 8): a merchant user scoped to a shop group sees only the
 * records of the shops in its group, as they are at each request, and the payments and
 * operations lists report on one group with {@code shopGroupId.eq}.
 */
class ShopGroupScopeTest {

  static TestGateway gw;
  static Map<String, String> env;
  static ReferenceData reference;
  static TestGateway.KeyedShop north;
  static TestGateway.KeyedShop south;
  static String northPayment;
  static String southPayment;
  static long plainTerminal;
  static long balanceTerminal;
  static MerchantId other;
  static long othersGroup;
  static String[] everything;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    env = new HashMap<>();
    env.put("TOLLGATE_DB_URL", gw.database.jdbcUrl());
    env.put("TOLLGATE_DB_USER", TestDatabase.user());
    env.put("TOLLGATE_DB_PASSWORD", TestDatabase.password());
    env.put("TOLLGATE_DATA_DIR", gw.dataDirectory.toString());
    env.put("TOLLGATE_MASTER_KEY", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");
    env.put("TOLLGATE_PORT", "0");
    env.put("TOLLGATE_HOST", "127.0.0.1");
    reference = gw.app.services().persistence().referenceData();
    north = gw.keyedShop("North Shop");
    south = gw.keyedShop("South Shop");
    northPayment = gw.completedDeposit("11.00", "EUR", north.key());
    southPayment = gw.completedDeposit("22.00", "EUR", south.key());
    for (TestGateway.KeyedShop shop : List.of(north, south)) {
      TestGateway.Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\","
          + "\"customer\":{\"referenceId\":\"customer-of-" + shop.id().value() + "\",\"firstName\":\"Ann\","
          + "\"lastName\":\"Lee\",\"email\":\"ann@example.com\"}}", shop.key(), null);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
    }
    plainTerminal = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Plain", "ACTIVE", "Sandbox",
        "SANDBOX", "Sandbox API", List.of("DEPOSIT"), Instant.now()));
    balanceTerminal = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "With Balance", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox API", List.of("DEPOSIT", "BALANCE"), Instant.now()));
    for (TestGateway.KeyedShop shop : List.of(north, south)) {
      reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), balanceTerminal, null, "ACTIVE",
          "BANKTRANSFER", "EUR", 1, 100, null, null, null, null), Instant.now());
    }
    other = gw.app.services().shops().createMerchant("Other Merchant");
    othersGroup = reference.createShopGroup(other, "Theirs", Instant.now());
    everything = gw.merchantUser(gw.merchant, "everything@scope.example", Permission.values());
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static long group(String name, TestGateway.KeyedShop... shops) {
    long id = reference.createShopGroup(gw.merchant, name, Instant.now());
    if (shops.length > 0) {
      reference.addShopsToGroup(id, java.util.Arrays.stream(shops).map(s -> s.id().value()).toList());
    }
    return id;
  }

  /** A user with every permission, scoped to the group. */
  private static String[] scopedUser(String email, long group) {
    String password = gw.app.services().users().create(gw.merchant, email, null, EnumSet.allOf(Permission.class), group)
        .password();
    return new String[] {email, password};
  }

  private static JsonNode result(String path, String[] user) {
    TestGateway.Answer a = gw.merchantGet(path, user);
    assertThat(a.status()).as(path + " " + a.body()).isEqualTo(200);
    return a.json().get("result");
  }

  private static List<String> payments(String query, String[] user) {
    return result("/merchant-api/v1/payments" + query, user).findValuesAsText("id");
  }

  private static List<String> operationPayments(String query, String[] user) {
    return result("/merchant-api/v1/operations" + query, user).findValuesAsText("paymentId");
  }

  private static List<Long> groupIds(JsonNode groups) {
    List<Long> ids = new java.util.ArrayList<>();
    groups.forEach(g -> ids.add(g.get("id").asLong()));
    return ids;
  }

  private static TestGateway.Answer edit(String method, String path, String body, String[] user) {
    return gw.send(HttpRequest.newBuilder(gw.uri(path)).method(method, HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", TestGateway.basic(user)));
  }

  private static String shops(TestGateway.KeyedShop... shops) {
    return "{\"shops\":[" + String.join(",", java.util.Arrays.stream(shops).map(s -> String.valueOf(s.id().value()))
        .toList()) + "]}";
  }

  // The command line

  private record Result(int exit, String out, String err) {}

  private static Result tollgate(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), env);
    return new Result(exit, out.toString(), err.toString());
  }

  private static Result succeeds(String... args) {
    Result r = tollgate(args);
    assertThat(r.exit()).as(r.err()).isZero();
    return r;
  }

  /** Asks until the condition holds; fails after the README's five seconds and a little for a poll under load. */
  private static void within5Seconds(Supplier<Boolean> condition) throws InterruptedException {
    long start = System.nanoTime();
    while (!condition.get()) {
      if (System.nanoTime() - start > Duration.ofMillis(5_500).toNanos()) {
        throw new AssertionError("not within five seconds");
      }
      Thread.sleep(100);
    }
  }

  @Test
  void the_command_line_refuses_a_shop_group_of_another_merchant_or_an_unknown_one() {
    String merchant = String.valueOf(gw.merchant.value());
    Result foreign = tollgate("user", "create", "--merchant", merchant, "--email", "foreign@scope.example",
        "--shop-group", String.valueOf(othersGroup));
    assertThat(foreign.exit()).isEqualTo(1);
    assertThat(foreign.err()).contains("shopGroup: is not a shop group of the user's merchant");
    assertThat(tollgate("user", "list", "--merchant", merchant).out()).doesNotContain("foreign@scope.example");

    gw.merchantUser(gw.merchant, "steady@scope.example");
    for (String group : List.of(String.valueOf(othersGroup), "999999")) {
      Result refused = tollgate("user", "set-shop-group", "--email", "steady@scope.example", "--shop-group", group);
      assertThat(refused.exit()).as(group).isEqualTo(1);
      assertThat(refused.err()).contains("shopGroup: is not a shop group of the user's merchant");
    }
    assertThat(tollgate("user", "list", "--merchant", merchant).out())
        .contains("steady@scope.example\tpermissions=\tdisabled=false\tshopGroup=-");
    Result unknownUser = tollgate("user", "set-shop-group", "--email", "nobody@scope.example", "--none");
    assertThat(unknownUser.exit()).isEqualTo(1);
    assertThat(unknownUser.err()).contains("No merchant user has the e-mail address nobody@scope.example");
    assertThat(tollgate("user", "set-shop-group", "--email", "steady@scope.example").exit()).isNotZero();
    assertThat(tollgate("user", "list", "--merchant", "999999").exit()).isEqualTo(1);
  }
}
