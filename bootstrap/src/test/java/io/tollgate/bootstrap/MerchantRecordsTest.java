package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.Permission;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The merchant API's records: payments, operations, customers and the reference lists. */
class MerchantRecordsTest {

  static TestGateway gw;
  static String[] reader;
  static String[] viewer;
  static String[] stranger;
  static String[] boss;
  static MerchantId other;
  static String completed;
  static String declined;
  static long balanceTerminal;
  static long plainTerminal;
  static long shopGroup;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    reader = gw.merchantUser(gw.merchant, "reader@records.example");
    viewer = gw.merchantUser(gw.merchant, "viewer@records.example", Permission.SHOP_GROUP_VIEW, Permission.SHOP_GROUP_EDIT);
    boss = gw.merchantUser(gw.merchant, "boss@records.example", Permission.values());
    other = gw.app.services().shops().createMerchant("Other Merchant");
    stranger = gw.merchantUser(other, "boss@other-records.example", Permission.values());

    completed = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", "15.00", false);
    gw.patch("/api/v1/payments/" + completed, "{\"customerIp\":\"203.0.113.7\"}");
    TestGateway.Answer d = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":7,"currency":"EUR",
         "customer":{"referenceId":"cust-42","firstName":"Ann","lastName":"Lee","email":"ann@example.com"},
         "billingAddress":{"countryCode":"DE","city":"Berlin","addressLine1":"Unter den Linden 1","postalCode":"10117"},
         "card":{"cardNumber":"4000000000000416","expiryMonth":"12","expiryYear":"2045"}}""");
    declined = d.json().at("/result/id").asText();
    gw.patch("/api/v1/payments/" + declined, "{\"customerIp\":\"203.0.113.7\"}");

    ReferenceData ref = gw.app.services().persistence().referenceData();
    balanceTerminal = ref.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Acquirer With Balance", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox API", List.of("DEPOSIT", "BALANCE"), Instant.now()));
    plainTerminal = ref.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Acquirer Without Balance", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox API", List.of("DEPOSIT"), Instant.now()));
    ref.createConnector(new ReferenceData.Connector(0, gw.shop.value(), balanceTerminal, null, "ACTIVE", "BASIC_CARD",
        "EUR", 1, 100, null, null, null, null, null), Instant.now());
    ref.createConnector(new ReferenceData.Connector(0, gw.shop.value(), plainTerminal, null, "ACTIVE", "BANKTRANSFER",
        "EUR", 1, 100, new java.math.BigDecimal("1"), new java.math.BigDecimal("5000"), null, null, null), Instant.now());
    ref.createCounterparty(new ReferenceData.Counterparty(0, gw.merchant, "Partner Ltd", "A-1", "Affiliates",
        "P-1", java.time.LocalDate.of(2026, 3, 1), List.of("MERCHANT"), Instant.now()));
    long profile = ref.createAntifraudProfile(gw.merchant, "Strict", "UTC", Instant.now());
    ref.addAntifraudRule(profile, new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 3, 60));
    shopGroup = ref.createShopGroup(gw.merchant, "EU shops", Instant.now());
    for (GroupKind kind : GroupKind.values()) {
      gw.app.services().groups().create(gw.merchant, kind, "A " + kind + " group", false);
    }
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static JsonNode result(String path, String[] user) {
    TestGateway.Answer a = gw.merchantGet(path, user);
    assertThat(a.status()).as(path + " " + a.body()).isEqualTo(200);
    return a.json().get("result");
  }

  static JsonNode byOperation(JsonNode list, String operation) {
    for (JsonNode n : list) {
      if (n.get("operation").asText().equals(operation)) {
        return n;
      }
    }
    throw new AssertionError(operation + " not in " + list);
  }

  static JsonNode byId(JsonNode list, String id) {
    for (JsonNode n : list) {
      if (n.get("id").asText().equals(id)) {
        return n;
      }
    }
    throw new AssertionError(id + " not in " + list);
  }

  @Test
  void payments_are_listed_flat_newest_first_for_the_merchant_only() {
    JsonNode payments = result(gw.sinceStarted("/merchant-api/v1/payments"), reader);
    assertThat(payments.get(0).get("id").asText()).isEqualTo(declined);
    JsonNode p = byId(payments, declined);
    assertThat(p.get("type").asText()).isEqualTo("DEPOSIT");
    assertThat(p.get("method").asText()).isEqualTo("BASIC_CARD");
    assertThat(p.get("state").asText()).isEqualTo("DECLINED");
    assertThat(p.get("errorCode").asText()).as("code and message, as the reference writes them")
        .isEqualTo("4.00 Declined by Issuer");
    assertThat(p.get("merchantName").asText()).isEqualTo("Test Merchant");
    assertThat(p.get("shopName").asText()).isEqualTo("Test Shop");
    assertThat(p.get("customerReferenceId").asText()).isEqualTo("cust-42");
    assertThat(p.get("customerEmail").asText()).isEqualTo("ann@example.com");
    assertThat(p.get("billingCity").asText()).isEqualTo("Berlin");
    assertThat(p.get("customerAccountNumber").asText()).isEqualTo("400000******0416");
    assertThat(p.get("cardBrand").asText()).isEqualTo("VISA");
    assertThat(p.get("cardCountryCode").asText()).as("issuing country from the seeded BIN data").isEqualTo("US");
    assertThat(p.get("cardType").asText()).as("type and bank from the seeded BIN data").isEqualTo("CREDIT");
    assertThat(p.get("cardIssuingOrganization").asText()).isEqualTo("Tollgate Sandbox Bank");
    assertThat(p.get("created").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}");

    TestGateway.Answer first = gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=1"), reader);
    assertThat(first.json().get("hasMore").asBoolean()).isTrue();
    assertThat(gw.merchantGet(gw.sinceStarted("/merchant-api/v1/payments?limit=2"), reader).json().get("hasMore")
        .asBoolean()).isFalse();
    assertThat(result(gw.sinceStarted("/merchant-api/v1/payments"), stranger)).isEmpty();

    String hourAgo = LocalDateTime.now(ZoneOffset.UTC).minusHours(1).format(DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss"));
    assertThat(result(gw.sinceStarted("/merchant-api/v1/payments?created.lt=" + hourAgo), reader)).isEmpty();
    assertThat(gw.merchantGet("/merchant-api/v1/payments?created.gte=today", reader).status()).isEqualTo(400);
  }

  /**
   * Without {@code created.gte} or {@code completed.gte} the lists read from the start of today,
   * UTC: a payment made a minute before midnight, and its steps, are left out; one made at
   * midnight, and its steps, are listed.
   */
  @Test
  void without_a_window_the_lists_read_from_the_start_of_today_utc() {
    OwnMerchant merchant = ownMerchant();
    String[] user = merchant.user();
    String yesterday = gw.completedDeposit("1.00", "EUR", merchant.key());
    String today = gw.completedDeposit("2.00", "EUR", merchant.key());

    JsonNode payments;
    JsonNode operations;
    LocalDate day;
    do {
      // read again on the new day if the day turned meanwhile
      day = LocalDate.now(ZoneOffset.UTC);
      Instant midnight = day.atStartOfDay().toInstant(ZoneOffset.UTC);
      madeAt(yesterday, midnight.minusSeconds(60));
      madeAt(today, midnight);
      payments = result("/merchant-api/v1/payments", user);
      operations = result("/merchant-api/v1/operations", user);
    } while (!day.equals(LocalDate.now(ZoneOffset.UTC)));

    assertThat(payments.findValuesAsText("id")).containsExactly(today);
    assertThat(operations.findValuesAsText("paymentId")).isNotEmpty().containsOnly(today);
  }

  /** A user of a merchant of its own, which has no records yet, and the API key of its shop. */
  record OwnMerchant(String[] user, String key) {}

  private static final java.util.concurrent.atomic.AtomicInteger OWN_MERCHANTS =
      new java.util.concurrent.atomic.AtomicInteger();

  static OwnMerchant ownMerchant() {
    int n = OWN_MERCHANTS.incrementAndGet();
    MerchantId merchant = gw.app.services().shops().createMerchant("Own Merchant " + n);
    ShopId shop = gw.createShop(merchant, "Own Shop " + n, false);
    return new OwnMerchant(gw.merchantUser(merchant, "own-" + n + "@records.example"),
        gw.issueKey(shop, gw.app.services().environment()));
  }

  /** Moves a payment, and each of its steps, to {@code time}. */
  private static void madeAt(String payment, Instant time) {
    OffsetDateTime at = time.atOffset(ZoneOffset.UTC);
    gw.database.jdbi().useHandle(h -> {
      h.createUpdate("UPDATE payments SET created = :at, updated = :at WHERE id = :id")
          .bind("at", at).bind("id", payment).execute();
      h.createUpdate("UPDATE payment_operations SET started = :at, completed = :at WHERE payment_id = :id")
          .bind("at", at).bind("id", payment).execute();
    });
  }

  @Test
  void operations_filter_by_name_and_state_and_refuse_unknown_names() {
    JsonNode all = result(gw.sinceStarted("/merchant-api/v1/operations?limit=100"), reader);
    assertThat(all.findValuesAsText("operation")).contains("CREATE_PAYMENT", "DEPOSIT");
    JsonNode creates = result(gw.sinceStarted("/merchant-api/v1/operations?operation.in=CREATE_PAYMENT"), reader);
    assertThat(creates).hasSize(2);
    assertThat(creates.findValuesAsText("operation")).containsOnly("CREATE_PAYMENT");
    JsonNode done = result(gw.sinceStarted(
        "/merchant-api/v1/operations?operation.in=DEPOSIT,CREATE_PAYMENT&paymentState.in=COMPLETED"), reader);
    assertThat(done.findValuesAsText("paymentId")).containsOnly(completed);
    assertThat(done.get(0).get("shopName").asText()).isEqualTo("Test Shop");
    assertThat(done.get(0).get("paymentAmount").decimalValue()).isEqualByComparingTo("15.00");
    // what the step did and why, in the reference's rawPaymentData
    JsonNode charge = byOperation(done, "DEPOSIT");
    assertThat(charge.get("rawPaymentData").asText()).contains("host-to-host from 203.0.113.7");
    JsonNode refused = byOperation(result(
        gw.sinceStarted("/merchant-api/v1/operations?operation.in=DEPOSIT&paymentState.in=DECLINED"), reader),
        "DEPOSIT");
    assertThat(refused.get("errorCode").asText()).isEqualTo("4.00 Declined by Issuer");

    for (String bad : new String[] {"operation.in=FOO", "operation.in=DEPOSIT,deposit", "paymentState.in=DONE",
        "operation.in=DEPOSIT,", "paymentState.in=,", "completed.gte=2026-13-01T00:00:00", "completed.lt=x"}) {
      TestGateway.Answer a = gw.merchantGet("/merchant-api/v1/operations?" + bad, reader);
      assertThat(a.status()).as(bad).isEqualTo(400);
      assertThat(a.json().get("errors").get(0).get("field").asText()).isEqualTo(bad.substring(0, bad.indexOf('=')));
    }
    // a card number pasted into a filter is not quoted back in clear by the message naming it,
    // whole or split by the list's commas
    for (String pastedCard : new String[] {"4499806647341205", "4499,8066,4734,1205"}) {
      TestGateway.Answer pasted = gw.merchantGet("/merchant-api/v1/operations?operation.in=" + pastedCard, reader);
      assertThat(pasted.status()).isEqualTo(400);
      assertThat(pasted.body()).doesNotContain(pastedCard).doesNotContain("8066").doesNotContain("4734")
          .contains("unknown name; expected one of");
    }
    assertThat(result(gw.sinceStarted("/merchant-api/v1/operations"), stranger)).isEmpty();
    // states the reference lists but no payment here is ever in: accepted, they match nothing
    assertThat(result(gw.sinceStarted("/merchant-api/v1/operations?paymentState.in=FRAUD_DETECTION"), reader))
        .isEmpty();
    assertThat(result(gw.sinceStarted(
        "/merchant-api/v1/operations?operation.in=DEPOSIT,CREATE_PAYMENT&paymentState.in=ERROR,COMPLETED"), reader)
        .findValuesAsText("paymentId")).containsOnly(completed);
  }

  @Test
  void a_long_list_of_unknown_names_is_answered_with_a_400_of_a_few_kilobytes() {
    // 3,600 names of a 7 KB query once came back as 27 MB: the whole list quoted for each name
    String sameName = String.join(",", java.util.Collections.nCopies(3600, "a"));
    for (String filter : new String[] {"operation.in", "paymentState.in"}) {
      TestGateway.Answer a = gw.merchantGet("/merchant-api/v1/operations?" + filter + "=" + sameName, reader);
      assertThat(a.status()).isEqualTo(400);
      assertThat(a.body().length()).isLessThan(4_000);
      assertThat(a.json().get("errors")).hasSize(1);
      assertThat(a.json().at("/errors/0/rejectedValue").asText()).isEqualTo("a");
      assertThat(a.json().at("/errors/0/message").asText()).startsWith("unknown name 'a'; expected one of");
    }
    StringBuilder distinct = new StringBuilder("DEPOSIT");
    for (int i = 0; i < 1000; i++) {
      distinct.append(",n").append(i);
    }
    TestGateway.Answer a = gw.merchantGet("/merchant-api/v1/operations?operation.in=" + distinct, reader);
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body().length()).isLessThan(8_000);
    JsonNode errors = a.json().get("errors");
    assertThat(errors).hasSize(11);
    assertThat(errors.get(0).get("rejectedValue").asText()).isEqualTo("n0");
    assertThat(errors.get(9).get("rejectedValue").asText()).isEqualTo("n9");
    assertThat(errors.get(10).get("message").asText()).isEqualTo("and 990 more unknown names");
    assertThat(errors.get(10).get("rejectedValue").isNull()).isTrue();
    String longName = "x".repeat(500);
    TestGateway.Answer cut = gw.merchantGet("/merchant-api/v1/operations?operation.in=" + longName, reader);
    assertThat(cut.json().at("/errors/0/rejectedValue").asText()).isEqualTo("x".repeat(64) + "…");
  }

  @Test
  void customers_come_from_payments_and_filter_by_shop_and_id() {
    JsonNode customers = result("/merchant-api/v1/customers", reader);
    assertThat(customers).hasSize(1);
    JsonNode c = customers.get(0);
    assertThat(c.get("referenceId").asText()).isEqualTo("cust-42");
    assertThat(c.get("firstName").asText()).isEqualTo("Ann");
    assertThat(c.get("shopId").asLong()).isEqualTo(gw.shop.value());
    long id = c.get("id").asLong();
    assertThat(result("/merchant-api/v1/customers?id.gt=" + id, reader)).isEmpty();
    assertThat(result("/merchant-api/v1/customers?shopId.eq=" + gw.shop.value(), reader)).hasSize(1);
    assertThat(result("/merchant-api/v1/customers?shopId.eq=999999", reader)).isEmpty();
    // 0, which the OpenAPI document allows, names no shop (an empty page) and comes before every id
    assertThat(result("/merchant-api/v1/customers?shopId.eq=0", reader)).isEmpty();
    assertThat(result("/merchant-api/v1/customers?id.gt=0", reader)).hasSize(1);
    assertThat(result("/merchant-api/v1/customers", stranger)).isEmpty();
    assertThat(gw.merchantGet("/merchant-api/v1/customers?shopId.eq=abc", reader).status()).isEqualTo(400);
    assertThat(gw.merchantGet("/merchant-api/v1/customers?id.gt=-1", reader).status()).isEqualTo(400);
  }

  /**
   * An optional parameter sent empty, as a client that writes every parameter it knows sends those it has no
   * value for, is as if not sent: the spec's "default null" of {@code shopId.eq} and {@code id.gt}, the
   * default page and dates, no filter by name, state or group.
   */
  @ParameterizedTest
  @ValueSource(strings = {"customers?shopId.eq=&id.gt=", "customers?offset=&limit=",
      "payments?created.gte=&created.lt=&shopGroupId.eq=&offset=&limit=",
      "operations?completed.gte=&completed.lt=&operation.in=&paymentState.in=&shopGroupId.eq=",
      "operations?paymentState.in=", "shops?offset=&limit=", "bin-groups?offset=&limit=", "bins?limit="})
  void a_parameter_sent_empty_counts_as_not_sent(String query) {
    String list = "/merchant-api/v1/" + query.substring(0, query.indexOf('?'));
    boolean fromToday = list.endsWith("/payments") || list.endsWith("/operations");
    JsonNode asIfNotSent;
    JsonNode sentEmpty;
    LocalDate day;
    do {
      // the payments and operations lists read from the start of today: read again on the new
      // day, with a payment made on it, if the day turned meanwhile
      day = LocalDate.now(ZoneOffset.UTC);
      String[] user = reader;
      if (fromToday) {
        OwnMerchant paying = ownMerchant();
        gw.completedDeposit("1.00", "EUR", paying.key());
        user = paying.user();
      }
      asIfNotSent = result(list, user);
      sentEmpty = result("/merchant-api/v1/" + query, user);
    } while (!day.equals(LocalDate.now(ZoneOffset.UTC)));
    assertThat(asIfNotSent).isNotEmpty();
    assertThat(sentEmpty).isEqualTo(asIfNotSent);
  }

  @Test
  void reference_lists_answer_in_their_shapes() {
    assertThat(result("/merchant-api/v1/bins?limit=10000", reader).findValuesAsText("bin")).contains("400000", "555500");
    JsonNode bin = result("/merchant-api/v1/bins?limit=1", reader).get(0);
    assertThat(bin.has("cardBrand")).isTrue();
    assertThat(result("/merchant-api/v1/currency-rates?limit=10000", reader).findValuesAsText("quoteCurrency")).contains("USD");
    assertThat(result("/merchant-api/v1/bank-codes", reader).findValuesAsText("bankName")).isNotEmpty();
    assertThat(result("/merchant-api/v1/bank-code-mappings", reader).findValuesAsText("apiBankCode")).isNotEmpty();

    JsonNode counterparties = gw.merchantGet("/merchant-api/v1/counterparties", reader).json();
    assertThat(counterparties.has("hasMore")).isFalse();
    assertThat(counterparties.get("result").findValuesAsText("name")).containsExactly("Partner Ltd");
    assertThat(counterparties.get("result").get(0).get("registrationDate").asText()).isEqualTo("2026-03-01");
    assertThat(result("/merchant-api/v1/counterparties", stranger)).isEmpty();

    JsonNode terminals = gw.merchantGet("/merchant-api/v1/terminals", reader).json();
    assertThat(terminals.has("hasMore")).isFalse();
    assertThat(terminals.get("result").findValuesAsText("name")).contains("Acquirer With Balance", "Acquirer Without Balance");

    JsonNode connector = result("/merchant-api/v1/connectors", reader).get(0);
    assertThat(connector.get("terminalId").asLong()).isEqualTo(balanceTerminal);
    assertThat(connector.get("terminalCurrency").asText()).isEqualTo("EUR");
    assertThat(result("/merchant-api/v1/connectors", stranger)).isEmpty();

    JsonNode profile = result("/merchant-api/v1/antifraud-profiles", reader).get(0);
    assertThat(profile.get("name").asText()).isEqualTo("Strict");
    JsonNode rule = profile.get("paymentDataVerification").get(0);
    // a client written against the reference reads ruleCode and parameters
    assertThat(rule.get("ruleCode").asText()).isEqualTo("DECLINED_DEPOSITS_PER_CARD");
    assertThat(rule.get("parameters").asText()).isEqualTo("threshold=3,windowMinutes=60");
  }

  /**
   * The reference's connector keeps an amount range in {@code filters} (amountLt exclusive) and
   * count or volume limits in {@code limits}. Our maximum is inclusive: 5000.00 EUR is routed,
   * so the bound is the next amount, 5000.01.
   */
  @Test
  void a_connectors_amount_range_is_published_as_the_references_filters() {
    JsonNode connectors = result("/merchant-api/v1/connectors", reader);
    JsonNode open = connectors.get(0);
    assertThat(open.get("filters").isObject()).isTrue();
    assertThat(open.get("filters").isEmpty()).isTrue();
    assertThat(open.get("limits").isArray()).isTrue();
    assertThat(open.get("limits").isEmpty()).isTrue();

    JsonNode bounded = connectors.get(1);
    assertThat(bounded.get("terminalId").asLong()).isEqualTo(plainTerminal);
    JsonNode filters = bounded.get("filters");
    assertThat(filters.get("amountOp").asText()).isEqualTo("BETWEEN");
    // at the currency's scale, as payments show amounts
    assertThat(filters.get("amountGte").decimalValue()).isEqualTo("1.00");
    assertThat(filters.get("amountLt").decimalValue()).isEqualTo("5000.01");
    assertThat(filters.has("currency")).as("routing converts any currency; the terminal's is terminalCurrency").isFalse();
    assertThat(bounded.get("limits").isEmpty()).isTrue();
  }

  @Test
  void a_terminal_balance_needs_a_terminal_that_reports_one() {
    TestGateway.Answer a = gw.merchantGet("/merchant-api/v1/terminals/" + balanceTerminal + "/balance", reader);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode available = a.json().at("/result/available");
    assertThat(available.get(0).get("currency").asText()).isEqualTo("EUR");
    assertThat(available.get(0).get("amount").decimalValue()).isGreaterThanOrEqualTo(new java.math.BigDecimal("15.00"));
    // nothing held: no currency listed at 0, which the reference's amounts (at least 0.00001) forbid
    assertThat(a.json().at("/result/reserved").isArray()).isTrue();
    assertThat(a.json().at("/result/reserved").findValuesAsText("amount")).allSatisfy(amount ->
        assertThat(new java.math.BigDecimal(amount)).isNotEqualByComparingTo("0"));
    assertThat(a.json().at("/result/reserved")).as(a.body()).isEmpty();
    assertThat(gw.merchantGet("/merchant-api/v1/terminals/" + plainTerminal + "/balance", reader).status()).isEqualTo(404);
    assertThat(gw.merchantGet("/merchant-api/v1/terminals/" + balanceTerminal + "/balance", stranger).status()).isEqualTo(404);
    assertThat(gw.merchantGet("/merchant-api/v1/terminals/abc/balance", reader).status()).isEqualTo(404);
  }

  /**
   * Shops name their merchant, as the reference's do, give a timeout of part of a minute as a
   * whole one, never 0, and carry the reference's {@code displayName} and {@code createdAt}.
   */
  @Test
  void shops_name_their_merchant_and_count_part_of_a_minute_as_a_whole_one() {
    java.time.Instant before = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    var quick = gw.app.services().shops().createShop(new io.tollgate.application.port.in.ProvisioningUseCase
        .CreateShopCommand(gw.merchant, "Quick checkout", null, null, java.time.Duration.ofSeconds(90), false, false,
        "EUR"));
    JsonNode listed = null;
    for (JsonNode shop : result("/merchant-api/v1/shops", reader)) {
      assertThat(shop.get("merchantName").asText()).isEqualTo("Test Merchant");
      if (shop.get("id").asLong() == quick.value()) {
        listed = shop;
      }
    }
    assertThat(listed).isNotNull();
    assertThat(listed.get("checkoutTimeout").asLong()).isEqualTo(2);
    assertThat(listed.get("displayName").asText()).isEqualTo("Quick checkout");
    assertThat(listed.has("antiFraudProfileId")).as("no profile attached").isFalse();
    java.time.Instant created = java.time.LocalDateTime.parse(listed.get("createdAt").asText())
        .toInstant(java.time.ZoneOffset.UTC);
    assertThat(created).isBetween(before, java.time.Instant.now());

    // a profile attached is named at once, though the shop's row was kept from the list before
    var reference = gw.app.services().persistence().referenceData();
    long profile = reference.createAntifraudProfile(gw.merchant, "Quick checkout rules", "UTC", java.time.Instant.now());
    reference.attachAntifraudProfile(quick.value(), profile);
    JsonNode attached = null;
    for (JsonNode shop : result("/merchant-api/v1/shops", reader)) {
      if (shop.get("id").asLong() == quick.value()) {
        attached = shop;
      }
    }
    assertThat(attached).isNotNull();
    assertThat(attached.get("antiFraudProfileId").asLong()).isEqualTo(profile);
  }

  /**
   * A shop's webhook URL with credentials (sent as Basic authentication) is listed with its
   * password as {@code ***}, as the delivery log shows it: every user of the merchant reads the
   * shops, and with the password one could send forged webhooks to the merchant's receiver.
   */
  @Test
  void a_shops_webhook_url_is_listed_without_its_password() {
    var guarded = gw.app.services().shops().createShop(new io.tollgate.application.port.in.ProvisioningUseCase
        .CreateShopCommand(gw.merchant, "Guarded hooks", "https://hookuser:S3cretHookPw@hooks.example/tg", null,
        null, false, false, null));
    JsonNode listed = null;
    for (JsonNode shop : result("/merchant-api/v1/shops", reader)) {
      if (shop.get("id").asLong() == guarded.value()) {
        listed = shop;
      }
    }
    assertThat(listed).isNotNull();
    assertThat(listed.get("webhookUrl").asText()).isEqualTo("https://hookuser:***@hooks.example/tg");
  }

  @Test
  void shop_groups_need_their_permissions_and_the_merchants_own_shops() {
    String path = "/merchant-api/v1/shop-groups/" + shopGroup;
    assertThat(result("/merchant-api/v1/shop-groups", viewer).findValuesAsText("name")).contains("EU shops");
    JsonNode listed = result("/merchant-api/v1/shop-groups", reader);
    assertThat(listed.findValuesAsText("name")).as("any user reads the list").contains("EU shops");
    assertThat(listed.findValues("shops")).as("but its shops only with SHOP_GROUP_VIEW").isEmpty();
    assertThat(gw.merchantGet(path, reader).status()).isEqualTo(403);
    assertThat(gw.merchantGet(path, stranger).status()).isEqualTo(404);
    String body = "{\"shops\":[" + gw.shop.value() + "]}";
    assertThat(edit("POST", path + "/shops", body, reader).status()).isEqualTo(403);
    assertThat(edit("POST", path + "/shops", body, viewer).status()).isEqualTo(201);
    assertThat(edit("POST", path + "/shops", body, viewer).status()).isEqualTo(201);
    assertThat(result(path, viewer).get("shops").findValuesAsText("id")).containsExactly(String.valueOf(gw.shop.value()));
    assertThat(result(path, viewer).get("shops").findValuesAsText("name"))
        .containsExactly("Test Shop");

    var foreignShop = gw.createShop(other, "Not Yours", false);
    TestGateway.Answer foreign = edit("POST", path + "/shops", "{\"shops\":[" + foreignShop.value() + ",\"x\",0,"
        + gw.shop.value() + "]}", viewer);
    assertThat(foreign.status()).isEqualTo(400);
    assertThat(foreign.json().get("errors").findValuesAsText("field")).containsExactly("shops[0]", "shops[1]", "shops[2]");
    assertThat(foreign.json().get("errors").findValuesAsText("message")).containsExactly(
        "is not a shop of this merchant", "must be a shop id (a positive integer)", "must be a shop id (a positive integer)");
    assertThat(edit("POST", path + "/shops", "{\"shops\":[\"x\"]}", reader).status()).isEqualTo(403);
    assertThat(edit("POST", path + "/shops", "{\"shops\":[]}", viewer).status()).isEqualTo(400);
    // 2^64 more than the shop's id: its low 64 bits are the shop's id, and it names no shop
    String wrapped = java.math.BigInteger.TWO.pow(64).add(java.math.BigInteger.valueOf(gw.shop.value())).toString();
    assertThat(edit("DELETE", path + "/shops", "{\"shops\":[" + wrapped + "]}", viewer).status()).isEqualTo(400);
    assertThat(result(path, viewer).get("shops").findValuesAsText("id")).containsExactly(String.valueOf(gw.shop.value()));
    assertThat(edit("DELETE", path + "/shops", body, viewer).status()).isEqualTo(204);
    assertThat(result(path, viewer).get("shops")).isEmpty();
  }

  /**
   * A delete is all or nothing, as an add is: a shop that is not one of the merchant's, or no
   * shop id at all, is refused, alone in the answer, and the shop sent with it stays in the group.
   */
  @Test
  void a_shop_group_delete_with_one_bad_shop_takes_nothing_out() {
    long group = gw.app.services().persistence().referenceData().createShopGroup(gw.merchant, "Kept whole",
        Instant.now());
    String path = "/merchant-api/v1/shop-groups/" + group;
    String mine = String.valueOf(gw.shop.value());
    assertThat(edit("POST", path + "/shops", "{\"shops\":[" + mine + "]}", viewer).status()).isEqualTo(201);
    String foreign = String.valueOf(gw.createShop(other, "Not Yours Either", false).value());
    for (String bad : new String[] {"\"x\"", foreign}) {
      TestGateway.Answer refused = edit("DELETE", path + "/shops", "{\"shops\":[" + mine + "," + bad + "]}", viewer);
      assertThat(refused.status()).as(refused.body()).isEqualTo(400);
      assertThat(refused.json().get("errors").findValuesAsText("field")).as(bad).containsExactly("shops[1]");
      assertThat(result(path, viewer).get("shops").findValuesAsText("id")).as("the good shop is still there")
          .containsExactly(mine);
    }
  }

  /**
   * As with the entry groups: a shop group the user may not see is a 404 and one it may not
   * edit a 403 whatever the body holds; only a user who may edit it learns that the body is bad.
   */
  @ParameterizedTest
  @ValueSource(strings = {"{\"shops\":[]}", "{}", "{\"shops\":null}", "{\"shops\":\"x\"}", "[]", "{\"shops\":[",
      ""})
  void a_shop_group_the_user_may_not_edit_is_refused_so_whatever_the_body(String body) {
    String path = "/merchant-api/v1/shop-groups/" + shopGroup + "/shops";
    for (String method : new String[] {"POST", "DELETE"}) {
      TestGateway.Answer hidden = edit(method, path, body, stranger);
      assertThat(hidden.status()).as(method + " " + body).isEqualTo(404);
      assertThat(hidden.json().get("message").asText()).isEqualTo("Shop group not found");
      assertThat(edit(method, path, body, reader).status()).as(method + " " + body).isEqualTo(403);
      TestGateway.Answer bad = edit(method, path, body, viewer);
      assertThat(bad.status()).as(method + " " + body).isEqualTo(400);
    }
  }

  @Test
  void a_shop_group_edit_whose_body_is_not_declared_as_json_is_a_415() {
    String path = "/merchant-api/v1/shop-groups/" + shopGroup + "/shops";
    String body = "{\"shops\":[" + gw.shop.value() + "]}";
    for (String method : new String[] {"POST", "DELETE"}) {
      TestGateway.Answer a = gw.send(HttpRequest.newBuilder(gw.uri(path)).method(method,
          HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "text/plain")
          .header("Authorization", TestGateway.basic(viewer)));
      assertThat(a.status()).as(method).isEqualTo(415);
    }
  }

  static TestGateway.Answer edit(String method, String path, String body, String[] user) {
    return gw.send(HttpRequest.newBuilder(gw.uri(path)).method(method, HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", TestGateway.basic(user)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"payments", "operations", "counterparties", "shops", "terminals", "bins", "bin-groups",
      "customers", "shop-groups", "email-groups", "card-groups", "country-groups", "connectors", "antifraud-profiles",
      "currency-rates", "bank-codes", "bank-code-mappings", "error-code-groups"})
  void every_list_checks_its_paging(String list) {
    for (String query : new String[] {"offset=-1", "offset=1000001", "limit=0", "limit=10001", "limit=abc"}) {
      TestGateway.Answer a = gw.merchantGet("/merchant-api/v1/" + list + "?" + query, reader);
      assertThat(a.status()).as(list + "?" + query).isEqualTo(400);
      assertThat(a.json().get("error").asText()).isEqualTo("Bad Request");
      assertThat(a.json().get("path").asText()).isEqualTo("/merchant-api/v1/" + list);
    }
    // the lists of shop groups and error-code groups show what needs a permission to read
    assertThat(gw.merchantGet("/merchant-api/v1/" + list + "?offset=1000000&limit=10000", boss).status())
        .as(list).isEqualTo(200);
    assertThat(gw.merchantGet("/merchant-api/v1/" + list, new String[] {"nobody@records.example", "x"}).status())
        .isEqualTo(401);
  }

  /**
   * A read route answers in the order the edits do: bad credentials a 401, a record the user may
   * not see a 404, a missing permission a 403, and only then bad query parameters a 400 (listing
   * every one, a parameter given twice too), so that a user learns nothing from the parameters of
   * what it may not read.
   */
  @ParameterizedTest
  @ValueSource(strings = {"limit=0", "offset=-1&limit=abc", "limit=1&limit=2", "offset=1000001&offset=0&limit=0"})
  void a_read_route_settles_who_may_read_before_it_checks_the_parameters(String query) {
    var groups = gw.app.services().groups();
    String[] entryGroups = {
        "/merchant-api/v1/bin-groups/" + groups.create(gw.merchant, GroupKind.BIN, "Order " + query, false).id(),
        "/merchant-api/v1/email-groups/" + groups.create(gw.merchant, GroupKind.EMAIL, "Order " + query, false).id(),
        "/merchant-api/v1/card-groups/" + groups.create(gw.merchant, GroupKind.CARD, "Order " + query, true).id()};
    int problems = query.split("&").length - (query.equals("limit=1&limit=2") ? 1 : 0)
        - (query.startsWith("offset=1000001&offset=0") ? 1 : 0);
    for (String group : entryGroups) {
      assertThat(gw.merchantGet(group + "?" + query, new String[] {"nobody@records.example", "x"}).status())
          .isEqualTo(401);
      TestGateway.Answer hidden = gw.merchantGet(group + "?" + query, stranger);
      assertThat(hidden.status()).as(group + "?" + query).isEqualTo(404);
      assertThat(hidden.json().get("message").asText()).isEqualTo("Group not found");
      TestGateway.Answer bad = gw.merchantGet(group + "?" + query, reader);
      assertThat(bad.status()).as(group + "?" + query).isEqualTo(400);
      assertThat(bad.json().get("errors")).hasSize(problems);
    }
    for (String list : new String[] {"/merchant-api/v1/shop-groups", "/merchant-api/v1/error-code-groups"}) {
      assertThat(gw.merchantGet(list + "?" + query, new String[] {"nobody@records.example", "x"}).status())
          .isEqualTo(401);
      TestGateway.Answer bad = gw.merchantGet(list + "?" + query, reader);
      assertThat(bad.status()).as(list + "?" + query).isEqualTo(400);
      assertThat(bad.json().get("errors")).hasSize(problems);
    }
    // a payment's webhook log: another merchant's payment is not found, whatever the page
    String log = "/merchant-api/v1/payments/" + gw.completedDeposit("3.00", "EUR", gw.apiKey) + "/webhooks";
    TestGateway.Answer hidden = gw.merchantGet(log + "?" + query, stranger);
    assertThat(hidden.status()).as(log + "?" + query).isEqualTo(404);
    assertThat(hidden.json().get("message").asText()).isEqualTo("Payment not found");
    TestGateway.Answer bad = gw.merchantGet(log + "?" + query, reader);
    assertThat(bad.status()).as(log + "?" + query).isEqualTo(400);
    assertThat(bad.json().get("errors")).hasSize(problems);
  }

  /**
   * A parameter given twice is refused, not read as its first value with the others ignored: a
   * malformed value is never ignored (CONTRACT section 0). A parameter the list does not read is
   * ignored, however often it comes.
   */
  @ParameterizedTest
  @ValueSource(strings = {"payments?limit=1&limit=abc", "payments?created.gte=2026-01-01T00:00:00&created.gte=x",
      "operations?operation.in=DEPOSIT&operation.in=REFUND", "customers?shopId.eq=1&id.gt=1&shopId.eq=2",
      "shops?offset=0&offset=1", "bin-groups?limit=5&limit=5",
      // sent empty, a parameter counts as not sent, but given twice it is still refused
      "customers?shopId.eq=&shopId.eq=1", "payments?created.gte=&created.gte=", "bin-groups?limit=&limit=5"})
  void a_parameter_given_twice_is_a_400(String query) {
    String name = query.substring(query.lastIndexOf('&') + 1, query.lastIndexOf('='));
    TestGateway.Answer a = gw.merchantGet("/merchant-api/v1/" + query, boss);
    assertThat(a.status()).as(query).isEqualTo(400);
    assertThat(a.json().get("errors").findValuesAsText("field")).containsExactly(name);
    assertThat(a.json().at("/errors/0/message").asText()).isEqualTo("is given 2 times; give it once");
    assertThat(gw.merchantGet("/merchant-api/v1/" + query.substring(0, query.indexOf('?')) + "?_=1&_=2", boss)
        .status()).isEqualTo(200);
  }

  @Test
  void the_core_profile_keeps_only_the_core_lists() throws Exception {
    try (TestGateway core = TestGateway.start(Map.of("TOLLGATE_MERCHANT_API", "core"))) {
      String[] user = core.merchantUser(core.merchant, "core@records.example");
      for (String list : new String[] {"payments", "operations", "counterparties", "shops", "terminals", "balances",
          "available-withdrawal-balances"}) {
        assertThat(core.merchantGet("/merchant-api/v1/" + list, user).status()).as(list).isEqualTo(200);
      }
      for (String list : new String[] {"bins", "customers", "shop-groups", "connectors", "antifraud-profiles",
          "currency-rates", "bank-codes", "bank-code-mappings"}) {
        assertThat(core.merchantGet("/merchant-api/v1/" + list, user).status()).as(list).isEqualTo(404);
      }
    }
  }

  /**
   * A client generated from the reference's merchant API (openapi-generator's Java client, with
   * its defaults) refuses an answer with a field the reference does not define, and so the whole
   * list call fails: every record carries the reference's field names only.
   */
  @ParameterizedTest
  @ValueSource(strings = {"payments", "operations", "customers", "shops", "terminals", "connectors",
      "antifraud-profiles", "balances", "available-withdrawal-balances", "counterparties", "shop-groups",
      "currency-rates", "error-code-groups", "email-groups", "card-groups", "country-groups", "bin-groups"})
  void every_record_has_only_the_references_field_names(String list) {
    String path = "/merchant-api/v1/" + list + "?limit=100";
    JsonNode records = result(list.equals("payments") || list.equals("operations") ? gw.sinceStarted(path) : path,
        boss);
    assertThat(records).as(list + " has records to check").isNotEmpty();
    java.util.Set<String> allowed = REFERENCE_FIELDS.get(list);
    for (JsonNode record : records) {
      assertThat(fieldNames(record)).as(list + " " + record).isSubsetOf(allowed);
    }
    if (list.equals("antifraud-profiles")) {
      for (JsonNode rule : records.get(0).get("paymentDataVerification")) {
        assertThat(fieldNames(rule)).as(rule.toString()).isSubsetOf("id", "ruleCode", "countryOp", "countryCode",
            "countryGroupId", "currency", "currencyOp", "currencyGroupId", "amountOp", "amountGte", "amountLt",
            "currencies", "period", "parameters", "routingGroup");
      }
    }
  }

  static java.util.List<String> fieldNames(JsonNode record) {
    java.util.List<String> names = new java.util.ArrayList<>();
    record.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** The field names of each list's record in the reference's merchant API. */
  static final Map<String, java.util.Set<String>> REFERENCE_FIELDS = Map.ofEntries(
      Map.entry("payments", java.util.Set.of("amount", "baseAmount", "billingAddressLine1", "billingAddressLine2",
          "billingCity", "billingCountryCode", "billingPostalCode", "billingState", "cardBrand", "cardCountryCode",
          "cardIssuingOrganization", "cardType", "cardholderName", "created", "currency", "customerAccountNumber",
          "customerAmount", "customerBank", "customerBankBranch", "customerBankBranchCode", "customerBankCode",
          "customerCitizenshipCountryCode", "customerCurrency", "customerDateOfBirth", "customerEmail",
          "customerFirstName", "customerIp", "customerIpCountryCode", "customerLastName", "customerPhone",
          "customerReferenceId", "customerRoutingGroup", "description", "errorCode", "externalId",
          "externalResultCode", "id", "merchantId", "merchantName", "method", "parentPaymentId", "preAuth",
          "providerId", "providerName", "recurringToken", "referenceId", "refundedAmount", "shopBaseAmount",
          "shopBaseCurrency", "shopId", "shopName", "startRecurring", "state", "terminalId", "terminalName", "type",
          "updated")),
      Map.entry("operations", java.util.Set.of("completed", "errorCode", "externalId", "externalResultCode", "id",
          "merchantId", "merchantName", "operation", "parentPaymentId", "paymentAmount", "paymentBaseAmount",
          "paymentCreated", "paymentCurrency", "paymentDescription", "paymentId", "paymentMethod",
          "paymentReferenceId", "paymentState", "paymentType", "providerId", "providerName", "rawPaymentData",
          "shopId", "shopName", "started", "terminalId", "terminalName")),
      Map.entry("customers", java.util.Set.of("connectedCards", "dateOfBirth", "email", "firstName", "id",
          "lastName", "merchantId", "merchantName", "paymentInstruments", "phone", "referenceId", "shopId",
          "shopName")),
      Map.entry("shops", java.util.Set.of("alternativeReturnUrl", "antiFraudProfileId", "baseCurrency",
          "cascadingConfirmationTimeout", "checkoutThemeCode", "checkoutTimeout", "checkoutUrl", "countryCode",
          "createdAt", "depositRequiredParameters", "displayName", "id", "introducerId", "introducerName",
          "merchantId", "merchantName", "name", "postProcessors", "preProcessors", "resultPageRedirectTimeout",
          "returnUrl", "routingStrategy", "shopGroups", "shopUrl", "state", "webhookUrl")),
      Map.entry("terminals", java.util.Set.of("apiCode", "apiName", "apiTypes", "createdAt", "id", "merchantId",
          "merchantName", "name", "providerId", "providerName", "state")),
      Map.entry("connectors", java.util.Set.of("cardFilters", "cascadingErrorCodesBlacklistId",
          "cascadingErrorCodesWhitelistId", "dpAmountConfirmation", "dpCommissionPercent", "dpMinCommission",
          "filters", "id", "limits", "paymentMethod", "priority", "shopId", "state", "terminalCurrency", "terminalId",
          "trustedRoutingCriteria", "wdCommissionOnTop", "wdCommissionPercent", "wdMinCommission", "weight")),
      Map.entry("antifraud-profiles", java.util.Set.of("id", "name", "offlineChecks", "paymentDataVerification",
          "shopLimits", "timeZoneToCheckLimits")),
      Map.entry("balances", java.util.Set.of("accountType", "amount", "currency", "id", "name")),
      Map.entry("available-withdrawal-balances", java.util.Set.of("amount", "currency", "shopId", "shopName",
          "terminalId", "terminalName")),
      Map.entry("counterparties", java.util.Set.of("affiliateId", "affiliateName", "counterpartyTypes", "createdAt",
          "id", "name", "registrationDate", "uniqueCode")),
      Map.entry("shop-groups", java.util.Set.of("id", "name", "shops")),
      Map.entry("currency-rates", java.util.Set.of("baseCurrency", "jobTerminalId", "lastUpdate", "quoteCurrency",
          "rate", "userId")),
      Map.entry("error-code-groups", java.util.Set.of("errorCodes", "id", "merchantId", "merchantName", "name")),
      Map.entry("email-groups", java.util.Set.of("id", "merchantId", "merchantName", "name")),
      Map.entry("card-groups", java.util.Set.of("id", "merchantId", "merchantName", "name")),
      Map.entry("country-groups", java.util.Set.of("countries", "id", "merchantId", "merchantName", "name")),
      Map.entry("bin-groups", java.util.Set.of("groupName", "id", "merchantId", "merchantName")));
}
