package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.bootstrap.TestGateway.KeyedShop;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.user.Permission;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Groups a merchant edits change what happens to the next payment: anti-fraud, cascading, conversion. */
class GroupsAtWorkTest {

  static TestGateway gw;
  static String[] admin;
  static ReferenceData reference;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    admin = gw.merchantUser(gw.merchant, "admin@work.example", Permission.values());
    reference = gw.app.services().persistence().referenceData();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static KeyedShop shop(String name) {
    return gw.keyedShop(name);
  }

  static long group(GroupKind kind, String name) {
    return gw.app.services().groups().create(gw.merchant, kind, name, false).id();
  }

  static void profile(KeyedShop shop, ReferenceData.AntifraudRule... rules) {
    long profile = reference.createAntifraudProfile(gw.merchant, "profile of " + shop.id(), "UTC", Instant.now());
    for (ReferenceData.AntifraudRule r : rules) {
      reference.addAntifraudRule(profile, r);
    }
    reference.attachAntifraudProfile(shop.id().value(), profile);
  }

  static ReferenceData.AntifraudRule rule(String type, Long group) {
    return new ReferenceData.AntifraudRule(0, type, group, null, null);
  }

  static TestGateway.Answer edit(String method, String path, String body) {
    TestGateway.Answer a = gw.send(HttpRequest.newBuilder(gw.uri(path)).method(method,
            HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", TestGateway.basic(admin)));
    assertThat(a.status()).as(a.body()).isIn(201, 204);
    return a;
  }

  /** Pays a deposit host-to-host; returns the payment document after the PATCH. */
  static JsonNode pay(KeyedShop shop, String card, String amount, String currency, String extra) {
    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":%s,"currency":"%s",%s
         "card":{"cardNumber":"%s","expiryMonth":"12","expiryYear":"2045"}}""".formatted(amount, currency, extra, card),
        shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String id = created.json().at("/result/id").asText();
    TestGateway.Answer done = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + id))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"198.51.100.20\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + shop.key()));
    assertThat(done.status()).as(done.body()).isEqualTo(200);
    return done.json().get("result");
  }

  /** The payment's operations, oldest first, as the merchant API shows them (with what each did and why). */
  static List<JsonNode> operations(KeyedShop shop, String id) {
    return gw.merchantOperations(shop.id(), id);
  }

  /** What the last operation, the anti-fraud screen's, says. */
  static String fraudDetails(KeyedShop shop, JsonNode payment) {
    List<JsonNode> ops = operations(shop, payment.get("id").asText());
    JsonNode last = ops.get(ops.size() - 1);
    assertThat(last.get("operation").asText()).isEqualTo("DETECT_FRAUD");
    return last.get("rawPaymentData").asText();
  }

  static List<String> operationNames(KeyedShop shop, String id) {
    return operations(shop, id).stream().map(o -> o.get("operation").asText()).toList();
  }

  /** A new shop whose anti-fraud profile blacklists the BINs of a new group, which holds {@code bin}. */
  private record BinBlacklist(KeyedShop shop, long bins) {}

  private static BinBlacklist binBlacklist(String shopName, String groupName, String bin) {
    KeyedShop shop = shop(shopName);
    long bins = group(GroupKind.BIN, groupName);
    profile(shop, rule("BIN_BLACKLIST", bins));
    edit("POST", "/merchant-api/v1/bin-groups/" + bins + "/bins", "{\"bins\":[\"" + bin + "\"]}");
    return new BinBlacklist(shop, bins);
  }

  @Test
  void a_bin_added_to_the_blacklist_declines_the_next_deposit_and_deleting_it_lets_one_through() {
    BinBlacklist blacklist = binBlacklist("BIN shop", "Blocked BINs", "400000");
    KeyedShop shop = blacklist.shop();
    long bins = blacklist.bins();
    JsonNode blocked = pay(shop, "4000000000000408", "20.00", "EUR", "");
    assertThat(blocked.get("state").asText()).isEqualTo("DECLINED");
    assertThat(blocked.get("errorCode").asText()).isEqualTo("6.39");
    List<JsonNode> ops = operations(shop, blocked.get("id").asText());
    JsonNode fraud = ops.get(ops.size() - 1);
    assertThat(fraud.get("operation").asText()).isEqualTo("DETECT_FRAUD");
    assertThat(fraud.get("rawPaymentData").asText()).contains("BIN_BLACKLIST").contains("400000").contains("Blocked BINs");
    assertThat(blocked.has("externalId")).as("no processor was called").isFalse();

    edit("DELETE", "/merchant-api/v1/bin-groups/" + bins + "/bins", "{\"bins\":[\"400000\"]}");
    JsonNode passed = pay(shop, "4000000000000408", "20.00", "EUR", "");
    assertThat(passed.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operationNames(shop, passed.get("id").asText())).containsExactly("CREATE_PAYMENT", "DETECT_FRAUD", "CHECKOUT",
        "DEPOSIT");
  }

  /**
   * The decline's record names the card as it is masked everywhere, not the BIN that matched:
   * the 8 digits of a 13-digit card's BIN beside its masked last 4 were 12 of its 13 digits, kept
   * in the operation and shown to every merchant user, and the Luhn check gave the last one.
   */
  @Test
  void a_bin_decline_shows_no_more_of_the_card_than_its_mask() {
    KeyedShop shop = binBlacklist("Long BIN shop", "Blocked long BINs", "42222222").shop();

    JsonNode blocked = pay(shop, "4222222222222", "20.00", "EUR", "");
    assertThat(blocked.get("errorCode").asText()).isEqualTo("6.39");
    String details = fraudDetails(shop, blocked);
    assertThat(details).contains("BIN_BLACKLIST").contains("Blocked long BINs")
        .contains("BIN of card " + io.tollgate.domain.group.Pan.mask("4222222222222") + " is in group")
        .doesNotContain("42222").doesNotContain("8 digits");
  }

  @Test
  void restricted_countries_decline_by_card_billing_and_citizenship_country() {
    KeyedShop shop = shop("Country shop");
    long cardCountries = group(GroupKind.COUNTRY, "No US cards");
    long billing = group(GroupKind.COUNTRY, "No billing in FR");
    long citizenship = group(GroupKind.COUNTRY, "No citizens of NL");
    profile(shop, rule("CARD_COUNTRY_RESTRICTED", cardCountries), rule("BILLING_COUNTRY_RESTRICTED", billing),
        rule("CITIZENSHIP_COUNTRY_RESTRICTED", citizenship));

    assertThat(pay(shop, "4000000000000408", "5", "EUR", "").get("state").asText()).isEqualTo("COMPLETED");
    edit("POST", "/merchant-api/v1/country-groups/" + cardCountries + "/countries", "{\"countries\":[\"us\"]}");
    JsonNode us = pay(shop, "4000000000000408", "5", "EUR", "");
    assertThat(us.get("errorCode").asText()).as("BIN 400000 is issued in the US").isEqualTo("6.03");
    assertThat(us.at("/paymentMethodDetails/cardIssuingCountryCode").asText()).isEqualTo("US");

    edit("POST", "/merchant-api/v1/country-groups/" + billing + "/countries", "{\"countries\":[\"FR\"]}");
    JsonNode fr = pay(shop, "5555000000000107", "5", "EUR", "\"billingAddress\":{\"countryCode\":\"FR\"},");
    assertThat(fr.get("errorCode").asText()).isEqualTo("6.35");

    edit("POST", "/merchant-api/v1/country-groups/" + citizenship + "/countries", "{\"countries\":[\"NL\"]}");
    JsonNode nl = pay(shop, "5555000000000107", "5", "EUR",
        "\"customer\":{\"referenceId\":\"c-nl\",\"citizenshipCountryCode\":\"NL\"},");
    assertThat(nl.get("errorCode").asText()).isEqualTo("6.36");
    assertThat(pay(shop, "5555000000000107", "5", "EUR", "").get("state").asText()).isEqualTo("COMPLETED");
  }

  @Test
  void e_mail_and_card_lists_decline_with_their_codes() {
    KeyedShop shop = shop("List shop");
    long emails = group(GroupKind.EMAIL, "Bad e-mails");
    long cards = group(GroupKind.CARD, "Stolen cards");
    profile(shop, rule("EMAIL_BLACKLIST", emails), rule("CARD_BLACKLIST", cards));
    edit("POST", "/merchant-api/v1/email-groups/" + emails + "/emails", "{\"emails\":[\"Fraud@Example.com\"]}");
    edit("POST", "/merchant-api/v1/card-groups/" + cards + "/cards", "{\"cardNumbers\":[\"5555000000000107\"]}");

    assertThat(pay(shop, "4000000000000408", "5", "EUR", "\"customer\":{\"email\":\"fraud@example.COM\"},")
        .get("errorCode").asText()).isEqualTo("6.02");
    assertThat(pay(shop, "5555000000000107", "5", "EUR", "").get("errorCode").asText()).isEqualTo("6.01");
    assertThat(pay(shop, "4000000000000408", "5", "EUR", "\"customer\":{\"email\":\"ann@example.com\"},")
        .get("state").asText()).isEqualTo("COMPLETED");

    KeyedShop strict = shop("Whitelist shop");
    long allowed = group(GroupKind.CARD, "Known cards");
    profile(strict, rule("CARD_WHITELIST", allowed));
    edit("POST", "/merchant-api/v1/card-groups/" + allowed + "/cards", "{\"cardNumbers\":[\"4000000000000408\"]}");
    assertThat(pay(strict, "4000000000000408", "5", "EUR", "").get("state").asText()).isEqualTo("COMPLETED");
    assertThat(pay(strict, "5555000000000107", "5", "EUR", "").get("errorCode").asText()).isEqualTo("6.11");
  }

  /**
   * An address is one address however its domain is written: with a soft hyphen or a zero-width
   * space, an ideographic full stop, fullwidth letters, in Unicode or as the DNS has it. Mail to
   * each spelling reaches the same mailbox, so a blacklist that missed one would be no blacklist.
   */
  @Test
  void an_e_mail_blacklist_declines_its_address_however_its_domain_is_written() {
    KeyedShop shop = shop("Spelling shop");
    long emails = group(GroupKind.EMAIL, "Bad e-mails, any spelling");
    profile(shop, rule("EMAIL_BLACKLIST", emails));
    String path = "/merchant-api/v1/email-groups/" + emails + "/emails";
    edit("POST", path, "{\"emails\":[\"fraud@example.com\",\"ivan@пример.рф\",\"kim@xn--bcher-kva.de\"]}");
    // JSON escapes, so that the characters one cannot see are seen here
    for (String spelling : List.of("fraud@exa\\u00ADmple.com", "fraud@example\\u3002com", "fraud@exa\\u200Bmple.com",
        "fraud@\\uFF45xample.com", "ivan@xn--e1afmkfd.xn--p1ai", "Ivan@Пример.РФ", "kim@bücher.de")) {
      JsonNode p = pay(shop, "4000000000000408", "5", "EUR", "\"customer\":{\"email\":\"" + spelling + "\"},");
      assertThat(p.path("errorCode").asText()).as(spelling).isEqualTo("6.02");
      assertThat(fraudDetails(shop, p)).contains("EMAIL_BLACKLIST");
    }
    assertThat(pay(shop, "4000000000000408", "5", "EUR", "\"customer\":{\"email\":\"fraud@example.org\"},")
        .get("state").asText()).isEqualTo("COMPLETED");

    // taken off by another spelling, the address is off the list for every spelling
    edit("DELETE", path, "{\"emails\":[\"fraud@exa\\u00ADmple.com\",\"ivan@xn--e1afmkfd.xn--p1ai\"]}");
    for (String spelling : List.of("fraud@example.com", "ivan@пример.рф")) {
      assertThat(pay(shop, "4000000000000408", "5", "EUR", "\"customer\":{\"email\":\"" + spelling + "\"},")
          .get("state").asText()).as(spelling).isEqualTo("COMPLETED");
    }
  }

  /**
   * The customer's result page does not say which of the shop's lists stopped the card: that
   * would tell whoever holds a stolen card that it is known. The merchant sees the code.
   */
  @Test
  void the_customers_result_page_does_not_name_the_list_that_stopped_the_card() {
    KeyedShop shop = shop("Quiet blacklist shop");
    long cards = group(GroupKind.CARD, "Stolen cards, quietly");
    profile(shop, rule("CARD_BLACKLIST", cards));
    edit("POST", "/merchant-api/v1/card-groups/" + cards + "/cards", "{\"cardNumbers\":[\"5555000000000107\"]}");
    JsonNode blocked = pay(shop, "5555000000000107", "5", "EUR", "");
    assertThat(blocked.get("errorCode").asText()).isEqualTo("6.01");

    TestGateway.Answer page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + blocked.get("id").asText())).GET());
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body()).contains("Your payment was declined.").contains("another card")
        .doesNotContain("6.01").doesNotContain("Blacklisted").doesNotContain("Stolen");
  }

  @Test
  void masked_and_full_number_card_lists_each_match_the_cards_they_hold() {
    KeyedShop shop = shop("Two card lists shop");
    long masked = gw.app.services().groups().create(gw.merchant, GroupKind.CARD, "Masked stolen", true).id();
    long full = group(GroupKind.CARD, "Full stolen");
    profile(shop, rule("CARD_BLACKLIST", masked), rule("CARD_BLACKLIST", full));
    edit("POST", "/merchant-api/v1/card-groups/" + masked + "/cards", "{\"cardNumbers\":[\"555500******0107\"]}");
    edit("POST", "/merchant-api/v1/card-groups/" + full + "/cards", "{\"cardNumbers\":[\"4000000000000408\"]}");

    JsonNode byMask = pay(shop, "5555000000000107", "5", "EUR", "");
    assertThat(byMask.get("errorCode").asText()).isEqualTo("6.01");
    assertThat(fraudDetails(shop, byMask)).contains("Masked stolen");
    JsonNode byNumber = pay(shop, "4000000000000408", "5", "EUR", "");
    assertThat(byNumber.get("errorCode").asText()).isEqualTo("6.01");
    assertThat(fraudDetails(shop, byNumber)).contains("Full stolen");
    // the same BIN with other last digits is not the masked card
    assertThat(pay(shop, "5555000000000206", "5", "EUR", "").get("state").asText()).isEqualTo("COMPLETED");
  }

  /**
   * A mask stands for any number of digits: the reference's own example {@code 411111***1111}
   * blocks the 16-digit card 4111111111111111, and an entry with 8 leading digits blocks that
   * 8-digit BIN only. Both are listed as given.
   */
  @Test
  void a_masked_entry_blocks_cards_of_any_length_with_its_leading_and_trailing_digits() {
    KeyedShop shop = shop("Short mask shop");
    long masked = gw.app.services().groups().create(gw.merchant, GroupKind.CARD, "Short masks", true).id();
    profile(shop, rule("CARD_BLACKLIST", masked));
    String path = "/merchant-api/v1/card-groups/" + masked;
    edit("POST", path + "/cards", "{\"cardNumbers\":[\"411111***1111\",\"55550000XXXX0107\"]}");
    JsonNode listed = gw.merchantGet(path, admin).json().get("result");
    List<String> entries = new ArrayList<>();
    listed.forEach(e -> entries.add(e.asText()));
    assertThat(entries).containsExactly("411111***1111", "55550000****0107");

    JsonNode visa = pay(shop, "4111111111111111", "5", "EUR", "");
    assertThat(visa.get("state").asText()).isEqualTo("DECLINED");
    assertThat(visa.get("errorCode").asText()).isEqualTo("6.01");
    assertThat(fraudDetails(shop, visa)).contains("Short masks");
    assertThat(pay(shop, "5555000000000107", "5", "EUR", "").get("errorCode").asText())
        .as("the 8 leading digits given, not only the first 6").isEqualTo("6.01");
    assertThat(pay(shop, "5555000100090107", "5", "EUR", "").get("state").asText())
        .as("BIN 555500 with other 7th and 8th digits and the same last 4").isEqualTo("COMPLETED");

    edit("DELETE", path + "/cards", "{\"cardNumbers\":[\"411111******1111\"]}");
    assertThat(pay(shop, "4111111111111111", "5", "EUR", "").get("state").asText())
        .as("removed by the same digits with another mask").isEqualTo("COMPLETED");
  }

  /**
   * The shortest entry the contract's rule allows, a one-character mask, means what the longer
   * masks of the same digits mean: it is taken, listed as given, and blocks the 16-digit card.
   */
  @Test
  void a_masked_entry_of_eleven_characters_is_taken_and_blocks_its_cards() {
    KeyedShop shop = shop("One-star mask shop");
    long masked = gw.app.services().groups().create(gw.merchant, GroupKind.CARD, "One-star masks", true).id();
    profile(shop, rule("CARD_BLACKLIST", masked));
    String path = "/merchant-api/v1/card-groups/" + masked;
    edit("POST", path + "/cards", "{\"cardNumbers\":[\"411111*1111\"]}");
    assertThat(gw.merchantGet(path, admin).json().at("/result/0").asText()).isEqualTo("411111*1111");

    JsonNode visa = pay(shop, "4111111111111111", "5", "EUR", "");
    assertThat(visa.get("errorCode").asText()).isEqualTo("6.01");
    assertThat(fraudDetails(shop, visa)).contains("One-star masks");
  }

  @Test
  void too_many_declines_with_one_card_trip_the_velocity_rule() {
    KeyedShop shop = shop("Velocity shop");
    profile(shop, new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 2, 60));
    assertThat(pay(shop, "4000000000000416", "5", "EUR", "").get("errorCode").asText()).isEqualTo("4.00");
    assertThat(pay(shop, "4000000000000416", "5", "EUR", "").get("errorCode").asText()).isEqualTo("4.00");
    JsonNode third = pay(shop, "4000000000000416", "5", "EUR", "");
    assertThat(third.get("errorCode").asText()).isEqualTo("6.23");
    assertThat(pay(shop, "4000000000000408", "5", "EUR", "").get("state").asText())
        .as("another card is not affected").isEqualTo("COMPLETED");
  }

  /**
   * A deposit no connector could take (here 1.08: over every connector's maximum) was declined
   * by the gateway before any terminal saw its card: it says nothing about the card, and is no
   * decline of it, as the screen's own 6.xx declines are none.
   */
  @Test
  void a_deposit_the_gateway_declined_before_any_terminal_is_no_decline_of_its_card() {
    KeyedShop shop = shop("Velocity shop, gateway declines");
    ReferenceData ref = gw.app.services().persistence().referenceData();
    long terminal = ref.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Small amounts only", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox API", List.of("DEPOSIT"), java.time.Instant.now()));
    ref.createConnector(new ReferenceData.Connector(0, shop.id().value(), terminal, null, "ACTIVE", "BASIC_CARD",
        "EUR", 1, 100, new java.math.BigDecimal("1"), new java.math.BigDecimal("100"), null, null, null),
        java.time.Instant.now());
    profile(shop, new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 1, 60));

    JsonNode tooLarge = pay(shop, "4000000000000408", "500", "EUR", "");
    assertThat(tooLarge.get("state").asText()).isEqualTo("DECLINED");
    assertThat(tooLarge.get("errorCode").asText()).isEqualTo("1.08");

    JsonNode next = pay(shop, "4000000000000408", "5", "EUR", "");
    assertThat(next.get("state").asText()).as(next.toString()).isEqualTo("COMPLETED");
    // a terminal's decline still counts
    assertThat(pay(shop, "4000000000000416", "5", "EUR", "").get("errorCode").asText()).isEqualTo("4.00");
    assertThat(pay(shop, "4000000000000416", "5", "EUR", "").get("errorCode").asText()).isEqualTo("6.23");
  }

  /**
   * A deposit whose terminal has not answered yet may still be declined: it counts against a
   * limit on the card's declines as it counts against one on its completed deposits. The lock
   * that makes a card's deposits be screened one after another ends once a deposit is sent, so
   * without it deposits sent at once would each find no decline and all reach the acquirer.
   */
  @Test
  void a_deposit_awaiting_its_terminals_answer_counts_against_the_limit_on_declines() {
    KeyedShop shop = shop("Velocity shop, one in flight");
    profile(shop, new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 1, 60));
    String sent = created(shop, ",\"card\":{\"cardNumber\":\"4000000000000416\",\"expiryMonth\":\"12\","
        + "\"expiryYear\":\"2045\"}");
    // as a request leaves it while it waits for the terminal's answer
    gw.database.jdbi().useHandle(h -> h.createUpdate(
        "UPDATE payments SET state = 'PENDING', version = version + 1 WHERE id = :id").bind("id", sent).execute());

    JsonNode next = pay(shop, "4000000000000416", "5", "EUR", "");

    assertThat(next.get("errorCode").asText()).isEqualTo("6.23");
  }

  /**
   * A velocity rule holds when a card's deposits are decided all at once: each is counted
   * after the outcome of the one before, however it is paid: host-to-host, with the card given
   * at creation and the customer sent to the checkout page, or with the card typed into the
   * checkout form. Of 16 deposits, exactly the limit's 3 complete; the others are declined 6.22.
   */
  @Test
  void deposits_of_one_card_decided_at_once_complete_no_more_than_the_velocity_limit() throws Exception {
    int at = 16;
    String card = "4000000000000408";

    KeyedShop h2h = velocityLimited("Parallel host-to-host");
    List<String> patched = new ArrayList<>();
    for (int i = 0; i < at; i++) {
      patched.add(created(h2h, ",\"card\":{\"cardNumber\":\"" + card + "\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}"));
    }
    assertThat(race(patched, id -> gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + id))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"198.51.100.20\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + h2h.key())).status()))
        .containsOnly(200);
    assertThat(outcomes(h2h, patched)).containsEntry("COMPLETED", 3L).containsEntry("DECLINED 6.22", (long) at - 3)
        .hasSize(2);

    KeyedShop onFile = velocityLimited("Parallel card on file");
    List<String> shown = new ArrayList<>();
    for (int i = 0; i < at; i++) {
      shown.add(created(onFile, ",\"card\":{\"cardNumber\":\"" + card + "\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}"));
    }
    java.util.Map<String, String> tokens = new java.util.HashMap<>();
    shown.forEach(id -> tokens.put(id, gw.checkoutCsrf(id)));
    assertThat(race(shown, id -> gw.processCard(id, tokens.get(id)).status())).containsOnly(303);
    assertThat(outcomes(onFile, shown)).containsEntry("COMPLETED", 3L).containsEntry("DECLINED 6.22", (long) at - 3)
        .hasSize(2);

    KeyedShop typed = velocityLimited("Parallel checkout form");
    java.util.Map<String, String> forms = new java.util.HashMap<>();
    for (int i = 0; i < at; i++) {
      String id = created(typed, "");
      String page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
      java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
      assertThat(csrf.find()).isTrue();
      forms.put(id, "csrf=" + java.net.URLEncoder.encode(csrf.group(1), java.nio.charset.StandardCharsets.UTF_8)
          + "&cardNumber=" + card + "&cardholderName=Ann&expiryMonth=12&expiryYear=2045&cardSecurityCode=123");
    }
    List<String> submitted = new ArrayList<>(forms.keySet());
    assertThat(race(submitted, id -> gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id))
        .POST(HttpRequest.BodyPublishers.ofString(forms.get(id)))
        .header("Content-Type", "application/x-www-form-urlencoded")).status())).containsOnly(303);
    assertThat(outcomes(typed, submitted)).containsEntry("COMPLETED", 3L).containsEntry("DECLINED 6.22", (long) at - 3)
        .hasSize(2);
  }

  /**
   * A 3-D Secure deposit waiting for its challenge has passed the screen and may still
   * complete: it counts toward "completed deposits per card" while it waits. A failed challenge
   * frees its place again; a passed one keeps it. The deposit being screened is never counted
   * against itself, though the checkout page makes it PENDING before the screen runs.
   */
  @Test
  void a_3ds_deposit_waiting_for_its_challenge_counts_toward_the_completed_deposits_limit() {
    KeyedShop shop = shop("3DS velocity shop");
    profile(shop, new ReferenceData.AntifraudRule(0, "COMPLETED_DEPOSITS_PER_CARD", null, 1, 60));
    String card = ",\"card\":{\"cardNumber\":\"4000000000000002\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";

    String first = created(shop, card);
    assertThat(gw.openWithCardOnFile(first).status()).isEqualTo(200);
    assertThat(state(shop, first)).as("screened on the page, not against itself").isEqualTo("PENDING");
    JsonNode meanwhile = pay(shop, "4000000000000002", "5.00", "EUR", "");
    assertThat(meanwhile.get("errorCode").asText()).as(meanwhile.toString()).isEqualTo("6.22");
    assertThat(fraudDetails(shop, meanwhile)).contains("1 completed or in-progress deposits");

    challenge(first, false);
    assertThat(state(shop, first)).isEqualTo("DECLINED");
    JsonNode second = pay(shop, "4000000000000002", "5.00", "EUR", "");
    assertThat(second.get("state").asText()).as("the failed challenge frees its place").isEqualTo("PENDING");
    challenge(second.get("id").asText(), true);
    assertThat(state(shop, second.get("id").asText())).isEqualTo("COMPLETED");
    assertThat(pay(shop, "4000000000000002", "5.00", "EUR", "").get("errorCode").asText()).isEqualTo("6.22");
  }

  /**
   * The customer may answer a 3-D Secure challenge until the shop's checkout timeout (30 minutes
   * here), however short the rule's window: a deposit still waiting for its challenge after the
   * window counts as it did at first, toward completed deposits and toward declines alike, or a
   * deposit of the card started meanwhile could complete past the limit along with it.
   */
  @Test
  void a_3ds_deposit_waiting_for_its_challenge_longer_than_the_window_still_counts() {
    String card = ",\"card\":{\"cardNumber\":\"4000000000000002\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";
    KeyedShop completed = shop("3DS velocity shop, slow challenge");
    profile(completed, new ReferenceData.AntifraudRule(0, "COMPLETED_DEPOSITS_PER_CARD", null, 1, 10));
    String first = challengedElevenMinutesAgo(completed, card);

    JsonNode meanwhile = pay(completed, "4000000000000002", "5.00", "EUR", "");

    assertThat(meanwhile.path("errorCode").asText()).as(meanwhile.toString()).isEqualTo("6.22");
    assertThat(fraudDetails(completed, meanwhile)).contains("in the last 10 minutes, or still in progress");
    challenge(first, true);
    assertThat(state(completed, first)).as("the challenge is still answered").isEqualTo("COMPLETED");

    KeyedShop declined = shop("3DS velocity shop, slow challenge, declines");
    profile(declined, new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 1, 10));
    challengedElevenMinutesAgo(declined, card);
    JsonNode next = pay(declined, "4000000000000002", "5.00", "EUR", "");
    assertThat(next.path("errorCode").asText()).as(next.toString()).isEqualTo("6.23");
  }

  /** A deposit of the card whose challenge was shown 11 minutes ago and is still unanswered. */
  private static String challengedElevenMinutesAgo(KeyedShop shop, String card) {
    String id = created(shop, card);
    assertThat(gw.openWithCardOnFile(id).status()).isEqualTo(200);
    assertThat(state(shop, id)).isEqualTo("PENDING");
    gw.database.jdbi().useHandle(h -> h.createUpdate("""
            UPDATE payments SET created = created - interval '11 minutes', updated = updated - interval '11 minutes'
             WHERE id = :id""").bind("id", id).execute());
    return id;
  }

  /** An authorized pre-auth may be captured at any time: it counts toward the limit as well. */
  @Test
  void an_authorized_pre_auth_counts_toward_the_completed_deposits_limit() {
    KeyedShop shop = shop("Pre-auth velocity shop");
    profile(shop, new ReferenceData.AntifraudRule(0, "COMPLETED_DEPOSITS_PER_CARD", null, 1, 60));
    assertThat(pay(shop, "4000000000000408", "5.00", "EUR", "\"preAuth\":true,").get("state").asText())
        .isEqualTo("AUTHORIZED");
    assertThat(pay(shop, "4000000000000408", "5.00", "EUR", "").get("errorCode").asText()).isEqualTo("6.22");
  }

  /**
   * Tollgate never expires a pre-auth, and a card scheme lets its hold lapse within 30 days: a
   * pre-auth neither captured nor voided counts toward the limit for 30 days past the window,
   * not for good, or it would block its card at the shop forever.
   */
  @Test
  void a_pre_auth_left_authorized_for_a_month_no_longer_counts() {
    KeyedShop shop = shop("Pre-auth velocity shop, pre-auth left");
    profile(shop, new ReferenceData.AntifraudRule(0, "COMPLETED_DEPOSITS_PER_CARD", null, 1, 60));
    JsonNode held = pay(shop, "4000000000000408", "5.00", "EUR", "\"preAuth\":true,");
    assertThat(held.get("state").asText()).isEqualTo("AUTHORIZED");

    movedBack(held.get("id").asText(), 10);
    JsonNode tenDaysOn = pay(shop, "4000000000000408", "5.00", "EUR", "");
    assertThat(tenDaysOn.path("errorCode").asText()).as(tenDaysOn.toString()).isEqualTo("6.22");
    movedBack(held.get("id").asText(), 21);
    JsonNode monthOn = pay(shop, "4000000000000408", "5.00", "EUR", "");

    assertThat(monthOn.path("state").asText()).as(monthOn.toString()).isEqualTo("COMPLETED");
  }

  /** Makes a payment as if created and last changed this many days earlier. */
  private static void movedBack(String id, int days) {
    gw.database.jdbi().useHandle(h -> h.createUpdate("""
            UPDATE payments SET created = created - make_interval(days => :days),
                   updated = updated - make_interval(days => :days)
             WHERE id = :id""").bind("days", days).bind("id", id).execute());
  }

  /**
   * A card verification (a pre-auth of 0) moves no money and can never complete a deposit: the
   * charge the shop makes after verifying the card is not its second completed deposit. A
   * declined verification is still a declined attempt with the card.
   */
  @Test
  void a_card_verification_is_no_completed_deposit_but_its_decline_counts() {
    KeyedShop shop = shop("Verifying shop");
    profile(shop, new ReferenceData.AntifraudRule(0, "COMPLETED_DEPOSITS_PER_CARD", null, 1, 60));
    assertThat(pay(shop, "4000000000000408", "0", "EUR", "\"preAuth\":true,").get("state").asText())
        .isEqualTo("AUTHORIZED");
    JsonNode charged = pay(shop, "4000000000000408", "5.00", "EUR", "");
    assertThat(charged.get("state").asText()).as(charged.toString()).isEqualTo("COMPLETED");
    assertThat(pay(shop, "4000000000000408", "5.00", "EUR", "").get("errorCode").asText())
        .as("the charge is the card's completed deposit").isEqualTo("6.22");
    JsonNode verifiedAgain = pay(shop, "4000000000000408", "0", "EUR", "\"preAuth\":true,");
    assertThat(verifiedAgain.get("state").asText()).as("a verification adds no completed deposit, at the limit too")
        .isEqualTo("AUTHORIZED");

    KeyedShop declines = shop("Verifying shop, declines counted");
    profile(declines, new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 1, 60));
    assertThat(pay(declines, "4000000000000416", "0", "EUR", "\"preAuth\":true,").get("errorCode").asText())
        .isEqualTo("4.00");
    assertThat(pay(declines, "4000000000000416", "5.00", "EUR", "").get("errorCode").asText()).isEqualTo("6.23");
  }

  /**
   * 3-D Secure deposits of one card started all at once: each is screened after the one before
   * has gone to its challenge, and only the limit's 3 get there; the others are declined 6.22
   * rather than all waiting for challenges that would complete them past the limit.
   */
  @Test
  void parallel_3ds_deposits_of_one_card_reach_the_challenge_no_more_than_the_velocity_limit() throws Exception {
    int at = 8;
    KeyedShop shop = velocityLimited("Parallel 3DS");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < at; i++) {
      ids.add(created(shop, ",\"card\":{\"cardNumber\":\"4000000000000002\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}"));
    }
    assertThat(race(ids, id -> gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + id))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"198.51.100.20\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + shop.key())).status()))
        .containsOnly(200);
    assertThat(outcomes(shop, ids)).containsEntry("PENDING", 3L).containsEntry("DECLINED 6.22", (long) at - 3)
        .hasSize(2);
  }

  static String state(KeyedShop shop, String id) {
    return gw.get("/api/v1/payments/" + id, shop.key()).json().at("/result/state").asText();
  }

  /**
   * The challenge form names the attempt it answers: one that names another (a form sent again
   * after a cascade brought the next terminal's challenge) answers nothing and leaves the
   * payment waiting on the challenge shown now.
   */
  @Test
  void a_challenge_form_that_names_another_attempt_answers_nothing() {
    KeyedShop shop = shop("Stale challenge");
    String id = created(shop, ",\"card\":{\"cardNumber\":\"4000000000000002\",\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}");
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + id))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"198.51.100.20\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + shop.key())).status())
        .isEqualTo(200);
    String page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    assertThat(page).contains("name=\"attempt\" value=\"1\"");
    java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).isTrue();

    TestGateway.Answer stale = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id + "/3ds"))
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + java.net.URLEncoder.encode(csrf.group(1),
            java.nio.charset.StandardCharsets.UTF_8) + "&result=pass&attempt=2"))
        .header("Content-Type", "application/x-www-form-urlencoded"));
    assertThat(stale.status()).isEqualTo(303);
    assertThat(state(shop, id)).as("no answer taken").isEqualTo("PENDING");
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body()).contains("/3ds");

    challenge(id, true);
    assertThat(state(shop, id)).isEqualTo("COMPLETED");
  }

  /** The customer answers the 3-D Secure challenge on the checkout page. */
  static void challenge(String id, boolean pass) {
    String page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id)).GET()).body();
    java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).as(page).isTrue();
    TestGateway.Answer answered = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + id + "/3ds"))
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + java.net.URLEncoder.encode(csrf.group(1),
            java.nio.charset.StandardCharsets.UTF_8) + "&result=" + (pass ? "pass" : "fail")))
        .header("Content-Type", "application/x-www-form-urlencoded"));
    assertThat(answered.status()).isEqualTo(303);
  }

  /**
   * A limit on a card's deposits says nothing about paying out to the card: a withdrawal to a
   * card at its deposit limit is paid, and the screen says it ran only the list rule. A list
   * still declines a withdrawal to a card on it.
   */
  @Test
  void a_deposit_limit_does_not_decline_a_withdrawal_to_the_card_but_a_card_blacklist_does() throws Exception {
    KeyedShop shop = shop("Payouts to a busy card");
    long stolen = group(GroupKind.CARD, "Payout blacklist");
    profile(shop, new ReferenceData.AntifraudRule(0, "COMPLETED_DEPOSITS_PER_CARD", null, 1, 60),
        rule("CARD_BLACKLIST", stolen));
    edit("POST", "/merchant-api/v1/card-groups/" + stolen + "/cards", "{\"cardNumbers\":[\"5555000000000107\"]}");
    gw.completedDeposit("50.00", "EUR", shop.key());
    assertThat(pay(shop, "4000000000000408", "5", "EUR", "").get("errorCode").asText())
        .as("the card is at its deposit limit").isEqualTo("6.22");

    JsonNode paid = withdrawn(shop, "4000000000000408");
    assertThat(paid.get("state").asText()).as(paid.toString()).isEqualTo("COMPLETED");
    assertThat(operations(shop, paid.get("id").asText()).get(1).get("rawPaymentData").asText()).contains("1 rules passed");

    JsonNode blocked = withdrawn(shop, "5555000000000107");
    assertThat(blocked.get("state").asText()).isEqualTo("DECLINED");
    assertThat(blocked.get("errorCode").asText()).isEqualTo("6.01");
  }

  /** A withdrawal of 10 EUR to this card, once the payout worker has decided it. */
  static JsonNode withdrawn(KeyedShop shop, String card) throws InterruptedException {
    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"WITHDRAWAL","amount":10.00,"currency":"EUR",
         "card":{"cardNumber":"%s","expiryMonth":"12","expiryYear":"2045"}}""".formatted(card), shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return gw.awaitStateOtherThan(created.json().at("/result/id").asText(), "PENDING",
        java.time.Duration.ofSeconds(15), shop.key());
  }

  /** A new shop whose profile lets a card complete 3 deposits an hour. */
  static KeyedShop velocityLimited(String name) {
    KeyedShop shop = shop(name);
    profile(shop, new ReferenceData.AntifraudRule(0, "COMPLETED_DEPOSITS_PER_CARD", null, 3, 60));
    return shop;
  }

  /** A new deposit of the shop, in CHECKOUT; {@code card} is empty or {@code ,"card":{...}}. */
  static String created(KeyedShop shop, String card) {
    TestGateway.Answer created = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":5.00,\"currency\":\"EUR\"" + card + "}", shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return created.json().at("/result/id").asText();
  }

  /** Sends one request per payment, all released at once; their HTTP statuses. */
  static List<Integer> race(List<String> ids, java.util.function.Function<String, Integer> request) throws Exception {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(ids.size());
    try {
      java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
      List<java.util.concurrent.Future<Integer>> sent = new ArrayList<>();
      for (String id : ids) {
        sent.add(pool.submit(() -> {
          go.await();
          return request.apply(id);
        }));
      }
      go.countDown();
      List<Integer> statuses = new ArrayList<>();
      for (java.util.concurrent.Future<Integer> f : sent) {
        statuses.add(f.get());
      }
      return statuses;
    } finally {
      pool.shutdown();
    }
  }

  /** How many of the payments ended in each state (with its error code). */
  static java.util.Map<String, Long> outcomes(KeyedShop shop, List<String> ids) {
    return ids.stream().map(id -> gw.get("/api/v1/payments/" + id, shop.key()).json().get("result"))
        .map(p -> p.get("state").asText() + (p.has("errorCode") ? " " + p.get("errorCode").asText() : ""))
        .collect(java.util.stream.Collectors.groupingBy(o -> o, java.util.stream.Collectors.counting()));
  }

  /**
   * The screen's own declines are not declines of the card: once it is off the blacklist, the
   * blocks it got there do not keep it blocked by "declined deposits per card".
   */
  @Test
  void a_card_taken_off_a_blacklist_is_not_kept_blocked_by_its_blocks() {
    KeyedShop shop = shop("Unblocked card shop");
    long cards = group(GroupKind.CARD, "Wrongly blocked");
    profile(shop, rule("CARD_BLACKLIST", cards), new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 2, 60));
    edit("POST", "/merchant-api/v1/card-groups/" + cards + "/cards", "{\"cardNumbers\":[\"4000000000000408\"]}");
    for (int i = 0; i < 3; i++) {
      assertThat(pay(shop, "4000000000000408", "5", "EUR", "").get("errorCode").asText()).isEqualTo("6.01");
    }

    edit("DELETE", "/merchant-api/v1/card-groups/" + cards + "/cards", "{\"cardNumbers\":[\"4000000000000408\"]}");
    JsonNode unblocked = pay(shop, "4000000000000408", "5", "EUR", "");
    assertThat(unblocked.get("state").asText()).as(unblocked.toString()).isEqualTo("COMPLETED");

    // the issuer's declines still count, and the rule's own blocks do not add to them
    assertThat(pay(shop, "4000000000000416", "5", "EUR", "").get("errorCode").asText()).isEqualTo("4.00");
    assertThat(pay(shop, "4000000000000416", "5", "EUR", "").get("errorCode").asText()).isEqualTo("4.00");
    assertThat(pay(shop, "4000000000000416", "5", "EUR", "").get("errorCode").asText()).isEqualTo("6.23");
    JsonNode again = pay(shop, "4000000000000416", "5", "EUR", "");
    assertThat(fraudDetails(shop, again)).contains("2 declined or in-progress deposits");
  }

