package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.user.Permission;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The merchant API's entry groups: the entry rules, all-or-nothing edits, permissions, paging. */
class MerchantGroupsTest {

  static TestGateway gw;
  static String[] editor;
  static String[] reader;
  static String[] settings;
  static String[] stranger;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    editor = gw.merchantUser(gw.merchant, "editor@groups.example", Permission.SHOP_EDIT);
    reader = gw.merchantUser(gw.merchant, "reader@groups.example");
    settings = gw.merchantUser(gw.merchant, "settings@groups.example", Permission.SETTINGS_EDIT);
    stranger = gw.merchantUser(gw.app.services().shops().createMerchant("Other Merchant"), "boss@other.example",
        Permission.values());
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static long group(GroupKind kind, String name, boolean masked) {
    return gw.app.services().groups().create(gw.merchant, kind, name, masked).id();
  }

  static TestGateway.Answer edit(String method, String path, String body, String[] user) {
    return gw.send(HttpRequest.newBuilder(gw.uri(path)).method(method, HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", TestGateway.basic(user)));
  }

  /**
   * A group's entries: a page of them for BIN, e-mail and card groups; for country and
   * error-code groups the group itself, its entries inline (the spec: "returns the group with
   * its countries").
   */
  static List<String> entries(String path) {
    TestGateway.Answer a = gw.merchantGet(path + "?limit=10000", editor);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode result = a.json().get("result");
    if (path.contains("/country-groups/") || path.contains("/error-code-groups/")) {
      assertThat(a.json().has("hasMore")).isFalse();
      assertThat(result.get("id").asLong()).isEqualTo(Long.parseLong(path.substring(path.lastIndexOf('/') + 1)));
      assertThat(result.get("name").asText()).isNotBlank();
      return toList(result.get(path.contains("/country-groups/") ? "countries" : "errorCodes"));
    }
    return toList(result);
  }

  static List<String> toList(JsonNode array) {
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void bins_are_added_and_deleted_idempotently() {
    long id = group(GroupKind.BIN, "BIN blacklist A", false);
    String path = "/merchant-api/v1/bin-groups/" + id;
    TestGateway.Answer added = edit("POST", path + "/bins", "{\"bins\":[\"411111\",\"51111122\"]}", editor);
    assertThat(added.status()).isEqualTo(201);
    assertThat(added.body()).isEmpty();
    assertThat(edit("POST", path + "/bins", "{\"bins\":[\"411111\"]}", editor).status()).isEqualTo(201);
    assertThat(entries(path)).containsExactly("411111", "51111122");

    TestGateway.Answer deleted = edit("DELETE", path + "/bins", "{\"bins\":[\"411111\",\"999999\"]}", editor);
    assertThat(deleted.status()).isEqualTo(204);
    assertThat(entries(path)).containsExactly("51111122");
    assertThat(edit("DELETE", path + "/bins", "{\"bins\":[\"411111\"]}", editor).status()).isEqualTo(204);
  }

  @Test
  void emails_countries_and_error_codes_are_taken_out_again() {
    long emails = group(GroupKind.EMAIL, "Mail list to prune", false);
    String mailPath = "/merchant-api/v1/email-groups/" + emails;
    assertThat(edit("POST", mailPath + "/emails", "{\"emails\":[\"a@x.example\",\"b@x.example\"]}", editor).status())
        .isEqualTo(201);
    assertThat(edit("DELETE", mailPath + "/emails", "{\"emails\":[\"A@x.example\"]}", editor).status()).isEqualTo(204);
    assertThat(entries(mailPath)).containsExactly("b@x.example");

    long countries = group(GroupKind.COUNTRY, "Countries to prune", false);
    String countryPath = "/merchant-api/v1/country-groups/" + countries;
    assertThat(edit("POST", countryPath + "/countries", "{\"countries\":[\"de\",\"FR\"]}", settings).status())
        .isEqualTo(201);
    assertThat(edit("DELETE", countryPath + "/countries", "{\"countries\":[\"fr\"]}", settings).status()).isEqualTo(204);
    assertThat(entries(countryPath)).containsExactly("DE");

    long codes = group(GroupKind.ERROR_CODE, "Codes to prune", false);
    String codePath = "/merchant-api/v1/error-code-groups/" + codes;
    assertThat(edit("POST", codePath + "/error-codes", "{\"errorCodes\":[\"4.01\",\"4.02\"]}", editor).status())
        .isEqualTo(201);
    assertThat(edit("DELETE", codePath + "/error-codes", "{\"errorCodes\":[\"4.01\"]}", editor).status())
        .isEqualTo(204);
    assertThat(entries(codePath)).containsExactly("4.02");
  }

  @Test
  void one_bad_bin_changes_nothing_and_every_bad_one_is_listed() {
    long id = group(GroupKind.BIN, "BIN blacklist B", false);
    String path = "/merchant-api/v1/bin-groups/" + id;
    TestGateway.Answer a = edit("POST", path + "/bins",
        "{\"bins\":[\"411111\",\"12345\",\"123456789\",\"12345a\"]}", editor);
    assertThat(a.status()).isEqualTo(400);
    JsonNode errors = a.json().get("errors");
    assertThat(errors.findValuesAsText("field")).containsExactly("bins[1]", "bins[2]", "bins[3]");
    assertThat(errors.findValuesAsText("rejectedValue")).containsExactly("12345", "123456789", "12345a");
    assertThat(a.json().get("error").asText()).isEqualTo("Bad Request");
    assertThat(entries(path)).isEmpty();

    for (String body : new String[] {"{\"bins\":[]}", "{}", "{\"bins\":null}", "{\"bins\":\"411111\"}"}) {
      TestGateway.Answer empty = edit("POST", path + "/bins", body, editor);
      assertThat(empty.status()).as(body).isEqualTo(400);
      assertThat(empty.json().get("errors").get(0).get("field").asText()).isEqualTo("bins");
    }
    assertThat(edit("POST", path + "/bins", "{\"bins\":[\"411111\"", editor).status()).isEqualTo(400);
    assertThat(edit("DELETE", path + "/bins", "{\"bins\":[]}", editor).status()).isEqualTo(400);
    assertThat(entries(path)).isEmpty();
  }

  /**
   * A delete is all or nothing, as an add is: an entry that is no entry of the kind is refused,
   * alone in the answer, and the good entry sent with it stays in the group.
   */
  @ParameterizedTest
  @CsvSource({
      "BIN, bin-groups, bins, bins, 411111, 41111x, 411111",
      "EMAIL, email-groups, emails, emails, a@x.example, not-an-address, a@x.example",
      "COUNTRY, country-groups, countries, countries, DE, DEU, DE",
      "ERROR_CODE, error-code-groups, error-codes, errorCodes, 4.01, 4.1, 4.01",
      "CARD, card-groups, cards, cardNumbers, 4000000000000408, 12345, 400000******0408"})
  void a_delete_with_one_bad_entry_takes_nothing_out(GroupKind kind, String collection, String entryPath,
      String field, String good, String bad, String listed) {
    long id = group(kind, "Delete all or nothing " + kind, false);
    String path = "/merchant-api/v1/" + collection + "/" + id;
    String[] user = kind == GroupKind.COUNTRY ? settings : editor;
    assertThat(edit("POST", path + "/" + entryPath, "{\"" + field + "\":[\"" + good + "\"]}", user).status())
        .isEqualTo(201);
    assertThat(entries(path)).containsExactly(listed);

    TestGateway.Answer refused = edit("DELETE", path + "/" + entryPath,
        "{\"" + field + "\":[\"" + good + "\",\"" + bad + "\"]}", user);
    assertThat(refused.status()).as(refused.body()).isEqualTo(400);
    assertThat(refused.json().get("errors").findValuesAsText("field")).containsExactly(field + "[1]");
    assertThat(refused.json().get("errors").findValuesAsText("rejectedValue")).containsExactly(bad);
    assertThat(entries(path)).as("the good entry is still there").containsExactly(listed);
  }

  @Test
  void entries_that_are_not_strings_are_listed_with_every_other_bad_entry() {
    long id = group(GroupKind.BIN, "BIN blacklist mixed", false);
    String path = "/merchant-api/v1/bin-groups/" + id;
    TestGateway.Answer a = edit("POST", path + "/bins",
        "{\"bins\":[\"12345\",\"123456789\",\"abcdef\",\"411111\",null,411111,\" 411111\",\"\"]}", editor);
    assertThat(a.status()).isEqualTo(400);
    JsonNode errors = a.json().get("errors");
    assertThat(errors.findValuesAsText("field"))
        .containsExactly("bins[0]", "bins[1]", "bins[2]", "bins[4]", "bins[5]", "bins[6]", "bins[7]");
    assertThat(errors.get(3).get("message").asText()).isEqualTo("must be a string");
    assertThat(errors.get(4).get("rejectedValue").asText()).isEqualTo("411111");
    assertThat(entries(path)).isEmpty();

    long cards = group(GroupKind.CARD, "Cards mixed", false);
    TestGateway.Answer c = edit("DELETE", "/merchant-api/v1/card-groups/" + cards + "/cards",
        "{\"cardNumbers\":[4000000000000002,\"12345\"]}", editor);
    assertThat(c.status()).isEqualTo(400);
    assertThat(c.json().get("errors").findValuesAsText("field")).containsExactly("cardNumbers[0]", "cardNumbers[1]");
    assertThat(c.body()).doesNotContain("4000000000000002");

    // the group is looked up and the permission checked before the entries, whatever their type
    assertThat(edit("POST", path + "/bins", "{\"bins\":[1]}", reader).status()).isEqualTo(403);
    assertThat(edit("POST", path + "/bins", "{\"bins\":[1]}", stranger).status()).isEqualTo(404);
  }

  @Test
  void emails_are_kept_lower_case_and_must_be_addresses() {
    long id = group(GroupKind.EMAIL, "Fraudsters", false);
    String path = "/merchant-api/v1/email-groups/" + id;
    assertThat(edit("POST", path + "/emails", "{\"emails\":[\"Ann.Lee@Example.COM\"]}", editor).status()).isEqualTo(201);
    assertThat(entries(path)).containsExactly("ann.lee@example.com");
    TestGateway.Answer bad = edit("POST", path + "/emails", "{\"emails\":[\"bob@example.com\",\"no-at-sign\"]}", editor);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("errors").findValuesAsText("field")).containsExactly("emails[1]");
    assertThat(entries(path)).containsExactly("ann.lee@example.com");
  }

  /**
   * An address whose domain is written another way (in Unicode or as the DNS has it, with an
   * ideographic full stop) is the entry already there, and either spelling takes it out; the list
   * shows the address as the merchant first wrote it.
   */
  @Test
  void an_email_written_another_way_is_the_entry_already_there() {
    long id = group(GroupKind.EMAIL, "Spellings", false);
    String path = "/merchant-api/v1/email-groups/" + id;
    String emails = path + "/emails";
    // JSON escapes, so that characters one cannot see or tell from a dot are seen here; two
    // spellings in one request are one entry too
    assertThat(edit("POST", emails,
        "{\"emails\":[\"Ivan@Пример.РФ\",\"fraud@example.com\",\"fraud@exa\\u200Bmple.com\"]}", editor).status())
        .isEqualTo(201);
    assertThat(edit("POST", emails, "{\"emails\":[\"ivan@xn--e1afmkfd.xn--p1ai\",\"fraud@example\\u3002com\"]}",
        editor).status()).isEqualTo(201);
    assertThat(entries(path)).containsExactly("fraud@example.com", "ivan@пример.рф");
    assertThat(edit("DELETE", emails, "{\"emails\":[\"IVAN@xn--e1afmkfd.xn--p1ai\",\"fraud@exa\\u00ADmple.com\"]}",
        editor).status()).isEqualTo(204);
    assertThat(entries(path)).isEmpty();
  }

  @Test
  void a_plain_card_group_never_holds_a_pan_in_clear() {
    long id = group(GroupKind.CARD, "Stolen cards", false);
    String path = "/merchant-api/v1/card-groups/" + id;
    assertThat(edit("POST", path + "/cards", "{\"cardNumbers\":[\"4000000000000002\"]}", editor).status()).isEqualTo(201);
    assertThat(entries(path)).containsExactly("400000******0002");
    String stored = gw.database.jdbi().withHandle(h -> h.createQuery(
        "SELECT string_agg(value || display, ',') FROM group_entries").mapTo(String.class).one());
    assertThat(stored).doesNotContain("4000000000000002");

    TestGateway.Answer bad = edit("POST", path + "/cards", "{\"cardNumbers\":[\"4000000000000003\",\"12345\"]}", editor);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body()).doesNotContain("4000000000000003");
    assertThat(bad.json().get("errors").findValuesAsText("field")).containsExactly("cardNumbers[0]", "cardNumbers[1]");
    assertThat(edit("DELETE", path + "/cards", "{\"cardNumbers\":[\"4000000000000002\"]}", editor).status()).isEqualTo(204);
    assertThat(entries(path)).isEmpty();
  }

  /**
   * A merchant that keeps no card numbers knows a card in its group only as the API shows it:
   * that masked form takes it out (with any other card shown the same), and names nothing
   * when it is added.
   */
  @Test
  void a_card_is_taken_out_of_a_plain_group_by_the_masked_form_the_api_shows() {
    long id = group(GroupKind.CARD, "Blocked by sight", false);
    String path = "/merchant-api/v1/card-groups/" + id;
    assertThat(edit("POST", path + "/cards", "{\"cardNumbers\":[\"4000000000000408\",\"4000000000000002\"]}",
        editor).status()).isEqualTo(201);
    assertThat(entries(path)).containsExactlyInAnyOrder("400000******0408", "400000******0002");
    assertThat(edit("POST", path + "/cards", "{\"cardNumbers\":[\"400000******0408\"]}", editor).status())
        .as("a masked form is no card to add").isEqualTo(400);

    TestGateway.Answer removed = edit("DELETE", path + "/cards", "{\"cardNumbers\":[\"400000******0408\"]}", editor);
    assertThat(removed.status()).as(removed.body()).isEqualTo(204);
    assertThat(entries(path)).containsExactly("400000******0002");

    // a 12-digit card is shown hiding 5 digits, as every card is, and that form takes it out too
    assertThat(edit("POST", path + "/cards", "{\"cardNumbers\":[\"500000123454\"]}", editor).status()).isEqualTo(201);
    assertThat(entries(path)).containsExactlyInAnyOrder("400000******0002", "500*****3454");
    assertThat(edit("DELETE", path + "/cards", "{\"cardNumbers\":[\"500*****3454\"]}", editor).status()).isEqualTo(204);
    assertThat(entries(path)).containsExactly("400000******0002");
  }

  @Test
  void a_masked_card_group_takes_six_leading_and_four_trailing_digits() {
    long id = group(GroupKind.CARD, "Masked cards", true);
    String path = "/merchant-api/v1/card-groups/" + id;
    assertThat(edit("POST", path + "/cards", "{\"cardNumbers\":[\"400000XXXXXX0002\",\"555500******0008\"]}", editor)
        .status()).isEqualTo(201);
    assertThat(entries(path)).containsExactly("400000******0002", "555500******0008");
    TestGateway.Answer bad = edit("POST", path + "/cards",
        "{\"cardNumbers\":[\"40000*******0002\",\"400000*******002\",\"4000000000000002\"]}", editor);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("errors")).hasSize(3);
    assertThat(bad.body()).doesNotContain("4000000000000002");
  }

