package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tollgate.application.port.in.ProvisioningUseCase.UpdateShopCommand;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.user.Permission;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Shops and merchants stay apart, and no card number or security code is kept anywhere. */
class IsolationAndSecretsTest {

  static final List<String> TEST_PANS = List.of("4000000000000002", "5555000000000008", "4242424242424242",
      "4000000000000408", "5555000000000107", "4000000000000416", "4000000000009995", "4000000000000069",
      "4000000000000127", "4000000000000424");

  /** The security code sent with every card: three digits, as on the test cards' brands. */
  static final String CVV = "913";
  /**
   * The code as a value of its own, wherever it stands: in quotes or not, after a colon or an
   * equals sign; not as digits of a longer number or token, nor as the fraction of a time.
   */
  static final java.util.regex.Pattern CVV_TOKEN = java.util.regex.Pattern.compile("(?<![0-9A-Za-z.])" + CVV
      + "(?![0-9A-Za-z])");

  @Test
  void one_shops_key_never_reads_or_changes_another_shops_payments() throws Exception {
    try (TestGateway gw = TestGateway.start()) {
      var shopB = gw.createShop(gw.merchant, "Shop B", false);
      String keyB = gw.issueKey(shopB, Environment.SANDBOX);
      String mine = HostToHostTestSupport.depositWithCard(gw, "4000000000000408", "5.00", true);
      gw.patch("/api/v1/payments/" + mine, "{\"customerIp\":\"203.0.113.2\"}");

      assertThat(gw.get("/api/v1/payments/" + mine, keyB).status()).isEqualTo(404);
      assertThat(gw.get("/api/v1/payments/" + mine + "/operations", keyB).status()).isEqualTo(404);
      assertThat(gw.post("/api/v1/payments/" + mine + "/capture", "{}", keyB, null).status()).isEqualTo(404);
      assertThat(gw.post("/api/v1/payments/" + mine + "/void", "{}", keyB, null).status()).isEqualTo(404);
      // a refund of the other shop's paid deposit is refused as one of a deposit that does not exist
      String paid = gw.completedDeposit("5.00", "EUR", gw.apiKey);
      TestGateway.Answer foreign = refund(gw, paid, "1", keyB);
      TestGateway.Answer unknown = refund(gw, "0".repeat(32), "1", keyB);
      for (TestGateway.Answer refused : List.of(foreign, unknown)) {
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.json().get("errors")).hasSize(1);
        assertThat(refused.json().at("/errors/0/field").asText()).isEqualTo("parentPaymentId");
        assertThat(refused.json().at("/errors/0/message").asText()).isEqualTo("payment not found");
      }
      assertThat(foreign.json().get("message")).isEqualTo(unknown.json().get("message"));
      assertThat(gw.get("/api/v1/payments?limit=1000", keyB).json().get("result")).isEmpty();
      assertThat(gw.get("/api/v1/payments/" + mine).json().at("/result/state").asText()).isEqualTo("AUTHORIZED");
      assertThat(refund(gw, paid, "5.00", gw.apiKey).status()).as("all of it is still there to refund")
          .isEqualTo(200);
    }
  }

  private static TestGateway.Answer refund(TestGateway gw, String parent, String amount, String key) {
    return gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":" + amount
        + ",\"currency\":\"EUR\",\"parentPaymentId\":\"" + parent + "\"}", key, null);
  }

  /**
   * A production database may hold a sandbox key: one issued before its first server started
   * (the command line then refuses none), or by a release from before a database served one
   * environment. Production refuses it (401), as a key it never issued; no sandbox server can start there to
   * take it (OneEnvironmentPerDatabaseTest).
   */
  @Test
  void a_sandbox_key_is_refused_by_a_production_deployment() throws Exception {
    try (TestGateway prod = TestGateway.start(Map.of("TOLLGATE_ENVIRONMENT", "production"))) {
      String sandboxKey = prod.issueKey(prod.shop, Environment.SANDBOX);
      assertThat(sandboxKey).startsWith("tg_test_");
      TestGateway.Answer refused = prod.get("/api/v1/payments", sandboxKey);
      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.json().get("message").asText()).isEqualTo("Invalid token");
      assertThat(prod.apiKey).startsWith("tg_live_");
      assertThat(prod.get("/api/v1/payments").status()).isEqualTo(200);
    }
  }

  /**
   * No real acquirer adapter ships: a production deployment declines every payment rather than
   * let the sandbox simulator approve it, credit the balance and pay withdrawals out of it.
   */
  @Test
  void production_never_lets_the_sandbox_acquirer_answer_for_real_money() throws Exception {
    try (TestGateway prod = TestGateway.start(Map.of("TOLLGATE_ENVIRONMENT", "production"))) {
      TestGateway.Answer created = prod.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":40.00,"currency":"EUR",
           "card":{"cardNumber":"4000000000000408","cardholderName":"ANN LEE","expiryMonth":"12","expiryYear":"2045"}}
          """);
      assertThat(created.status()).as(created.body()).isEqualTo(200);
      TestGateway.Answer executed = prod.patch("/api/v1/payments/" + created.json().at("/result/id").asText(),
          "{\"customerIp\":\"203.0.113.9\"}");
      assertThat(executed.json().at("/result/state").asText()).as(executed.body()).isEqualTo("DECLINED");
      assertThat(executed.json().at("/result/errorCode").asText()).isEqualTo("1.05");
      assertThat(executed.json().at("/result/externalResultCode").asText()).isEqualTo("NO_ACQUIRER");
      assertThat(executed.body()).doesNotContain("Sandbox").doesNotContain("sbx_");

      TestGateway.Answer payout = prod.post("/api/v1/payments", """
          {"paymentType":"WITHDRAWAL","amount":4.00,"currency":"EUR","card":{"cardNumber":"4000000000000408"}}
          """);
      String payoutId = payout.json().at("/result/id").asText();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      String state = payout.json().at("/result/state").asText();
      while (!state.equals("DECLINED") && System.nanoTime() < deadline) {
        Thread.sleep(50);
        state = prod.get("/api/v1/payments/" + payoutId).json().at("/result/state").asText();
      }
      assertThat(state).as("the payout job declines it, paying nothing").isEqualTo("DECLINED");
      assertThat(prod.get("/api/v1/balances").body()).doesNotContain("40.00").doesNotContain("-4.00");
    }
  }

  @Test
  void no_card_number_or_security_code_is_stored_logged_or_answered() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    root.addAppender(log);
    List<String> responses = new ArrayList<>();
    try (TestGateway gw = TestGateway.start(); WebhookReceiver receiver = new WebhookReceiver()) {
      // the shop hears of its payments, so that the outbox and the delivery log fill and are looked at
      gw.app.services().shops().updateShop(gw.shop,
          new UpdateShopCommand(receiver.url("/secrets"), null, null, null, null, null));
      String[] user = gw.merchantUser(gw.merchant, "secrets@shop.example", Permission.values());
      long cards = gw.app.services().groups().create(gw.merchant, GroupKind.CARD, "cards", false).id();
      for (String pan : TEST_PANS) {
        // host-to-host, with the security code
        TestGateway.Answer created = gw.post("/api/v1/payments", """
            {"paymentType":"DEPOSIT","amount":7.00,"currency":"EUR","referenceId":"r-%s",
             "card":{"cardNumber":"%s","cardholderName":"ANN LEE","cardSecurityCode":"%s",
                     "expiryMonth":"12","expiryYear":"2045"}}
            """.formatted(pan.substring(12), pan, CVV));
        responses.add(created.body());
        String id = created.json().at("/result/id").asText();
        responses.add(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.3\"}").body());
        responses.add(gw.get("/api/v1/payments/" + id).body());
        responses.add(gw.get("/api/v1/payments/" + id + "/operations").body());
        // the number where no card number belongs: masked in free text, refused in a name
        TestGateway.Answer described = gw.post("/api/v1/payments", """
            {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR","description":"paid with %s",
             "additionalParameters":{"note":"%s"}}
            """.formatted(pan, pan));
        assertThat(described.status()).as(described.body()).isEqualTo(200);
        assertThat(described.json().at("/result/description").asText())
            .isEqualTo("paid with " + pan.substring(0, 6) + "******" + pan.substring(12));
        responses.add(described.body());
        String describedId = described.json().at("/result/id").asText();
        responses.add(gw.get("/api/v1/payments/" + describedId).body());
        responses.add(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + describedId)).GET()).body());
        TestGateway.Answer named = gw.post("/api/v1/payments", """
            {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR","customer":{"firstName":"Ann %s"}}
            """.formatted(pan));
        assertThat(named.status()).as(named.body()).isEqualTo(400);
        assertThat(named.json().get("errors").findValuesAsText("field")).containsExactly("customer.firstName");
        responses.add(named.body());
        // the checkout form
        String other = gw.deposit("3.00", "EUR");
        String page = gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + other)).GET()).body();
        var m = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(m.find()).isTrue();
        String form = "csrf=" + m.group(1) + "&cardNumber=" + pan + "&cardholderName=Ann&expiryMonth=12"
            + "&expiryYear=2045&cardSecurityCode=" + CVV;
        responses.add(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + other))
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .header("Content-Type", "application/x-www-form-urlencoded")).body());
        responses.add(gw.send(HttpRequest.newBuilder(gw.uri("/checkout/" + other)).GET()).body());
        // a withdrawal to the card, a card group entry, and requests that fail with the number in them
        responses.add(gw.post("/api/v1/payments", """
            {"paymentType":"WITHDRAWAL","amount":1,"currency":"EUR",
             "card":{"cardNumber":"%s","expiryMonth":"12","expiryYear":"2045"}}
            """.formatted(pan)).body());
        responses.add(gw.merchantPost("/merchant-api/v1/card-groups/" + cards + "/cards",
            "{\"cardNumbers\":[\"" + pan + "\"]}", user).body());
        responses.add(gw.merchantPost("/merchant-api/v1/bin-groups/" + cards + "/bins",
            "{\"bins\":[\"" + pan + "\"]}", user).body());
        responses.add(gw.post("/api/v1/payments", """
            {"paymentType":"DEPOSIT","amount":-1,"currency":"EUR","referenceId":"%s","description":"card %s",
             "card":{"cardNumber":"%s","cardSecurityCode":"98765","expiryMonth":"13","expiryYear":"1999"}}
            """.formatted(pan, pan, pan)).body());
        responses.add(gw.get("/api/v1/payments?referenceId.eq=" + URLEncoder.encode(pan, StandardCharsets.UTF_8))
            .body());
        // a number as the key of a member, which the error names as its field
        TestGateway.Answer keyed = gw.post("/api/v1/payments", """
            {"paymentType":"DEPOSIT","amount":2.00,"currency":"EUR","additionalParameters":{"%s":{"n":1}}}
            """.formatted(pan));
        assertThat(keyed.status()).as(keyed.body()).isEqualTo(400);
        assertThat(keyed.json().get("errors").findValuesAsText("field"))
            .containsExactly("additionalParameters." + pan.substring(0, 6) + "******" + pan.substring(12));
        responses.add(keyed.body());
        // a search value too long, echoed cut short: not where the cut would leave more than six digits
        TestGateway.Answer tooLong = gw.get("/api/v1/payments?referenceId.eq=" + "x".repeat(53) + pan + "y".repeat(250));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.body()).doesNotContain(pan.substring(0, 7)).contains(pan.substring(0, 6) + "*");
        responses.add(tooLong.body());
      }
      // the payout worker has paid or declined every withdrawal, and every webhook has gone out
      assertThat(WebhookReceiver.await(() -> count(gw, "payments WHERE payment_type = 'WITHDRAWAL'"
          + " AND state = 'PENDING'") + count(gw, "webhook_events WHERE status = 'PENDING'") == 0,
          java.time.Duration.ofSeconds(30))).isTrue();
      assertThat(count(gw, "webhook_attempts")).as("a delivery logged for each paid deposit at least")
          .isGreaterThanOrEqualTo(TEST_PANS.size());

      StringBuilder dump = new StringBuilder();
      List<String> tables = gw.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").mapTo(String.class).list());
      for (String table : tables) {
        gw.database.jdbi().useHandle(h -> h.createQuery("SELECT t::text FROM \"" + table + "\" t")
            .mapTo(String.class).forEach(row -> dump.append(table).append(": ").append(row).append('\n')));
      }
      // A row as text shows bytes as hex, where no number can be read: the outbox's bodies (the JSON
      // sent, in UTF-8) are read as text; sealed values (ciphertext, wrapped keys) byte for byte, each
      // byte that is a character as that character, where a number kept in clear would show.
      List<String> byteColumns = gw.database.jdbi().withHandle(h -> h.createQuery("""
              SELECT table_name || '.' || column_name FROM information_schema.columns
               WHERE table_schema = 'public' AND udt_name = 'bytea'""").mapTo(String.class).list());
      StringBuilder bodies = new StringBuilder();
      for (String column : byteColumns) {
        String[] name = column.split("\\.");
        boolean sealed = name[1].endsWith("ciphertext") || name[1].equals("wrapped");
        String select = "SELECT " + (sealed ? "encode(" + name[1] + ", 'escape')" : "convert_from(" + name[1]
            + ", 'UTF8')") + " FROM \"" + name[0] + "\"";
        gw.database.jdbi().useHandle(h -> h.createQuery(select).mapTo(String.class).forEach(value -> {
          dump.append(column).append(": ").append(value).append('\n');
          if (!sealed) {
            bodies.append(column).append(": ").append(value).append('\n');
          }
        }));
      }
      assertThat(bodies.toString()).as("the outbox's bodies, read").contains("webhook_events.body: {");
      // The security code is looked for in text and JSON columns, where a value taken from a request
      // would be kept. A number column holds 913 by chance (a webhook attempt's duration_ms, a
      // migration's execution_time, an id, an amount); a code kept as a number would need a column
      // of its own, and the column names are checked below. flyway_schema_history is the migration
      // tool's record, none of the gateway's data.
      Map<String, String> textColumns = gw.database.jdbi().withHandle(h -> h.createQuery("""
              SELECT table_name, string_agg(quote_ident(column_name), ', ') FROM information_schema.columns
               WHERE table_schema = 'public' AND table_name <> 'flyway_schema_history'
                 AND udt_name IN ('text', 'varchar', 'bpchar', 'json', 'jsonb',
                                  '_text', '_varchar', '_bpchar', '_json', '_jsonb')
               GROUP BY table_name""")
          .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2))).list().stream()
          .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
      StringBuilder texts = new StringBuilder(bodies);
      for (String table : tables) {
        if (textColumns.containsKey(table)) {
          String select = "SELECT ROW(" + textColumns.get(table) + ")::text FROM \"" + table + "\"";
          gw.database.jdbi().useHandle(h -> h.createQuery(select).mapTo(String.class)
              .forEach(row -> texts.append(table).append(": ").append(row).append('\n')));
        }
      }
      String columns = gw.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT string_agg(column_name, ',') FROM information_schema.columns WHERE table_schema = 'public'")
          .mapTo(String.class).one());
      StringBuilder logText = new StringBuilder();
      for (ILoggingEvent e : log.list) {
        logText.append(e.getFormattedMessage()).append('\n');
        if (e.getThrowableProxy() != null) {
          logText.append(e.getThrowableProxy().getMessage()).append('\n');
        }
      }
      String answers = String.join("\n", responses);
      String webhooks = receiver.received().stream().map(WebhookReceiver.Received::bodyText)
          .collect(java.util.stream.Collectors.joining("\n"));
      assertThat(webhooks).as("webhooks sent").contains("\"paymentType\":\"WITHDRAWAL\"");
      assertThat(dump.length()).isGreaterThan(10_000);
      for (String pan : TEST_PANS) {
        assertThat(dump.toString()).as("database").doesNotContain(pan);
        assertThat(logText.toString()).as("log").doesNotContain(pan);
        assertThat(answers).as("responses").doesNotContain(pan);
        assertThat(webhooks).as("webhooks sent").doesNotContain(pan);
      }
      assertThat(texts.length()).isGreaterThan(10_000);
      assertThat(texts.toString()).as("database").doesNotContainPattern(CVV_TOKEN);
      assertThat(dump.toString()).as("database").doesNotContain("cardSecurityCode");
      assertThat(logText.toString()).as("log").doesNotContainPattern(CVV_TOKEN);
      assertThat(answers).as("responses").doesNotContainPattern(CVV_TOKEN);
      assertThat(webhooks).as("webhooks sent").doesNotContainPattern(CVV_TOKEN);
      assertThat(columns).doesNotContainIgnoringCase("cvv").doesNotContainIgnoringCase("security_code")
          .doesNotContainIgnoringCase("pan,");
      String storedKeys = gw.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT string_agg(api_key_hash || encode(signing_key_ciphertext, 'escape'), ',') FROM shop_keys")
          .mapTo(String.class).one());
      assertThat(storedKeys).doesNotContain(gw.apiKey).doesNotContain(gw.signingKey);
      String hash = gw.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT password_hash FROM merchant_users WHERE email = 'secrets@shop.example'").mapTo(String.class).one());
      assertThat(hash).startsWith("$2").doesNotContain(user[1]);
    } finally {
      root.detachAppender(log);
    }
  }

  /** The rows of {@code from}: a table, and a condition if any. */
  private static long count(TestGateway gw, String from) {
    return gw.database.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM " + from).mapTo(Long.class).one());
  }
}