  record Routes(KeyedShop shop, long first, long second, long cascadeGroup) {}

  static Routes twoTerminals(String name, String secondCurrency) {
    KeyedShop shop = shop(name);
    long first = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, name + " terminal A", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT", "WITHDRAWAL"), Instant.now()));
    long second = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, name + " terminal B", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT", "WITHDRAWAL"), Instant.now()));
    long codes = group(GroupKind.ERROR_CODE, name + " cascading codes");
    reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), first, null, "ACTIVE", "BASIC_CARD",
        "EUR", 1, 100, null, null, codes, null, null), Instant.now());
    reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), second, null, "ACTIVE", "BASIC_CARD",
        secondCurrency, 2, 100, null, null, null, null, null), Instant.now());
    return new Routes(shop, first, second, codes);
  }

  @Test
  void a_decline_in_the_cascading_group_completes_on_the_next_connector() {
    Routes r = twoTerminals("Cascade", "EUR");
    JsonNode without = pay(r.shop(), "4000000000000424", "30.00", "EUR", "");
    assertThat(without.get("state").asText()).isEqualTo("DECLINED");
    assertThat(without.get("errorCode").asText()).isEqualTo("4.02");
    assertThat(without.get("terminalName").asText()).isEqualTo("Cascade terminal A");

    edit("POST", "/merchant-api/v1/error-code-groups/" + r.cascadeGroup() + "/error-codes", "{\"errorCodes\":[\"4.02\"]}");
    JsonNode cascaded = pay(r.shop(), "4000000000000424", "30.00", "EUR", "");
    assertThat(cascaded.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(cascaded.has("errorCode")).isFalse();
    assertThat(cascaded.get("terminalName").asText()).isEqualTo("Cascade terminal B");
    String id = cascaded.get("id").asText();
    assertThat(operationNames(r.shop(), id)).containsExactly("CREATE_PAYMENT", "CHECKOUT", "DEPOSIT", "CASCADING", "DEPOSIT");
    JsonNode cascading = operations(r.shop(), id).get(3);
    assertThat(cascading.get("rawPaymentData").asText()).contains("4.02").contains("Cascade terminal A").contains("Cascade terminal B");
    assertThat(operations(r.shop(), id).get(2).get("rawPaymentData").asText()).contains("declined 4.02");
    // the merchant's operations list each step with its own terminal and answer, not the payment's last
    JsonNode merchantOps = gw.merchantGet("/merchant-api/v1/operations?limit=1000&completed.gte=2000-01-01T00:00:00",
        admin).json().get("result");
    java.util.List<String> steps = new java.util.ArrayList<>();
    for (JsonNode op : merchantOps) {
      if (op.get("paymentId").asText().equals(id) && op.get("operation").asText().equals("DEPOSIT")) {
        steps.add(op.path("terminalName").asText("-") + " " + op.path("externalResultCode").asText("-"));
      }
    }
    assertThat(steps).containsExactlyInAnyOrder("Cascade terminal A 05", "Cascade terminal B 00");

    long never = group(GroupKind.ERROR_CODE, "never cascade");
    reference.createConnector(new ReferenceData.Connector(0, r.shop().id().value(), r.first(), null, "ACTIVE",
        "BANKTRANSFER", "EUR", 1, 100, null, null, r.cascadeGroup(), never, null), Instant.now());
    assertThat(pay(r.shop(), "4000000000000408", "30.00", "EUR", "").get("terminalName").asText())
        .isEqualTo("Cascade terminal A");
  }

  /** A card withdrawal, once the worker has paid it out or declined it. */
  static JsonNode withdraw(KeyedShop shop, String card, String amount, String currency) throws Exception {
    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"WITHDRAWAL","amount":%s,"currency":"%s",
         "card":{"cardNumber":"%s","expiryMonth":"12","expiryYear":"2045"}}""".formatted(amount, currency, card),
        shop.key(), null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return gw.awaitStateOtherThan(created.json().at("/result/id").asText(), "PENDING",
        java.time.Duration.ofSeconds(15), shop.key());
  }

  @Test
  void a_payout_declined_in_the_cascading_group_is_paid_by_the_next_connector_out_of_its_currency()
      throws Exception {
    Routes r = twoTerminals("Payout cascade", "USD");
    reference.upsertCurrencyRate(new ReferenceData.CurrencyRate("EUR", "USD", new BigDecimal("1.0850"), Instant.now()));
    JsonNode without = withdraw(r.shop(), "4000000000000424", "20.00", "EUR");
    assertThat(without.get("state").asText()).isEqualTo("DECLINED");
    assertThat(without.get("errorCode").asText()).isEqualTo("4.02");
    assertThat(without.get("terminalName").asText()).isEqualTo("Payout cascade terminal A");
    assertThat(gw.ledgerSum(r.shop().id(), "EUR")).as("its reservation released")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);

    edit("POST", "/merchant-api/v1/error-code-groups/" + r.cascadeGroup() + "/error-codes", "{\"errorCodes\":[\"4.02\"]}");
    JsonNode cascaded = withdraw(r.shop(), "4000000000000424", "20.00", "EUR");
    assertThat(cascaded.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(cascaded.has("errorCode")).isFalse();
    assertThat(cascaded.get("terminalName").asText()).isEqualTo("Payout cascade terminal B");
    assertThat(cascaded.get("amount").decimalValue()).isEqualByComparingTo("21.70");
    assertThat(cascaded.get("currency").asText()).isEqualTo("USD");
    assertThat(cascaded.get("customerAmount").decimalValue()).isEqualByComparingTo("20.00");
    String id = cascaded.get("id").asText();
    assertThat(operationNames(r.shop(), id)).containsExactly("CREATE_PAYMENT", "WITHDRAWAL", "CASCADING", "WITHDRAWAL");
    List<JsonNode> ops = operations(r.shop(), id);
    assertThat(ops.get(1).get("paymentState").asText()).isEqualTo("PENDING");
    assertThat(ops.get(1).get("rawPaymentData").asText()).contains("Payout cascade terminal A declined 4.02");
    assertThat(ops.get(2).get("rawPaymentData").asText()).contains("moving on to Payout cascade terminal B");
    assertThat(ops.get(3).get("paymentState").asText()).isEqualTo("COMPLETED");
    assertThat(gw.ledgerSum(r.shop().id(), "USD")).as("paid out of the dollars terminal B paid")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(new BigDecimal("-21.70"), BigDecimal.ZERO);
    assertThat(gw.ledgerSum(r.shop().id(), "EUR")).as("the euros it held until the cascade given back")
        .usingElementComparator(BigDecimal::compareTo).containsExactly(BigDecimal.ZERO, BigDecimal.ZERO);
  }

  /**
   * A screen that finds nothing is stored with the step after it, whichever that is: a
   * cascade, a 3-D Secure challenge, a shop with no connector for the currency. Its operation
   * comes right after the creation every time.
   */
  @Test
  void a_passed_screen_is_recorded_before_whatever_follows_it() throws Exception {
    Routes r = twoTerminals("Screened cascade", "EUR");
    profile(r.shop(), rule("BIN_BLACKLIST", group(GroupKind.BIN, "Screened cascade BINs")));
    edit("POST", "/merchant-api/v1/error-code-groups/" + r.cascadeGroup() + "/error-codes", "{\"errorCodes\":[\"4.02\"]}");

    JsonNode cascaded = pay(r.shop(), "4000000000000424", "30.00", "EUR", "");
    assertThat(cascaded.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operationNames(r.shop(), cascaded.get("id").asText()))
        .containsExactly("CREATE_PAYMENT", "DETECT_FRAUD", "CHECKOUT", "DEPOSIT", "CASCADING", "DEPOSIT");

    JsonNode challenged = pay(r.shop(), "4000000000000002", "30.00", "EUR", "");
    assertThat(challenged.get("state").asText()).isEqualTo("PENDING");
    assertThat(operationNames(r.shop(), challenged.get("id").asText()))
        .containsExactly("CREATE_PAYMENT", "DETECT_FRAUD", "CHECKOUT", "DEPOSIT");

    // a bank transfer to a shop whose connectors all take cards
    TestGateway.Answer created = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"paymentMethod\":\"BANKTRANSFER\",\"amount\":30.00,\"currency\":\"EUR\"}",
        r.shop().key(), null);
    String unrouted = created.json().at("/result/id").asText();
    TestGateway.Answer done = gw.send(HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + unrouted))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"198.51.100.20\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + r.shop().key()));
    assertThat(done.json().at("/result/errorCode").asText()).isEqualTo("1.05");
    assertThat(operationNames(r.shop(), unrouted)).containsExactly("CREATE_PAYMENT", "DETECT_FRAUD", "DEPOSIT");
    assertThat(operations(r.shop(), unrouted).get(1).get("rawPaymentData").asText()).contains("1 rules passed");

    // a withdrawal is screened by the payout worker, and paid out in the same write
    KeyedShop payouts = shop("Screened payouts");
    profile(payouts, rule("BIN_BLACKLIST", group(GroupKind.BIN, "Screened payout BINs")));
    gw.completedDeposit("50.00", "EUR", payouts.key());
    TestGateway.Answer withdrawal = gw.post("/api/v1/payments", """
        {"paymentType":"WITHDRAWAL","amount":20.00,"currency":"EUR",
         "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""", payouts.key(), null);
    String paidOut = withdrawal.json().at("/result/id").asText();
    JsonNode settled = gw.awaitStateOtherThan(paidOut, "PENDING", java.time.Duration.ofSeconds(15), payouts.key());
    assertThat(settled.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operationNames(payouts, paidOut)).containsExactly("CREATE_PAYMENT", "DETECT_FRAUD", "WITHDRAWAL");
  }

  @Test
  void a_blacklisted_code_never_cascades() {
    Routes r = twoTerminals("Blacklist", "EUR");
    edit("POST", "/merchant-api/v1/error-code-groups/" + r.cascadeGroup() + "/error-codes", "{\"errorCodes\":[\"4.02\"]}");
    long never = group(GroupKind.ERROR_CODE, "Blacklist never");
    edit("POST", "/merchant-api/v1/error-code-groups/" + never + "/error-codes", "{\"errorCodes\":[\"4.02\"]}");
    gw.database.jdbi().useHandle(h -> h.execute(
        "UPDATE connectors SET cascading_blacklist_group_id = ? WHERE terminal_id = ?", never, r.first()));
    JsonNode p = pay(r.shop(), "4000000000000424", "30.00", "EUR", "");
    assertThat(p.get("errorCode").asText()).isEqualTo("4.02");
    assertThat(operationNames(r.shop(), p.get("id").asText())).doesNotContain("CASCADING");
  }

  @Test
  void a_eur_payment_routed_to_a_usd_connector_is_converted_half_even() {
    KeyedShop shop = shop("Dollar shop");
    long usd = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Dollar terminal", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT"), Instant.now()));
    reference.createConnector(new ReferenceData.Connector(0, shop.id().value(), usd, null, "ACTIVE", "BASIC_CARD",
        "USD", 1, 100, null, null, null, null, null), Instant.now());
    reference.upsertCurrencyRate(new ReferenceData.CurrencyRate("EUR", "USD", new BigDecimal("1.0850"), Instant.now()));

    JsonNode p = pay(shop, "4000000000000408", "10.05", "EUR", "");
    assertThat(p.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(p.get("currency").asText()).isEqualTo("USD");
    // 10.05 x 1.0850 = 10.904250 -> 10.90 (half-even)
    assertThat(p.get("amount").decimalValue()).isEqualByComparingTo("10.90");
    assertThat(p.get("customerAmount").decimalValue()).isEqualByComparingTo("10.05");
    assertThat(p.get("customerCurrency").asText()).isEqualTo("EUR");
    JsonNode balances = gw.get("/api/v1/balances", shop.key()).json().get("result");
    assertThat(balances.findValuesAsText("currency")).contains("USD").doesNotContain("EUR");

    KeyedShop francs = shop("Franc shop");
    long chf = reference.createTerminal(new ReferenceData.Terminal(0, gw.merchant, "Franc terminal", "ACTIVE",
        "Sandbox", "SANDBOX", "Sandbox", List.of("DEPOSIT"), Instant.now()));
    reference.createConnector(new ReferenceData.Connector(0, francs.id().value(), chf, null, "ACTIVE", "BASIC_CARD",
        "CHF", 1, 100, null, null, null, null, null), Instant.now());
    JsonNode noRate = pay(francs, "4000000000000408", "10.00", "EUR", "");
    assertThat(noRate.get("state").asText()).isEqualTo("DECLINED");
    assertThat(noRate.get("errorCode").asText()).isEqualTo("1.09");
  }

  @Test
  void a_shop_without_connectors_uses_the_default_sandbox_terminal() {
    JsonNode p = pay(new KeyedShop(gw.shop, gw.apiKey), "4000000000000408", "3.00", "EUR", "");
    assertThat(p.get("terminalName").asText()).isEqualTo("Sandbox Acquirer");
  }
}