  /** A refused entry is echoed short, however long it was, as a refused field of a payment is. */
  @Test
  void a_long_refused_entry_is_echoed_short() {
    long emails = group(GroupKind.EMAIL, "Long entries", false);
    String longText = "x".repeat(20_000) + " 4000000000000002";
    TestGateway.Answer entry = edit("POST", "/merchant-api/v1/email-groups/" + emails + "/emails",
        "{\"emails\":[\"" + longText + "\", 7]}", editor);
    assertThat(entry.status()).isEqualTo(400);
    assertThat(entry.json().get("errors").findValuesAsText("rejectedValue")).allMatch(v -> v.length() <= 257);
    TestGateway.Answer shops = edit("POST", "/merchant-api/v1/shop-groups/" + gw.app.services().persistence()
        .referenceData().createShopGroup(gw.merchant, "Long shops", java.time.Instant.now()) + "/shops",
        "{\"shops\":\"" + longText + "\"}",
        gw.merchantUser(gw.merchant, "shops@groups.example", Permission.SHOP_GROUP_VIEW, Permission.SHOP_GROUP_EDIT));
    assertThat(shops.status()).isEqualTo(400);
    assertThat(shops.json().at("/errors/0/rejectedValue").asText()).hasSizeLessThanOrEqualTo(257);
    assertThat(entry.body().length() + shops.body().length()).isLessThan(2_000);
  }

