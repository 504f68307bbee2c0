package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.Permission;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Signed webhooks from the outbox: headers, body, retries, order, the log and resend. */
class WebhookDeliveryTest {

  static TestGateway gw;
  static String[] editor;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", "PT0.2S,PT0.2S,PT0.2S",
        "TOLLGATE_WEBHOOK_TIMEOUT", "PT2S"));
    editor = gw.merchantUser(gw.merchant, "editor@shop.example", Permission.SHOP_EDIT);
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static String payWithCard(String card, String webhookUrl, boolean preAuth) {
    TestGateway.Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":12.50,"currency":"EUR","preAuth":%s,"webhookUrl":"%s",
         "card":{"cardNumber":"%s","cardholderName":"ANN LEE","expiryMonth":"12","expiryYear":"2045"}}
        """.formatted(preAuth, webhookUrl, card));
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String id = created.json().at("/result/id").asText();
    TestGateway.Answer done = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}");
    assertThat(done.status()).as(done.body()).isEqualTo(200);
    return id;
  }

  static String hmacHex(String key, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return HexFormat.of().formatHex(mac.doFinal(body));
  }

  /**
   * The {@code Webhook-Signature} a Standard Webhooks receiver expects, written from the
   * specification: {@code v1,} and the base64 HMAC-SHA256 of {@code id.timestamp.body}, keyed
   * with the base64 after {@code whsec_}, decoded.
   */
  static String standardSignature(String key, String id, String timestamp, byte[] body) throws Exception {
    assertThat(key).startsWith("whsec_");
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(java.util.Base64.getDecoder().decode(key.substring(6)), "HmacSHA256"));
    byte[] signed = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
    byte[] content = java.util.Arrays.copyOf(signed, signed.length + body.length);
    System.arraycopy(body, 0, content, signed.length, body.length);
    return "v1," + java.util.Base64.getEncoder().encodeToString(mac.doFinal(content));
  }

  @Test
  void a_completed_payment_arrives_signed_with_the_document_the_api_shows() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      String id = payWithCard("4000000000000408", receiver.url("/hooks/tollgate"), false);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();
      WebhookReceiver.Received hook = receiver.receivedFor(id).get(0);

      assertThat(hook.path()).isEqualTo("/hooks/tollgate");
      assertThat(hook.header("Signature")).isEqualTo(hmacHex(gw.signingKey, hook.body()));
      assertThat(hook.header("Signature")).matches("[0-9a-f]{64}");
      assertThat(hook.header("Webhook-Id")).matches("[0-9a-f-]{36}");
      // the id and the time are signed too, for a receiver that refuses a request recorded and sent again
      String standard = hook.header("Webhook-Signature");
      assertThat(standard).isEqualTo(standardSignature(gw.signingKey, hook.header("Webhook-Id"),
          hook.header("Webhook-Timestamp"), hook.body()));
      assertThat(standard).isNotEqualTo(standardSignature(gw.signingKey, hook.header("Webhook-Id"),
          Long.toString(Long.parseLong(hook.header("Webhook-Timestamp")) + 600), hook.body()));
      long sent = Long.parseLong(hook.header("Webhook-Timestamp"));
      assertThat(Math.abs(Instant.now().getEpochSecond() - sent)).isLessThan(60);
      assertThat(hook.header("Content-Type")).isEqualTo("application/json");
      assertThat(hook.header("User-Agent")).startsWith("Tollgate-Webhooks/");

      JsonNode body = TestGateway.JSON.readTree(hook.body());
      JsonNode shown = gw.get("/api/v1/payments/" + id).json().get("result");
      assertThat(body).isEqualTo(shown);
      assertThat(body.get("state").asText()).isEqualTo("COMPLETED");
      assertThat(body.get("shopName").asText()).isEqualTo("Test Shop");
      assertThat(hook.bodyText()).doesNotContain("4000000000000408");
    }
  }

  /**
   * The background jobs keep the delivery log for TOLLGATE_WEBHOOK_LOG_RETENTION: attempts
   * older than that go, and the payment's newest event stays, to be sent again. (A gateway of its
   * own: the job goes through the log oldest first, and this one's is all old.)
   */
  @Test
  void the_delivery_log_is_forgotten_after_its_retention_but_the_newest_event_stays() throws Exception {
    try (TestGateway own = TestGateway.start(Map.of("TOLLGATE_WEBHOOK_LOG_RETENTION", "P30D"));
        WebhookReceiver receiver = new WebhookReceiver()) {
      TestGateway.Answer created = own.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":5,"currency":"EUR","webhookUrl":"%s",
           "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}"""
          .formatted(receiver.url("/old")));
      String id = created.json().at("/result/id").asText();
      assertThat(own.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}").status()).isEqualTo(200);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();
      String[] user = own.merchantUser(own.merchant, "old-log@shop.example", Permission.SHOP_EDIT);
      assertThat(WebhookReceiver.await(() -> own.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", user)
          .json().get("result").size() == 1, Duration.ofSeconds(10))).isTrue();

      own.database.jdbi().useHandle(h -> {
        h.execute("UPDATE webhook_attempts SET started = started - interval '31 days'");
        h.execute("UPDATE webhook_events SET created = created - interval '31 days'");
      });
      assertThat(WebhookReceiver.await(() -> own.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", user)
          .json().get("result").isEmpty(), Duration.ofSeconds(10))).as("attempts forgotten").isTrue();
      assertThat(own.merchantPost("/merchant-api/v1/payments/" + id + "/webhooks/resend", "", user).status())
          .as("the newest event is still there to send").isEqualTo(202);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 2, Duration.ofSeconds(10))).isTrue();
    }
  }

  /**
   * A merchant that gives each deposit its webhookUrl (and the shop none) hears of the deposit's
   * refunds there too, unless a refund names a URL of its own: it used to hear nothing, the
   * refund's webhook failing for want of a URL.
   */
  @Test
  void a_refund_without_a_webhook_url_is_notified_where_its_deposit_was() throws Exception {
    try (WebhookReceiver orders = new WebhookReceiver(); WebhookReceiver refunds = new WebhookReceiver()) {
      String deposit = payWithCard("4000000000000408", orders.url("/orders"), false);
      String refund = refund(deposit, null);
      assertThat(WebhookReceiver.await(() -> orders.receivedFor(refund).size() == 1, Duration.ofSeconds(10))).isTrue();
      JsonNode body = TestGateway.JSON.readTree(orders.receivedFor(refund).get(0).body());
      assertThat(body.get("paymentType").asText()).isEqualTo("REFUND");
      assertThat(body.get("state").asText()).isEqualTo("COMPLETED");

      String named = refund(deposit, refunds.url("/refunds"));
      assertThat(WebhookReceiver.await(() -> refunds.receivedFor(named).size() == 1, Duration.ofSeconds(10))).isTrue();
      assertThat(orders.receivedFor(named)).isEmpty();
    }
  }

  private static String refund(String deposit, String webhookUrl) {
    TestGateway.Answer created = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":2.50,"
        + "\"currency\":\"EUR\",\"parentPaymentId\":\"" + deposit + "\""
        + (webhookUrl == null ? "" : ",\"webhookUrl\":\"" + webhookUrl + "\"") + "}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return created.json().at("/result/id").asText();
  }

  @Test
  void credentials_in_the_url_are_sent_as_basic_authentication_and_never_shown_in_the_log() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      String url = receiver.url("/basic").replace("http://", "http://shop%40acme:s3cr%3At@");
      String id = payWithCard("4000000000000408", url, false);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();

      assertThat(receiver.receivedFor(id).get(0).header("Authorization"))
          .isEqualTo("Basic " + java.util.Base64.getEncoder().encodeToString(
              "shop@acme:s3cr:t".getBytes(StandardCharsets.UTF_8)));
      assertThat(WebhookReceiver.await(() -> finalAttemptLogged(id, 1), Duration.ofSeconds(10))).isTrue();
      TestGateway.Answer log = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor);
      assertThat(log.json().at("/result/0/url").asText()).isEqualTo(url.replace("s3cr%3At", "***"));
      assertThat(log.body()).doesNotContain("s3cr");
    }
  }

  /**
   * A token alone in the URL's user part is sent as a user with an empty password, as curl sends
   * it: without the colon, receivers that follow RFC 7617 could not read the header and refused
   * every webhook. The log shows the token as the secret it is.
   */
  @Test
  void a_token_alone_in_the_url_is_sent_as_a_user_with_an_empty_password_and_never_shown() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      String url = receiver.url("/token").replace("http://", "http://tok3n@");
      String id = payWithCard("4000000000000408", url, false);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();

      assertThat(receiver.receivedFor(id).get(0).header("Authorization"))
          .isEqualTo("Basic " + java.util.Base64.getEncoder()
              .encodeToString("tok3n:".getBytes(StandardCharsets.UTF_8)));
      assertThat(WebhookReceiver.await(() -> finalAttemptLogged(id, 1), Duration.ofSeconds(10))).isTrue();
      TestGateway.Answer log = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor);
      assertThat(log.json().at("/result/0/url").asText()).isEqualTo(url.replace("tok3n", "***"));
      assertThat(log.body()).doesNotContain("tok3n");
    }
  }

  /**
   * Attempts an older release recorded kept the URL as the shop had it, password included (and
   * failed, as it sent no credentials): the log shows them as it shows new ones, to every user who
   * can see the payment, so the password is left out on reading too.
   */
  @Test
  void an_attempt_recorded_with_the_password_is_shown_without_it() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      String id = payWithCard("4000000000000408", receiver.url("/old"), false);
      assertThat(WebhookReceiver.await(() -> finalAttemptLogged(id, 1), Duration.ofSeconds(10))).isTrue();
      String stored = receiver.url("/old").replace("http://", "http://hooks:0ldS3cret@");
      gw.database.jdbi().useHandle(h -> h.createUpdate("UPDATE webhook_attempts SET url = :url WHERE payment_id = :id")
          .bind("url", stored).bind("id", id).execute());

      TestGateway.Answer log = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor);
      assertThat(log.json().at("/result/0/url").asText()).isEqualTo(stored.replace("0ldS3cret", "***"));
      assertThat(log.body()).doesNotContain("0ldS3cret");
    }
  }

  /**
   * After a key issue the receiver still holds the old signing key until it is given the new
   * one: for a day, Webhook-Signature carries a signature with each, so either verifies.
   */
  @Test
  void for_a_day_after_a_key_issue_webhook_signature_verifies_with_the_old_key_too() throws Exception {
    ShopId shop = gw.createShop(gw.merchant, "Rotating keys", false);
    var first = gw.app.services().shops().issueKeys(shop, io.tollgate.domain.shop.Environment.SANDBOX);
    var second = gw.app.services().shops().issueKeys(shop, io.tollgate.domain.shop.Environment.SANDBOX);
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      TestGateway.Answer created = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":3.00,"currency":"EUR","webhookUrl":"%s",
           "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}
          """.formatted(receiver.url("/rotated")), second.apiKey(), null);
      String id = created.json().at("/result/id").asText();
      assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}", second.apiKey()).status())
          .isEqualTo(200);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();
      WebhookReceiver.Received hook = receiver.receivedFor(id).get(0);

      String id0 = hook.header("Webhook-Id");
      String at = hook.header("Webhook-Timestamp");
      assertThat(hook.header("Webhook-Signature").split(" ")).containsExactly(
          standardSignature(second.signingKey(), id0, at, hook.body()),
          standardSignature(first.signingKey(), id0, at, hook.body()));
      assertThat(hook.header("Signature")).as("the platform's own has room for one: the new key's")
          .isEqualTo(hmacHex(second.signingKey(), hook.body()));
    }
  }

  /**
   * Text beyond ASCII, in the shop's name, the description and the customer's name, arrives as
   * UTF-8 and signed as it arrives: the {@code Signature} is the HMAC of the bytes received, which
   * read as UTF-8 give the payment the API shows. A body signed in one encoding and sent in another
   * verifies for no receiver once a payment names a customer such as these.
   */
  @Test
  void text_beyond_ascii_arrives_as_utf8_and_signed_as_received() throws Exception {
    String text = "Zoë café € 𝄞";
    ShopId shop = gw.createShop(gw.merchant, "Boutique " + text, false);
    var keys = gw.app.services().shops().issueKeys(shop, gw.app.services().environment());
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      TestGateway.Answer created = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":4.20,"currency":"EUR","webhookUrl":"%s","description":"%s",
           "customer":{"firstName":"Zoë","lastName":"Café €"},
           "card":{"cardNumber":"4000000000000408","cardholderName":"ZOE CAFE","expiryMonth":"12","expiryYear":"2045"}}
          """.formatted(receiver.url("/unicode"), text), keys.apiKey(), null);
      assertThat(created.status()).as(created.body()).isEqualTo(200);
      String id = created.json().at("/result/id").asText();
      assertThat(gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}", keys.apiKey()).status())
          .isEqualTo(200);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();
      WebhookReceiver.Received hook = receiver.receivedFor(id).get(0);

      assertThat(hook.header("Signature")).as("signed over the bytes received")
          .isEqualTo(hmacHex(keys.signingKey(), hook.body()));
      String decoded;
      try {
        decoded = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(hook.body())).toString();
      } catch (java.nio.charset.CharacterCodingException e) {
        throw new AssertionError("the body is not UTF-8: " + hook.bodyText(), e);
      }
      JsonNode body = TestGateway.JSON.readTree(decoded);
      JsonNode shown = gw.get("/api/v1/payments/" + id, keys.apiKey()).json().get("result");
      assertThat(body).isEqualTo(shown);
      assertThat(body.get("description").asText()).isEqualTo(text);
      assertThat(body.at("/customer/firstName").asText()).isEqualTo("Zoë");
      assertThat(body.at("/customer/lastName").asText()).isEqualTo("Café €");
      assertThat(body.get("shopName").asText()).isEqualTo("Boutique " + text);
    }
  }

  /** Whether the payment's webhook log holds {@code attempts} attempts, the newest of them final (delivered or failed). */
  private static boolean finalAttemptLogged(String id, int attempts) {
    JsonNode log = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor).json().get("result");
    return log.size() == attempts && !log.get(0).get("status").asText().equals("PENDING");
  }

  @Test
  void three_failures_then_success_arrive_four_times_with_one_id_and_are_logged() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver().thenAnswer(500, 500, 500)) {
      String id = payWithCard("4000000000000408", receiver.url("/flaky"), false);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 4, Duration.ofSeconds(15))).isTrue();
      // each attempt is logged once the receiver's answer is back, a moment after it arrived
      assertThat(WebhookReceiver.await(() -> finalAttemptLogged(id, 4), Duration.ofSeconds(10))).isTrue();
      List<WebhookReceiver.Received> all = receiver.receivedFor(id);
      assertThat(all).hasSize(4);
      assertThat(all).extracting(r -> r.header("Webhook-Id")).containsOnly(all.get(0).header("Webhook-Id"));
      for (WebhookReceiver.Received attempt : all) {
        // each attempt signed with its own time
        assertThat(attempt.header("Webhook-Signature")).isEqualTo(standardSignature(gw.signingKey,
            attempt.header("Webhook-Id"), attempt.header("Webhook-Timestamp"), attempt.body()));
      }

      TestGateway.Answer log = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor);
      assertThat(log.status()).as(log.body()).isEqualTo(200);
      JsonNode attempts = log.json().get("result");
      assertThat(attempts).hasSize(4);
      assertThat(attempts.findValuesAsText("statusCode")).containsExactly("200", "500", "500", "500");
      assertThat(attempts.findValuesAsText("attempt")).containsExactly("4", "3", "2", "1");
      assertThat(attempts.findValuesAsText("status")).containsExactly("DELIVERED", "PENDING", "PENDING", "PENDING");
      assertThat(attempts.get(0).get("webhookId").asText()).isEqualTo(all.get(0).header("Webhook-Id"));
      assertThat(attempts.get(0).get("durationMs").asLong()).isNotNegative();
      assertThat(attempts.get(0).get("started").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}");
    }
  }

  @Test
  void after_the_last_retry_the_event_is_failed_and_a_resend_delivers_it() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver().answerAlways(503)) {
      String id = payWithCard("4000000000000408", receiver.url("/down"), false);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 4, Duration.ofSeconds(15))).isTrue();
      assertThat(WebhookReceiver.await(() -> finalAttemptLogged(id, 4), Duration.ofSeconds(10))).isTrue();
      assertThat(receiver.receivedFor(id)).hasSize(4);
      JsonNode attempts = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor).json().get("result");
      assertThat(attempts.get(0).get("status").asText()).isEqualTo("FAILED");

      receiver.answerAlways(200);
      TestGateway.Answer resend = gw.merchantPost("/merchant-api/v1/payments/" + id + "/webhooks/resend", "", editor);
      assertThat(resend.status()).as(resend.body()).isEqualTo(202);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 5, Duration.ofSeconds(10))).isTrue();
      List<WebhookReceiver.Received> all = receiver.receivedFor(id);
      assertThat(all.get(4).header("Webhook-Id")).isEqualTo(all.get(0).header("Webhook-Id"));
      // the attempt is logged once the receiver's answer is back, a moment after it arrived
      WebhookReceiver.await(() -> gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor)
          .json().get("result").size() == 5, Duration.ofSeconds(5));
      JsonNode after = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor).json().get("result");
      assertThat(after).hasSize(5);
      assertThat(after.get(0).get("status").asText()).isEqualTo("DELIVERED");

      // paged as the other lists are, since resends add to the log without end
      JsonNode newest = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks?limit=2", editor).json();
      assertThat(newest.get("result")).extracting(a -> a.get("attempt").asInt()).containsExactly(5, 4);
      assertThat(newest.get("hasMore").asBoolean()).isTrue();
      JsonNode last = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks?offset=4&limit=2", editor).json();
      assertThat(last.get("result")).extracting(a -> a.get("attempt").asInt()).containsExactly(1);
      assertThat(last.get("hasMore").asBoolean()).isFalse();
      TestGateway.Answer bad = gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks?limit=0", editor);
      assertThat(bad.status()).as(bad.body()).isEqualTo(400);
      assertThat(bad.body()).contains("limit");
      String[] stranger = gw.merchantUser(gw.app.services().shops().createMerchant("Paging Stranger"),
          "paging@else.example");
      assertThat(gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks?limit=0", stranger).status())
          .as("another merchant's payment is not found, whatever the page").isEqualTo(404);
    }
  }

  @Test
  void the_log_and_resend_need_the_right_user() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      String id = payWithCard("4000000000000408", receiver.url("/h"), false);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();
      String path = "/merchant-api/v1/payments/" + id + "/webhooks";

      TestGateway.Answer anonymous = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri(path)).GET());
      assertThat(anonymous.status()).isEqualTo(401);
      assertThat(anonymous.header("WWW-Authenticate")).startsWith("Basic");
      assertThat(anonymous.json().get("error").asText()).isEqualTo("Unauthorized");
      assertThat(gw.merchantGet(path, new String[] {editor[0], "wrong password!"}).status()).isEqualTo(401);

      String[] reader = gw.merchantUser(gw.merchant, "reader@shop.example");
      assertThat(gw.merchantGet(path, reader).status()).isEqualTo(200);
      TestGateway.Answer forbidden = gw.merchantPost(path + "/resend", "", reader);
      assertThat(forbidden.status()).isEqualTo(403);
      assertThat(forbidden.json().get("message").asText()).contains("SHOP_EDIT");

      var otherMerchant = gw.app.services().shops().createMerchant("Someone Else");
      String[] stranger = gw.merchantUser(otherMerchant, "boss@else.example", Permission.values());
      assertThat(gw.merchantGet(path, stranger).status()).isEqualTo(404);
      assertThat(gw.merchantPost(path + "/resend", "", stranger).status()).isEqualTo(404);
      // another merchant's payment, or none at all, is a 404 for a user without SHOP_EDIT too, never a 403
      String[] strangerReader = gw.merchantUser(otherMerchant, "reader@else.example");
      TestGateway.Answer hidden = gw.merchantPost(path + "/resend", "", strangerReader);
      assertThat(hidden.status()).as(hidden.body()).isEqualTo(404);
      assertThat(hidden.json().get("message").asText()).isEqualTo("Payment not found");
      assertThat(gw.merchantPost("/merchant-api/v1/payments/" + "0".repeat(32) + "/webhooks/resend", "", reader)
          .status()).isEqualTo(404);
      assertThat(gw.merchantGet("/merchant-api/v1/payments/not-an-id/webhooks", editor).status()).isEqualTo(404);
      Thread.sleep(500);
      assertThat(receiver.receivedFor(id)).hasSize(1);
    }
  }

  /**
   * A browser signed in to the merchant API sends its Basic credentials with another site's
   * body-less form too; that page must not be able to resend webhooks. A client that is no
   * browser sends no Origin and is let through, and so is a page of this API's own origin.
   */
  @Test
  void a_resend_asked_for_by_another_sites_page_is_refused_and_sends_nothing() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      String id = payWithCard("4000000000000408", receiver.url("/csrf"), false);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 1, Duration.ofSeconds(10))).isTrue();
      String path = "/merchant-api/v1/payments/" + id + "/webhooks/resend";
      java.util.function.BiFunction<String, String, TestGateway.Answer> resendWith = (header, value) ->
          gw.send(java.net.http.HttpRequest.newBuilder(gw.uri(path))
              .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
              .header("Content-Type", "application/x-www-form-urlencoded")
              .header("Authorization", TestGateway.basic(editor)).header(header, value));

      for (String[] crossSite : List.of(new String[] {"Origin", "https://attacker.example"},
          new String[] {"Origin", "null"}, new String[] {"Origin", "http://127.0.0.1:1"},
          new String[] {"Sec-Fetch-Site", "cross-site"}, new String[] {"Sec-Fetch-Site", "same-site"})) {
        TestGateway.Answer refused = resendWith.apply(crossSite[0], crossSite[1]);
        assertThat(refused.status()).as(String.join(": ", crossSite)).isEqualTo(403);
        assertThat(refused.json().get("message").asText()).contains("another site");
        assertThat(refused.json().get("path").asText()).isEqualTo(path);
      }
      Thread.sleep(800);
      assertThat(receiver.receivedFor(id)).as("nothing was resent").hasSize(1);

      assertThat(resendWith.apply("Origin", "http://127.0.0.1:" + gw.app.port()).status())
          .as("a page of the API's own origin").isEqualTo(202);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 2, Duration.ofSeconds(10))).isTrue();
      assertThat(resendWith.apply("Sec-Fetch-Site", "same-origin").status()).isEqualTo(202);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 3, Duration.ofSeconds(10))).isTrue();
      // behind a proxy that rewrote Host, the browser's Sec-Fetch-Site still says same-origin
      assertThat(gw.send(java.net.http.HttpRequest.newBuilder(gw.uri(path))
          .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).header("Authorization", TestGateway.basic(editor))
          .header("Origin", "https://merchant-console.example").header("Sec-Fetch-Site", "same-origin")).status())
          .isEqualTo(202);
      // refused before the credentials are looked at: a wrong password is no 401 here
      TestGateway.Answer unchecked = gw.send(java.net.http.HttpRequest.newBuilder(gw.uri(path))
          .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
          .header("Authorization", TestGateway.basic(new String[] {editor[0], "not the password"}))
          .header("Origin", "https://attacker.example"));
      assertThat(unchecked.status()).isEqualTo(403);
    }
  }

  @Test
  void the_payment_url_wins_over_the_shop_url_which_is_used_otherwise() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      ShopId shop = gw.app.services().shops().createShop(new CreateShopCommand(gw.merchant, "Hooked Shop",
          receiver.url("/shop-url"), null, null, false, false, "EUR"));
      String key = gw.issueKey(shop, gw.app.services().environment());
      String plain = gw.completedDeposit("5.00", "EUR", key);
      TestGateway.Answer created = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":5,"currency":"EUR","webhookUrl":"%s",
           "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}
          """.formatted(receiver.url("/payment-url")), key, null);
      String overridden = created.json().at("/result/id").asText();
      gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/api/v1/payments/" + overridden))
          .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"2001:db8::1\"}"))
          .header("Content-Type", "application/json").header("Authorization", "Bearer " + key));

      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(plain).size() == 1
          && receiver.receivedFor(overridden).size() == 1, Duration.ofSeconds(10))).isTrue();
      assertThat(receiver.receivedFor(plain).get(0).path()).isEqualTo("/shop-url");
      assertThat(receiver.receivedFor(overridden).get(0).path()).isEqualTo("/payment-url");

      // a refund without a URL of its own is the shop's, whatever its deposit named
      String refund = gw.post("/api/v1/payments", "{\"paymentType\":\"REFUND\",\"amount\":1,\"currency\":\"EUR\","
          + "\"parentPaymentId\":\"" + overridden + "\"}", key, null).json().at("/result/id").asText();
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(refund).size() == 1, Duration.ofSeconds(10)))
          .isTrue();
      assertThat(receiver.receivedFor(refund).get(0).path()).isEqualTo("/shop-url");
    }
  }

  @Test
  void events_of_one_payment_arrive_in_order_even_when_the_first_is_retried() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver().thenAnswer(500, 500)) {
      String id = payWithCard("4000000000000408", receiver.url("/ordered"), true);
      assertThat(gw.post("/api/v1/payments/" + id + "/capture", "{}").status()).isEqualTo(200);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 4, Duration.ofSeconds(15))).isTrue();
      Thread.sleep(500);
      List<String> states = receiver.receivedFor(id).stream()
          .map(r -> r.bodyText().replaceAll(".*\"state\":\"([A-Z_]+)\".*", "$1")).toList();
      assertThat(states).containsExactly("AUTHORIZED", "AUTHORIZED", "AUTHORIZED", "COMPLETED");
      List<WebhookReceiver.Received> all = receiver.receivedFor(id);
      assertThat(all.get(3).header("Webhook-Id")).isNotEqualTo(all.get(0).header("Webhook-Id"));
    }
  }

  /**
   * A resend while an earlier event of the payment waits for its retry: that event goes at once,
   * and the resent one right after it, in order. The resend used to make only the payment's
   * newest event due, which the dispatcher holds back behind the earlier pending one, so the
   * merchant was answered 202 and nothing went out until that retry, an hour later here (up to a
   * day on the default schedule). (A gateway of its own, for its hour-long retry.)
   */
  @Test
  void a_resend_sends_an_earlier_event_waiting_for_its_retry_first_and_at_once() throws Exception {
    try (TestGateway own = TestGateway.start(Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", "PT1H",
        "TOLLGATE_WEBHOOK_TIMEOUT", "PT2S")); WebhookReceiver receiver = new WebhookReceiver().thenAnswer(500)) {
      String id = own.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":6,"currency":"EUR","preAuth":true,"webhookUrl":"%s",
           "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}"""
          .formatted(receiver.url("/retried"))).json().at("/result/id").asText();
      assertThat(own.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}").status()).isEqualTo(200);
      String[] user = own.merchantUser(own.merchant, "resend-behind@shop.example", Permission.SHOP_EDIT);
      String log = "/merchant-api/v1/payments/" + id + "/webhooks";
      assertThat(WebhookReceiver.await(() -> own.merchantGet(log, user).json().get("result").size() == 1,
          Duration.ofSeconds(10))).as("the AUTHORIZED event's 500 is logged").isTrue();
      assertThat(own.post("/api/v1/payments/" + id + "/capture", "{}").status()).isEqualTo(200);
      Thread.sleep(800);
      assertThat(receiver.receivedFor(id)).as("COMPLETED waits behind the AUTHORIZED retry").hasSize(1);

      assertThat(own.merchantPost(log + "/resend", "", user).status()).isEqualTo(202);
      assertThat(WebhookReceiver.await(() -> receiver.receivedFor(id).size() == 3, Duration.ofSeconds(10)))
          .as("sent within seconds, not at the retry an hour on").isTrue();
      assertThat(receiver.receivedFor(id))
          .extracting(r -> r.bodyText().replaceAll(".*\"state\":\"([A-Z_]+)\".*", "$1"))
          .containsExactly("AUTHORIZED", "AUTHORIZED", "COMPLETED");
    }
  }

  /**
   * A resend asked while the event waits, claimed, for a slot of its shop (the shop's receiver
   * holds as many of its webhooks as one shop may have in flight) is answered by the delivery
   * made once a slot frees up: the event used to go out once more straight after it, as for a
   * resend asked during a delivery. (A gateway of its own, with two slots: a shop then sends one
   * webhook at a time, and a claim of its two due events keeps one waiting.)
   */
  @Test
  void a_resend_asked_while_the_event_waits_for_a_slot_is_sent_once() throws Exception {
    try (TestGateway own = TestGateway.start(Map.of("TOLLGATE_WEBHOOK_PARALLELISM", "2",
        "TOLLGATE_WEBHOOK_RETRY_SCHEDULE", "PT1H", "TOLLGATE_WEBHOOK_TIMEOUT", "PT30S"));
        WebhookReceiver receiver = new WebhookReceiver().thenAnswer(500, 500)) {
      List<String> payments = new java.util.ArrayList<>();
      for (int i = 0; i < 2; i++) {
        String id = own.post("/api/v1/payments", """
            {"paymentType":"DEPOSIT","amount":7,"currency":"EUR","webhookUrl":"%s",
             "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}"""
            .formatted(receiver.url("/one-at-a-time"))).json().at("/result/id").asText();
        assertThat(own.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.9\"}").status())
            .isEqualTo(200);
        payments.add(id);
      }
      // both refused once, their retries an hour away, and no delivery left in flight
      assertThat(WebhookReceiver.await(() -> count(own, "attempts = 1 AND lease_token IS NULL") == 2
          && OperabilityTest.metric(own.send(java.net.http.HttpRequest.newBuilder(own.uri("/metrics")).GET()).body(),
              "tollgate_webhooks_inflight") == 0, Duration.ofSeconds(10))).isTrue();

      // before the receiver holds its answers: the user's password hashed, and checked once (a sign-in
      // is remembered), two bcrypt rounds that on a slow machine would hold them past the timeout
      String[] user = own.merchantUser(own.merchant, "resend-waiting@shop.example", Permission.SHOP_EDIT);
      assertThat(own.merchantGet("/merchant-api/v1/shops", user).status()).isEqualTo(200);
      receiver.holdAnswers();
      own.database.jdbi().useHandle(h -> h.execute("UPDATE webhook_events SET next_attempt_at = now()"));
      assertThat(WebhookReceiver.await(() -> receiver.arrivedIds().size() == 3, Duration.ofSeconds(10))).isTrue();
      String sending = receiver.arrivedIds().get(2);
      assertThat(count(own, "lease_token IS NOT NULL")).as("one claim took both, the other waits").isEqualTo(2);
      String waitingPayment = own.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT payment_id FROM webhook_events WHERE id <> CAST(:sending AS uuid)")
          .bind("sending", sending).mapTo(String.class).one());
      String waiting = own.database.jdbi().withHandle(h -> h.createQuery(
          "SELECT CAST(id AS text) FROM webhook_events WHERE payment_id = :payment")
          .bind("payment", waitingPayment).mapTo(String.class).one());
      assertThat(own.merchantPost("/merchant-api/v1/payments/" + waitingPayment + "/webhooks/resend", "", user)
          .status()).isEqualTo(202);
      // The waiting event's attempt is taken to begin its measured wait after the claim's time, a
      // wait never counted longer than it was: a resend asked less than the claim's round trip
      // before the attempt is taken as asked during it, and sent again (README). The event waits
      // a moment after the ask, as one waiting for a slot does, so that a slow claim on a busy
      // machine does not make the ask look like one made during the attempt.
      Thread.sleep(1_000);

      receiver.answerHeld();
      assertThat(WebhookReceiver.await(() -> count(own, "status = 'PENDING'") == 0, Duration.ofSeconds(20)))
          .as("both delivered").isTrue();
      List<String> arrived = receiver.arrivedIds();
      List<String> afterTheResend = arrived.subList(2, arrived.size());
      assertThat(afterTheResend).as("the waiting event, sent after the resend was asked")
          .filteredOn(waiting::equals).hasSize(1);
      assertThat(afterTheResend).filteredOn(sending::equals).hasSize(1);
    }
  }

  /** The gateway's webhook events that match {@code condition}. */
  private static long count(TestGateway gateway, String condition) {
    return gateway.database.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_events WHERE "
        + condition).mapTo(Long.class).one());
  }

  @Test
  void a_payment_waiting_for_its_customer_sends_nothing() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      TestGateway.Answer created = gw.post("/api/v1/payments", """
          {"paymentType":"DEPOSIT","amount":3,"currency":"EUR","webhookUrl":"%s"}
          """.formatted(receiver.url("/quiet")));
      String id = created.json().at("/result/id").asText();
      Thread.sleep(800);
      assertThat(receiver.receivedFor(id)).isEmpty();
      assertThat(gw.merchantGet("/merchant-api/v1/payments/" + id + "/webhooks", editor).json().get("result")).isEmpty();
      assertThat(gw.merchantPost("/merchant-api/v1/payments/" + id + "/webhooks/resend", "", editor).status())
          .isEqualTo(404);
    }
  }
}
