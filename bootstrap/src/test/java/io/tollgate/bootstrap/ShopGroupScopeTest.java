package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.Permission;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
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
    env = gw.commandLineEnvironment();
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
          "BANKTRANSFER", "EUR", 1, 100, null, null, null, null, List.of()), Instant.now());
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
      reference.addShopsToGroup(id, java.util.Arrays.stream(shops).map(s -> s.id().value()).toList(), "test",
          java.time.Instant.now());
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
    return result(gw.sinceStarted("/merchant-api/v1/payments" + query), user).findValuesAsText("id");
  }

  private static List<String> operationPayments(String query, String[] user) {
    return result(gw.sinceStarted("/merchant-api/v1/operations" + query), user).findValuesAsText("paymentId");
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

  @Test
  void a_scoped_user_sees_only_the_records_of_its_groups_shops_and_the_others_are_404() {
    String[] scoped = scopedUser("north@scope.example", group("North only", north));

    assertThat(payments("", scoped)).contains(northPayment).doesNotContain(southPayment);
    assertThat(operationPayments("", scoped)).contains(northPayment).doesNotContain(southPayment);
    assertThat(result("/merchant-api/v1/shops", scoped).findValuesAsText("id"))
        .containsExactly(String.valueOf(north.id().value()));
    assertThat(result("/merchant-api/v1/balances", scoped).findValuesAsText("name"))
        .isNotEmpty().allMatch(name -> name.startsWith("North Shop "));
    assertThat(result("/merchant-api/v1/available-withdrawal-balances", scoped).findValuesAsText("shopId"))
        .isNotEmpty().containsOnly(String.valueOf(north.id().value()));
    assertThat(result("/merchant-api/v1/customers", scoped).findValuesAsText("referenceId"))
        .contains("customer-of-" + north.id().value()).doesNotContain("customer-of-" + south.id().value());
    assertThat(result("/merchant-api/v1/customers?shopId.eq=" + south.id().value(), scoped)).isEmpty();
    assertThat(result("/merchant-api/v1/connectors", scoped).findValuesAsText("shopId"))
        .isNotEmpty().containsOnly(String.valueOf(north.id().value()));
    BigDecimal scopedBalance = result("/merchant-api/v1/terminals/" + balanceTerminal + "/balance", scoped)
        .at("/available/0/amount").decimalValue();
    assertThat(scopedBalance).isEqualByComparingTo(gw.ledgerSum(north.id(), "EUR")[0]);

    // a payment of a shop outside the group: 404 as another merchant's, though the user may resend
    String southWebhooks = "/merchant-api/v1/payments/" + southPayment + "/webhooks";
    assertThat(gw.merchantGet(southWebhooks, scoped).status()).isEqualTo(404);
    assertThat(gw.merchantPost(southWebhooks + "/resend", "", scoped).status()).isEqualTo(404);
    assertThat(gw.merchantGet("/merchant-api/v1/payments/" + northPayment + "/webhooks", scoped).status())
        .isEqualTo(200);

    // a user without a scope, as every user before shop groups scoped, sees both shops
    assertThat(payments("", everything)).contains(northPayment, southPayment);
    assertThat(operationPayments("", everything)).contains(northPayment, southPayment);
    assertThat(result("/merchant-api/v1/shops", everything).findValuesAsText("id"))
        .contains(String.valueOf(north.id().value()), String.valueOf(south.id().value()));
    assertThat(result("/merchant-api/v1/customers", everything).findValuesAsText("referenceId"))
        .contains("customer-of-" + north.id().value(), "customer-of-" + south.id().value());
    assertThat(gw.merchantGet(southWebhooks, everything).status()).isEqualTo(200);
    assertThat(result("/merchant-api/v1/terminals/" + balanceTerminal + "/balance", everything)
        .at("/available/0/amount").decimalValue())
        .isEqualByComparingTo(gw.ledgerSum(north.id(), "EUR")[0].add(gw.ledgerSum(south.id(), "EUR")[0]));
  }

  @Test
  void an_edit_of_the_groups_shops_counts_on_the_scoped_users_next_request() {
    long group = group("Moving", north);
    String[] scoped = scopedUser("moving@scope.example", group);
    String path = "/merchant-api/v1/shop-groups/" + group + "/shops";
    assertThat(payments("", scoped)).contains(northPayment).doesNotContain(southPayment);

    assertThat(edit("POST", path, shops(south), everything).status()).isEqualTo(201);
    assertThat(payments("", scoped)).contains(northPayment, southPayment);
    assertThat(gw.merchantGet("/merchant-api/v1/payments/" + southPayment + "/webhooks", scoped).status())
        .isEqualTo(200);

    assertThat(edit("DELETE", path, shops(north), everything).status()).isEqualTo(204);
    assertThat(payments("", scoped)).contains(southPayment).doesNotContain(northPayment);
    assertThat(result("/merchant-api/v1/shops", scoped).findValuesAsText("id"))
        .containsExactly(String.valueOf(south.id().value()));
    assertThat(gw.merchantGet("/merchant-api/v1/payments/" + northPayment + "/webhooks", scoped).status())
        .isEqualTo(404);

    assertThat(edit("DELETE", path, shops(south), everything).status()).isEqualTo(204);
    assertThat(payments("", scoped)).isEmpty();
    assertThat(result("/merchant-api/v1/shops", scoped)).isEmpty();
    assertThat(result("/merchant-api/v1/balances", scoped)).isEmpty();
  }

  @Test
  void a_scoped_user_cannot_widen_its_scope_and_sees_only_its_own_group() {
    long own = group("Own", north);
    long another = group("Another", south);
    String[] scoped = scopedUser("narrow@scope.example", own);

    assertThat(edit("POST", "/merchant-api/v1/shop-groups/" + own + "/shops", shops(south), scoped).status())
        .isEqualTo(403);
    assertThat(edit("DELETE", "/merchant-api/v1/shop-groups/" + own + "/shops", shops(north), scoped).status())
        .isEqualTo(403);
    assertThat(edit("POST", "/merchant-api/v1/shop-groups/" + another + "/shops", shops(north), scoped).status())
        .isEqualTo(404);
    assertThat(result("/merchant-api/v1/shop-groups/" + own, scoped).get("shops").findValuesAsText("id"))
        .containsExactly(String.valueOf(north.id().value()));
    assertThat(payments("", scoped)).doesNotContain(southPayment);

    assertThat(groupIds(result("/merchant-api/v1/shop-groups", scoped))).containsExactly(own);
    assertThat(result("/merchant-api/v1/shop-groups?offset=1", scoped)).isEmpty();
    assertThat(gw.merchantGet("/merchant-api/v1/shop-groups/" + another, scoped).status()).isEqualTo(404);
    assertThat(groupIds(result("/merchant-api/v1/shop-groups", everything))).contains(own, another);
  }

  /**
   * The BIN, e-mail, card, country and error-code groups guard every shop of the merchant (its
   * anti-fraud profiles, its connectors' cascading): a user scoped to some shops reads them but
   * cannot lift a blacklist that protects the others (found in the merchant API review).
   */
  @Test
  void a_scoped_user_reads_the_merchants_entry_groups_but_cannot_edit_them() {
    String[] scoped = scopedUser("blacklists@scope.example", group("Blacklists north", north));
    long cards = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.CARD,
        "Scope blocked cards", false).id();
    long codes = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.ERROR_CODE,
        "Scope cascade", false).id();
    String cardPath = "/merchant-api/v1/card-groups/" + cards;
    assertThat(edit("POST", cardPath + "/cards", "{\"cardNumbers\":[\"4000000000000408\"]}", everything).status())
        .isEqualTo(201);

    TestGateway.Answer lifted = edit("DELETE", cardPath + "/cards", "{\"cardNumbers\":[\"4000000000000408\"]}", scoped);
    assertThat(lifted.status()).as(lifted.body()).isEqualTo(403);
    assertThat(lifted.json().get("message").asText()).contains("scoped to a shop group");
    assertThat(edit("POST", cardPath + "/cards", "{\"cardNumbers\":[\"4000000000000002\"]}", scoped).status())
        .isEqualTo(403);
    assertThat(edit("POST", "/merchant-api/v1/error-code-groups/" + codes + "/error-codes",
        "{\"errorCodes\":[\"4.02\"]}", scoped).status()).isEqualTo(403);
    assertThat(result(cardPath, scoped).toString()).as("read, and unchanged").contains("400000******0408")
        .doesNotContain("400000******0002");
    assertThat(result("/merchant-api/v1/error-code-groups/" + codes, scoped).toString()).doesNotContain("\"4.02\"");
  }

  @Test
  void the_payments_and_operations_lists_report_on_one_shop_group() {
    long southOnly = group("South only", south);
    long northOnly = group("North reports", north);
    String filter = "?shopGroupId.eq=" + southOnly;
    assertThat(payments(filter, everything)).contains(southPayment).doesNotContain(northPayment);
    assertThat(operationPayments(filter, everything)).contains(southPayment).doesNotContain(northPayment);
    assertThat(operationPayments(filter + "&operation.in=CREATE_PAYMENT", everything)).contains(southPayment)
        .doesNotContain(northPayment);
    assertThat(payments("?shopGroupId.eq=" + group("Empty"), everything)).isEmpty();

    for (String list : List.of("payments", "operations")) {
      TestGateway.Answer theirs = gw.merchantGet("/merchant-api/v1/" + list + "?shopGroupId.eq=" + othersGroup,
          everything);
      assertThat(theirs.status()).as(list).isEqualTo(400);
      assertThat(theirs.json().get("errors").findValuesAsText("message")).containsExactly("unknown shop group");
      assertThat(theirs.json().get("errors").findValuesAsText("field")).containsExactly("shopGroupId.eq");
      TestGateway.Answer unknown = gw.merchantGet("/merchant-api/v1/" + list + "?shopGroupId.eq=999999", everything);
      assertThat(unknown.status()).isEqualTo(400);
      assertThat(unknown.json().get("errors").findValuesAsText("message")).containsExactly("unknown shop group");
      TestGateway.Answer notANumber = gw.merchantGet("/merchant-api/v1/" + list + "?shopGroupId.eq=south", everything);
      assertThat(notANumber.status()).isEqualTo(400);
      assertThat(notANumber.json().get("errors").findValuesAsText("field")).containsExactly("shopGroupId.eq");
    }

    // a scoped user reports on its own group; another group of its merchant is unknown to it
    String[] scoped = scopedUser("reporter@scope.example", northOnly);
    assertThat(payments("?shopGroupId.eq=" + northOnly, scoped)).contains(northPayment).doesNotContain(southPayment);
    assertThat(gw.merchantGet("/merchant-api/v1/payments" + filter, scoped).status()).isEqualTo(400);
  }

  /**
   * Reporting on a group needs SHOP_GROUP_VIEW, as reading the group does: the list names the
   * shops of the payments it shows, so a user refused the group's shops (403) used to read them
   * off the payments and operations filtered by it. A user scoped to a group reports on it
   * whatever its permissions, as it reads its own shops anyway.
   */
  @Test
  void reporting_on_a_shop_group_needs_the_permission_that_shows_its_shops() {
    long southOnly = group("Viewed south", south);
    String[] none = gw.merchantUser(gw.merchant, "no-view@scope.example");
    String[] viewer = gw.merchantUser(gw.merchant, "viewer@scope.example", Permission.SHOP_GROUP_VIEW);
    String password = gw.app.services().users().create(gw.merchant, "scoped-no-view@scope.example", null,
        EnumSet.noneOf(Permission.class), southOnly).password();
    String[] scopedWithout = {"scoped-no-view@scope.example", password};
    for (String list : List.of("payments", "operations")) {
      String path = "/merchant-api/v1/" + list + "?shopGroupId.eq=" + southOnly;
      assertThat(gw.merchantGet("/merchant-api/v1/shop-groups/" + southOnly, none).status()).isEqualTo(403);
      TestGateway.Answer refused = gw.merchantGet(path + "&created.gte=yesterday", none);
      assertThat(refused.status()).as("403 before the 400s").isEqualTo(403);
      assertThat(refused.body()).contains("SHOP_GROUP_VIEW").doesNotContain(southPayment);
      assertThat(gw.merchantGet(path + "&limit=1&limit=2", none).status()).as("403 before a repeated parameter")
          .isEqualTo(403);
      assertThat(gw.merchantGet(path, viewer).status()).isEqualTo(200);
      assertThat(gw.merchantGet(path, scopedWithout).status()).isEqualTo(200);
    }
    assertThat(payments("?shopGroupId.eq=" + southOnly, viewer)).contains(southPayment).doesNotContain(northPayment);
    assertThat(payments("?shopGroupId.eq=" + southOnly, scopedWithout)).contains(southPayment);
  }

  /**
   * A group the user may not report on is a bad parameter like any other: listed with the
   * request's other bad parameters, and refused even where a state filter already matches
   * nothing, as the README says, rather than answered with an empty page.
   */
  @Test
  void a_shop_group_the_user_may_not_report_on_is_refused_with_the_other_bad_parameters() {
    String[] scoped = scopedUser("strict@scope.example", group("Strict north", north));
    long southOnly = group("Strict south", south);
    for (String[] user : List.of(everything, scoped)) {
      long refused = user == everything ? othersGroup : southOnly;
      TestGateway.Answer withBadDate = gw.merchantGet("/merchant-api/v1/payments?created.gte=yesterday&shopGroupId.eq="
          + refused, user);
      assertThat(withBadDate.status()).isEqualTo(400);
      assertThat(withBadDate.json().get("errors").findValuesAsText("field"))
          .containsExactlyInAnyOrder("created.gte", "shopGroupId.eq");
      TestGateway.Answer repeated = gw.merchantGet("/merchant-api/v1/operations?limit=1&limit=2&shopGroupId.eq="
          + refused, user);
      assertThat(repeated.status()).isEqualTo(400);
      assertThat(repeated.json().get("errors").findValuesAsText("field"))
          .containsExactlyInAnyOrder("limit", "shopGroupId.eq");

      TestGateway.Answer noStateMatches = gw.merchantGet("/merchant-api/v1/operations?paymentState.in=OPENED"
          + "&shopGroupId.eq=" + refused, user);
      assertThat(noStateMatches.status()).as(noStateMatches.body()).isEqualTo(400);
      assertThat(noStateMatches.json().get("errors").findValuesAsText("message")).containsExactly("unknown shop group");
    }
    assertThat(result("/merchant-api/v1/operations?paymentState.in=OPENED&shopGroupId.eq=" + southOnly, everything))
        .isEmpty();
  }

  /**
   * A refused value goes back with whatever can be a card number masked, and only that: a group
   * id of 20 digits (too large for an id, so a 400) is no card number and goes back as given; a
   * card number typed in the filter, alone or in groups, or given as a shop id, is masked.
   */
  @Test
  void a_refused_value_is_masked_only_where_it_can_be_a_card_number() {
    for (String list : List.of("payments", "operations")) {
      String path = "/merchant-api/v1/" + list + "?shopGroupId.eq=";
      for (String tooLarge : List.of("12345678901234567890", "98765432109876543210123")) {
        TestGateway.Answer a = gw.merchantGet(path + tooLarge, everything);
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.json().at("/errors/0/field").asText()).isEqualTo("shopGroupId.eq");
        assertThat(a.json().at("/errors/0/rejectedValue").asText()).isEqualTo(tooLarge);
        assertThat(a.json().at("/errors/0/message").asText()).isEqualTo("must be at most 9223372036854775807");
      }
      for (String card : List.of("4111111111111111", "4111%201111%201111%201111", "4111-1111-1111-1111")) {
        TestGateway.Answer a = gw.merchantGet(path + card, everything);
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.body()).doesNotContain("1111111111").doesNotContain("1111 1111 1111").doesNotContain("1111-1111");
        assertThat(a.json().at("/errors/0/rejectedValue").asText()).isEqualTo("411111******1111");
      }
    }
    long id = group("Card numbers are no shops");
    TestGateway.Answer shops = edit("POST", "/merchant-api/v1/shop-groups/" + id + "/shops",
        "{\"shops\":[4111111111111111, 12345678901234567890]}", everything);
    assertThat(shops.status()).isEqualTo(400);
    assertThat(shops.body()).doesNotContain("4111111111111111");
    assertThat(shops.json().get("errors").findValuesAsText("rejectedValue"))
        .containsExactly("411111******1111", "12345678901234567890");
  }

  // The command line

  private static CommandLineRun tollgate(String... args) {
    return CommandLineRun.of(env, args);
  }

  private static CommandLineRun succeeds(String... args) {
    CommandLineRun r = tollgate(args);
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
  void operators_scope_users_with_the_command_line_and_a_running_server_follows_within_five_seconds()
      throws Exception {
    long northOnly = group("CLI north", north);
    CommandLineRun created = succeeds("user", "create", "--merchant", String.valueOf(gw.merchant.value()), "--email",
        "cli-scoped@scope.example", "--permissions", "SHOP_GROUP_VIEW", "--shop-group", String.valueOf(northOnly));
    assertThat(created.out()).contains("the shops of shop group " + northOnly);
    String[] user = {"cli-scoped@scope.example", created.out().replaceAll("(?s).*Password: (\\S+).*", "$1")};
    assertThat(payments("", user)).contains(northPayment).doesNotContain(southPayment);

    assertThat(succeeds("user", "set-shop-group", "--email", "CLI-Scoped@scope.example", "--none").out())
        .contains("user cli-scoped@scope.example now sees every shop of its merchant");
    within5Seconds(() -> payments("", user).contains(southPayment));

    long southOnly = group("CLI south", south);
    succeeds("user", "set-shop-group", "--email", "cli-scoped@scope.example", "--shop-group",
        String.valueOf(southOnly));
    within5Seconds(() -> !payments("", user).contains(northPayment));
    assertThat(payments("", user)).contains(southPayment);

    CommandLineRun listed = succeeds("user", "list", "--merchant", String.valueOf(gw.merchant.value()));
    assertThat(listed.out()).contains(
        "cli-scoped@scope.example\tpermissions=SHOP_GROUP_VIEW\tdisabled=false\tshopGroup=" + southOnly,
        "everything@scope.example\tpermissions=SETTINGS_EDIT,SHOP_EDIT,SHOP_GROUP_EDIT,SHOP_GROUP_VIEW"
            + "\tdisabled=false\tshopGroup=-");
    assertThat(listed.out()).doesNotContain("$2").doesNotContain(user[1]);
    succeeds("user", "disable", "--email", "cli-scoped@scope.example");
    assertThat(succeeds("user", "list", "--merchant", String.valueOf(gw.merchant.value())).out())
        .contains("cli-scoped@scope.example\tpermissions=SHOP_GROUP_VIEW\tdisabled=true");
  }

  @Test
  void the_command_line_refuses_a_shop_group_of_another_merchant_or_an_unknown_one() {
    String merchant = String.valueOf(gw.merchant.value());
    CommandLineRun foreign = tollgate("user", "create", "--merchant", merchant, "--email", "foreign@scope.example",
        "--shop-group", String.valueOf(othersGroup));
    assertThat(foreign.exit()).isEqualTo(1);
    assertThat(foreign.err()).contains("shopGroup: is not a shop group of the user's merchant");
    assertThat(tollgate("user", "list", "--merchant", merchant).out()).doesNotContain("foreign@scope.example");

    gw.merchantUser(gw.merchant, "steady@scope.example");
    for (String group : List.of(String.valueOf(othersGroup), "999999")) {
      CommandLineRun refused = tollgate("user", "set-shop-group", "--email", "steady@scope.example", "--shop-group", group);
      assertThat(refused.exit()).as(group).isEqualTo(1);
      assertThat(refused.err()).contains("shopGroup: is not a shop group of the user's merchant");
    }
    assertThat(tollgate("user", "list", "--merchant", merchant).out())
        .contains("steady@scope.example\tpermissions=\tdisabled=false\tshopGroup=-");
    CommandLineRun unknownUser = tollgate("user", "set-shop-group", "--email", "nobody@scope.example", "--none");
    assertThat(unknownUser.exit()).isEqualTo(1);
    assertThat(unknownUser.err()).contains("No merchant user has the e-mail address nobody@scope.example");
    assertThat(tollgate("user", "set-shop-group", "--email", "steady@scope.example").exit()).isNotZero();
    assertThat(tollgate("user", "list", "--merchant", "999999").exit()).isEqualTo(1);
  }
}