  /**
   * An entry that is no string is echoed masked and then cut, as a refused string entry is: a
   * card number the cut runs through does not come back with its first 11 digits in clear.
   */
  @Test
  void an_entry_of_the_wrong_type_is_masked_before_it_is_cut() {
    long emails = group(GroupKind.EMAIL, "Cut entries", false);
    String item = "[\"" + "a".repeat(184) + "\",\"4000000000000002\"]";
    TestGateway.Answer entry = edit("POST", "/merchant-api/v1/email-groups/" + emails + "/emails",
        "{\"emails\":[" + item + "]}", editor);
    assertThat(entry.status()).isEqualTo(400);
    assertThat(entry.json().at("/errors/0/message").asText()).isEqualTo("must be a string");
    assertThat(entry.json().at("/errors/0/rejectedValue").asText()).doesNotContain("4000000000").contains("400000");
  }

  /**
   * In a field meant for a card number, 20 digits or more are most likely a card number with a
   * digit or two too many: unlike such a number elsewhere, it is not echoed in clear.
   */
  @Test
  void a_card_number_with_digits_too_many_is_not_echoed_in_clear() {
    for (boolean masked : new boolean[] {false, true}) {
      long id = group(GroupKind.CARD, "Too many digits " + masked, masked);
      TestGateway.Answer bad = edit("POST", "/merchant-api/v1/card-groups/" + id + "/cards",
          "{\"cardNumbers\":[\"40000000000000020\", \"4000000000000002123\", \"4000 0000 0000 0002 1234 5\","
              + " 400000000000000212345]}", editor);
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.body()).doesNotContain("0000000000").doesNotContain("0000 0000");
      assertThat(bad.json().get("errors").findValuesAsText("rejectedValue")).allMatch(v -> v.contains("****"));
      TestGateway.Answer notAnArray = edit("POST", "/merchant-api/v1/card-groups/" + id + "/cards",
          "{\"cardNumbers\":\"400000000000000212345\"}", editor);
      assertThat(notAnArray.status()).isEqualTo(400);
      assertThat(notAnArray.body()).doesNotContain("0000000000");
    }
  }

  @Test
  void countries_and_error_codes_follow_their_formats() {
    long countries = group(GroupKind.COUNTRY, "Restricted countries", false);
    String cpath = "/merchant-api/v1/country-groups/" + countries;
    assertThat(edit("POST", cpath + "/countries", "{\"countries\":[\"de\",\"US\"]}", settings).status()).isEqualTo(201);
    TestGateway.Answer badCountry = edit("POST", cpath + "/countries", "{\"countries\":[\"XX\",\"usa\",\"FR\"]}", settings);
    assertThat(badCountry.status()).isEqualTo(400);
    assertThat(badCountry.json().get("errors").findValuesAsText("field")).containsExactly("countries[0]", "countries[1]");
    JsonNode list = gw.merchantGet("/merchant-api/v1/country-groups", reader).json().get("result");
    JsonNode mine = null;
    for (JsonNode g : list) {
      if (g.get("id").asLong() == countries) {
        mine = g;
      }
    }
    assertThat(mine).isNotNull();
    assertThat(toList(mine.get("countries"))).containsExactly("DE", "US");

    long codes = group(GroupKind.ERROR_CODE, "Cascade on", false);
    String epath = "/merchant-api/v1/error-code-groups/" + codes;
    assertThat(edit("POST", epath + "/error-codes", "{\"errorCodes\":[\"4.02\"]}", editor).status()).isEqualTo(201);
    TestGateway.Answer badCodes = edit("POST", epath + "/error-codes", "{\"errorCodes\":[\"1.4\",\"10.01\"]}", editor);
    assertThat(badCodes.status()).isEqualTo(400);
    assertThat(badCodes.json().get("errors")).hasSize(2);
    assertThat(entries(epath)).containsExactly("4.02");
    assertThat(gw.merchantGet(epath, reader).status()).isEqualTo(403);
  }

  /**
   * One error-code group needs SHOP_EDIT and one shop group SHOP_GROUP_VIEW; their lists show
   * every group's codes and shops, so they need the same, or they would give away what the
   * single group withholds.
   */
  /**
   * Any user reads the lists of error-code and shop groups (the spec names no permission for
   * them), but not what one group of them needs a permission to show: their codes and shops.
   */
  @Test
  void the_lists_of_error_code_and_shop_groups_show_their_entries_only_with_what_one_group_needs() {
    long codes = group(GroupKind.ERROR_CODE, "Codes not for readers", false);
    assertThat(edit("POST", "/merchant-api/v1/error-code-groups/" + codes + "/error-codes",
        "{\"errorCodes\":[\"4.51\"]}", editor).status()).isEqualTo(201);
    long shops = gw.app.services().persistence().referenceData().createShopGroup(gw.merchant, "Shops not for readers",
        java.time.Instant.now());
    gw.app.services().persistence().referenceData().addShopsToGroup(shops, List.of(gw.shop.value()), "test",
        java.time.Instant.now());
    String[] shopViewer = gw.merchantUser(gw.merchant, "viewer@groups.example", Permission.SHOP_GROUP_VIEW);

    for (String list : new String[] {"/merchant-api/v1/error-code-groups", "/merchant-api/v1/shop-groups"}) {
      TestGateway.Answer listed = gw.merchantGet(list, reader);
      assertThat(listed.status()).as(list).isEqualTo(200);
      assertThat(listed.body()).contains("not for readers").doesNotContain("\"4.51\"").doesNotContain("Test Shop")
          .doesNotContain("errorCodes").doesNotContain("\"shops\"");
    }
    assertThat(gw.merchantGet("/merchant-api/v1/error-code-groups", shopViewer).body()).doesNotContain("\"4.51\"");
    assertThat(gw.merchantGet("/merchant-api/v1/shop-groups", editor).body()).doesNotContain("Test Shop");

    assertThat(gw.merchantGet("/merchant-api/v1/error-code-groups", editor).body()).contains("\"4.51\"");
    assertThat(gw.merchantGet("/merchant-api/v1/shop-groups", shopViewer).body()).contains("\"Test Shop\"");
    // the other kinds' lists need no permission, as their single groups need none
    assertThat(gw.merchantGet("/merchant-api/v1/country-groups", reader).status()).isEqualTo(200);
    assertThat(gw.merchantGet("/merchant-api/v1/bin-groups", reader).status()).isEqualTo(200);
  }

  @Test
  void permissions_and_ownership_are_enforced_before_anything_changes() {
    long bins = group(GroupKind.BIN, "BIN blacklist C", false);
    String path = "/merchant-api/v1/bin-groups/" + bins;
    TestGateway.Answer forbidden = edit("POST", path + "/bins", "{\"bins\":[\"411111\"]}", reader);
    assertThat(forbidden.status()).isEqualTo(403);
    assertThat(forbidden.json().get("error").asText()).isEqualTo("Forbidden");
    assertThat(edit("DELETE", path + "/bins", "{\"bins\":[\"411111\"]}", reader).status()).isEqualTo(403);
    TestGateway.Answer hidden = edit("POST", path + "/bins", "{\"bins\":[\"411111\"]}", stranger);
    assertThat(hidden.status()).isEqualTo(404);
    assertThat(gw.merchantGet(path, stranger).status()).isEqualTo(404);
    assertThat(entries(path)).isEmpty();

    long countries = group(GroupKind.COUNTRY, "Settings only", false);
    assertThat(edit("POST", "/merchant-api/v1/country-groups/" + countries + "/countries", "{\"countries\":[\"DE\"]}",
        editor).status()).isEqualTo(403);
    assertThat(edit("POST", "/merchant-api/v1/email-groups/" + bins + "/emails", "{\"emails\":[\"a@b.co\"]}", editor)
        .status()).as("a BIN group is not an e-mail group").isEqualTo(404);
    assertThat(gw.merchantGet("/merchant-api/v1/bin-groups/abc", editor).status()).isEqualTo(404);
    assertThat(gw.merchantGet("/merchant-api/v1/bin-groups", stranger).json().get("result")).isEmpty();
  }

  /**
   * Whether the user may edit the group is settled before its body is read, as for entries of
   * the wrong type: another merchant's group is a 404 and a missing permission a 403 whatever the
   * body holds (no array, an empty one, no JSON at all); only a user who may edit it gets the 400.
   */
  @ParameterizedTest
  @ValueSource(strings = {"{\"%s\":[]}", "{}", "{\"%s\":null}", "{\"%s\":\"x\"}", "[]", "{\"%s\":[", ""})
  void a_group_the_user_may_not_edit_is_refused_so_whatever_the_body(String template) {
    long bins = group(GroupKind.BIN, "Refused whatever the body " + template.hashCode(), false);
    long countries = group(GroupKind.COUNTRY, "Countries refused whatever the body " + template.hashCode(), false);
    String binPath = "/merchant-api/v1/bin-groups/" + bins + "/bins";
    String countryPath = "/merchant-api/v1/country-groups/" + countries + "/countries";
    for (String method : new String[] {"POST", "DELETE"}) {
      String binBody = template.replace("%s", "bins");
      TestGateway.Answer hidden = edit(method, binPath, binBody, stranger);
      assertThat(hidden.status()).as(method + " " + binBody).isEqualTo(404);
      assertThat(hidden.json().get("message").asText()).isEqualTo("Group not found");
      TestGateway.Answer forbidden = edit(method, binPath, binBody, reader);
      assertThat(forbidden.status()).as(method + " " + binBody).isEqualTo(403);
      assertThat(forbidden.json().get("errors")).isEmpty();
      assertThat(edit(method, binPath, binBody, editor).status()).as(method + " " + binBody).isEqualTo(400);

      String countryBody = template.replace("%s", "countries");
      assertThat(edit(method, countryPath, countryBody, editor).status()).as(method + " " + countryBody)
          .isEqualTo(403);
      assertThat(edit(method, countryPath, countryBody, stranger).status()).isEqualTo(404);
      assertThat(edit(method, countryPath, countryBody, settings).status()).isEqualTo(400);
    }
    assertThat(entries("/merchant-api/v1/bin-groups/" + bins)).isEmpty();
  }

  /**
   * An edit's body must be declared as JSON (a 415, as the OpenAPI document says, and nothing
   * changes): a browser posts a cross-site form, or a body of no type, with the Basic
   * credentials it keeps for the API without asking first, but never a JSON one. As for any
   * other body, the group must be the user's to edit first.
   */
  @ParameterizedTest
  @ValueSource(strings = {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""})
  void an_edit_whose_body_is_not_declared_as_json_is_a_415(String contentType) {
    long id = group(GroupKind.BIN, "Typed bodies " + contentType, false);
    String path = "/merchant-api/v1/bin-groups/" + id + "/bins";
    for (String method : new String[] {"POST", "DELETE"}) {
      HttpRequest.Builder request = HttpRequest.newBuilder(gw.uri(path))
          .method(method, HttpRequest.BodyPublishers.ofString("{\"bins\":[\"411111\"]}"));
      if (!contentType.isEmpty()) {
        request.header("Content-Type", contentType);
      }
      TestGateway.Answer refused = gw.send(request.copy().header("Authorization", TestGateway.basic(editor)));
      assertThat(refused.status()).as(method + " " + contentType).isEqualTo(415);
      assertThat(refused.json().get("message").asText()).isEqualTo("Content-Type must be application/json");
      assertThat(gw.send(request.copy().header("Authorization", TestGateway.basic(stranger))).status()).isEqualTo(404);
      assertThat(gw.send(request.copy().header("Authorization", TestGateway.basic(reader))).status()).isEqualTo(403);
    }
    assertThat(entries("/merchant-api/v1/bin-groups/" + id)).isEmpty();
    TestGateway.Answer none = gw.send(HttpRequest.newBuilder(gw.uri(path)).DELETE()
        .header("Authorization", TestGateway.basic(editor)));
    assertThat(none.status()).as("no body at all").isEqualTo(400);
    assertThat(none.json().get("message").asText()).isEqualTo("Request body is required");
    assertThat(gw.send(HttpRequest.newBuilder(gw.uri(path))
        .POST(HttpRequest.BodyPublishers.ofString("{\"bins\":[\"411111\"]}"))
        .header("Content-Type", "application/json; charset=UTF-8").header("Authorization", TestGateway.basic(editor)))
        .status()).isEqualTo(201);
  }

  @ParameterizedTest
  @ValueSource(strings = {"offset=-1", "offset=1000001", "limit=0", "limit=10001", "limit=abc", "offset=1.5",
      "offset=99999999999999999999", "limit=-99999999999999999999"})
  void paging_out_of_bounds_is_a_400(String query) {
    for (String list : new String[] {"/merchant-api/v1/bin-groups", "/merchant-api/v1/shops",
        "/merchant-api/v1/card-groups", "/merchant-api/v1/country-groups"}) {
      TestGateway.Answer a = gw.merchantGet(list + "?" + query, reader);
      assertThat(a.status()).as(list + "?" + query).isEqualTo(400);
      assertThat(a.json().get("errors").get(0).get("field").asText()).isEqualTo(query.split("=")[0]);
      assertThat(a.json().get("errors").get(0).get("message").asText())
          .isEqualTo(query.contains("abc") || query.contains(".") ? "must be an integer"
              : query.startsWith("offset") ? "must be between 0 and 1000000" : "must be between 1 and 10000");
    }
  }

  /**
   * One country or error-code group is not a list (the spec gives it no pagination): it comes
   * whole, and offset and limit, no parameters of it, change nothing and are not checked.
   */
  @Test
  void one_country_or_error_code_group_comes_whole_whatever_the_paging_parameters() {
    long countries = group(GroupKind.COUNTRY, "Whole countries", false);
    long codes = group(GroupKind.ERROR_CODE, "Whole codes", false);
    assertThat(edit("POST", "/merchant-api/v1/country-groups/" + countries + "/countries",
        "{\"countries\":[\"DE\",\"FR\",\"IT\"]}", settings).status()).isEqualTo(201);
    assertThat(edit("POST", "/merchant-api/v1/error-code-groups/" + codes + "/error-codes",
        "{\"errorCodes\":[\"4.01\",\"4.02\",\"5.00\"]}", editor).status()).isEqualTo(201);
    for (String query : new String[] {"?limit=1", "?offset=2", "?limit=abc&offset=-5", "?limit=1&limit=2"}) {
      TestGateway.Answer c = gw.merchantGet("/merchant-api/v1/country-groups/" + countries + query, editor);
      assertThat(c.status()).as(query).isEqualTo(200);
      assertThat(c.json().has("hasMore")).isFalse();
      assertThat(toList(c.json().at("/result/countries"))).containsExactly("DE", "FR", "IT");
      TestGateway.Answer e = gw.merchantGet("/merchant-api/v1/error-code-groups/" + codes + query, editor);
      assertThat(e.status()).as(query).isEqualTo(200);
      assertThat(toList(e.json().at("/result/errorCodes"))).containsExactly("4.01", "4.02", "5.00");
    }
    // a group that is a page of its entries reads them, and refuses them given twice
    long bins = group(GroupKind.BIN, "Paged bins", false);
    assertThat(gw.merchantGet("/merchant-api/v1/bin-groups/" + bins + "?limit=1&limit=2", editor).status())
        .isEqualTo(400);
  }

  @Test
  void lists_page_with_has_more() {
    group(GroupKind.EMAIL, "Page one", false);
    group(GroupKind.EMAIL, "Page two", false);
    TestGateway.Answer first = gw.merchantGet("/merchant-api/v1/email-groups?limit=1", reader);
    assertThat(first.json().get("result")).hasSize(1);
    assertThat(first.json().get("hasMore").asBoolean()).isTrue();
    assertThat(first.json().get("result").get(0).get("merchantName").asText()).isEqualTo("Test Merchant");
    TestGateway.Answer all = gw.merchantGet("/merchant-api/v1/email-groups?limit=10000", reader);
    assertThat(all.json().get("hasMore").asBoolean()).isFalse();
    TestGateway.Answer bins = gw.merchantGet("/merchant-api/v1/bin-groups?limit=1", reader);
    assertThat(bins.json().get("result").get(0).has("groupName")).isTrue();
  }

  @Test
  void shops_and_balances_are_the_merchants_own() {
    gw.completedDeposit("30.00", "EUR", gw.apiKey);
    TestGateway.Answer shops = gw.merchantGet("/merchant-api/v1/shops", reader);
    assertThat(shops.status()).isEqualTo(200);
    assertThat(shops.json().has("hasMore")).isFalse();
    assertThat(shops.json().get("result").findValuesAsText("name")).contains("Test Shop");
    assertThat(gw.merchantGet("/merchant-api/v1/shops", stranger).json().get("result")).isEmpty();

    JsonNode balances = gw.merchantGet("/merchant-api/v1/balances", reader).json().get("result");
    assertThat(balances.findValuesAsText("accountType")).contains("AVAILABLE");
    JsonNode withdrawable = gw.merchantGet("/merchant-api/v1/available-withdrawal-balances", reader).json().get("result");
    assertThat(withdrawable.get(0).get("currency").asText()).isEqualTo("EUR");
    assertThat(withdrawable.get(0).get("amount").decimalValue()).isGreaterThanOrEqualTo(new java.math.BigDecimal("30.00"));
  }

  @Test
  void the_core_profile_offers_no_groups() throws Exception {
    try (TestGateway core = TestGateway.start(Map.of("TOLLGATE_MERCHANT_API", "core"))) {
      String[] user = core.merchantUser(core.merchant, "core@shop.example", Permission.values());
      assertThat(core.merchantGet("/merchant-api/v1/bin-groups", user).status()).isEqualTo(404);
      assertThat(core.merchantGet("/merchant-api/v1/error-code-groups", user).status()).isEqualTo(404);
      assertThat(core.merchantGet("/merchant-api/v1/shops", user).status()).isEqualTo(200);
      assertThat(core.merchantGet("/merchant-api/v1/balances", user).status()).isEqualTo(200);
    }
  }

  /**
   * Every edit through the merchant API that changed a group is kept with the user who made it,
   * and the operator reads them with {@code tollgate group history}: a card number masked, never
   * in clear; an edit that changed nothing does not show.
   */
  @Test
  void the_operator_sees_who_changed_which_group() {
    long cards = group(GroupKind.CARD, "Cards audited", false);
    String path = "/merchant-api/v1/card-groups/" + cards + "/cards";
    assertThat(edit("POST", path, "{\"cardNumbers\":[\"4000000000000002\"]}", editor).status()).isEqualTo(201);
    assertThat(edit("POST", path, "{\"cardNumbers\":[\"4000000000000002\"]}", editor).status()).isEqualTo(201);
    assertThat(edit("DELETE", path, "{\"cardNumbers\":[\"400000******0002\"]}", editor).status()).isEqualTo(204);
    long shops = gw.app.services().persistence().referenceData().createShopGroup(gw.merchant, "Shops audited",
        java.time.Instant.now());
    String[] shopEditor = gw.merchantUser(gw.merchant, "auditor-shops@groups.example", Permission.SHOP_GROUP_EDIT);
    assertThat(edit("POST", "/merchant-api/v1/shop-groups/" + shops + "/shops",
        "{\"shops\":[" + gw.shop.value() + "]}", shopEditor).status()).isEqualTo(201);

    CommandLineRun history = CommandLineRun.of(gw.commandLineEnvironment(), "group", "history",
        "--merchant", String.valueOf(gw.merchant.value()), "--limit", "3");
    assertThat(history.exit()).as(history.err()).isZero();
    assertThat(history.out().lines().map(l -> l.substring(l.indexOf('\t') + 1)).toList()).containsExactly(
        "auditor-shops@groups.example\tADD\tSHOP group " + shops + " (Shops audited)\t" + gw.shop.value(),
        "editor@groups.example\tREMOVE\tCARD group " + cards + " (Cards audited)\t400000******0002",
        "editor@groups.example\tADD\tCARD group " + cards + " (Cards audited)\t400000******0002");
    assertThat(history.out()).doesNotContain("4000000000000002");

    CommandLineRun ofOneGroup = CommandLineRun.of(gw.commandLineEnvironment(), "group", "history",
        "--merchant", String.valueOf(gw.merchant.value()), "--group", String.valueOf(cards), "--type", "card");
    assertThat(ofOneGroup.out().lines()).hasSize(2);
    CommandLineRun badType = CommandLineRun.of(gw.commandLineEnvironment(), "group", "history",
        "--merchant", String.valueOf(gw.merchant.value()), "--type", "cards");
    assertThat(badType.exit()).isNotZero();
    assertThat(badType.err()).contains("--type: one of BIN, EMAIL, CARD, COUNTRY, ERROR_CODE or SHOP");
  }
}
