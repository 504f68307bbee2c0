package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.WebhookOutbox.ClaimedEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A withdrawal rejected before its {@code rejectReason} was masked kept the card number staff
 * quoted in clear: in the payment's {@code externalResultCode}, its REJECT operation, the webhook
 * event a resend sends again as stored, and the answer kept for a keyed reject. V55 masks each
 * Luhn-valid number there as the reason is masked now; an order number that fails the check, the
 * rest of the text and the rest of the webhook body stay as written.
 */
class RejectReasonsMaskedMigrationTest {

  private static final String QUOTED = "stolen card \"4000 0000 0000 0408\", again as 4000000000000408;"
      + " order 1234567812345678";
  private static final String MASKED = "stolen card \"400000******0408\", again as 400000******0408;"
      + " order 1234567812345678";
  private static final String ORDER_ONLY = "order 1234567812345678 was paid twice";
  private static final String EVENT = "7f1c4c2e-6a0e-4d55-9a55-000000000001";
  private static final String OTHER_EVENT = "7f1c4c2e-6a0e-4d55-9a55-000000000002";

  @Test
  void card_numbers_quoted_in_a_reject_reason_before_v55_are_masked_everywhere_it_was_kept() {
    BeforeMigration db = BeforeMigration.of("55");
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> {
      h.execute("INSERT INTO merchants (id, name, created) VALUES (1, 'Rejects', now())");
      h.execute("INSERT INTO shops (id, merchant_id, name, created) VALUES (1, 1, 'Shop', now())");
      h.createUpdate("""
          INSERT INTO payments (id, shop_id, merchant_id, payment_type, state, payment_method, amount, currency,
              pre_auth, error_code, error_message, external_result_code, created, updated, version) VALUES
            (repeat('a', 32), 1, 1, 'WITHDRAWAL', 'CANCELLED', 'BASIC_CARD', 7.00, 'EUR', false,
                '8.00', 'Rejected by Merchant', :quoted, now(), now(), 2),
            (repeat('b', 32), 1, 1, 'WITHDRAWAL', 'CANCELLED', 'BASIC_CARD', 7.00, 'EUR', false,
                '8.00', 'Rejected by Merchant', :order, now(), now(), 2)""")
          .bind("quoted", QUOTED).bind("order", ORDER_ONLY).execute();
      h.createUpdate("""
          INSERT INTO payment_operations (payment_id, shop_id, merchant_id, operation, started, completed,
              payment_state, error_code, details, external_result_code) VALUES
            (repeat('a', 32), 1, 1, 'WITHDRAWAL', now(), now(), 'AWAITING_APPROVAL', null, null, null),
            (repeat('a', 32), 1, 1, 'REJECT', now(), now(), 'CANCELLED', '8.00',
                'rejected by the merchant: ' || :quoted, :quoted),
            (repeat('b', 32), 1, 1, 'REJECT', now(), now(), 'CANCELLED', '8.00',
                'rejected by the merchant: ' || :order, :order)""")
          .bind("quoted", QUOTED).bind("order", ORDER_ONLY).execute();
      h.createUpdate("""
          INSERT INTO webhook_events (id, payment_id, shop_id, payment_state, body, status, attempts,
              next_attempt_at, created, finished) VALUES
            (CAST(:event AS uuid), repeat('a', 32), 1, 'CANCELLED', convert_to(:body, 'UTF8'), 'DELIVERED', 1,
                now(), now(), now()),
            (CAST(:other AS uuid), repeat('b', 32), 1, 'CANCELLED', convert_to(:order, 'UTF8'), 'DELIVERED', 1,
                now(), now(), now())""")
          .bind("event", EVENT).bind("other", OTHER_EVENT).bind("body", body(QUOTED)).bind("order", body(ORDER_ONLY))
          .execute();
      h.execute("""
          INSERT INTO idempotency_keys (shop_id, idempotency_key, fingerprint, payment_id, created, answer, acted)
          SELECT 1, 'reject-' || p.id, 'fp', p.id, now(), to_jsonb(p), true FROM payments p""");
    });

    db.migrateTheRest();

    List<String> payments = jdbi.withHandle(h -> h.createQuery(
        "SELECT external_result_code FROM payments ORDER BY id").mapTo(String.class).list());
    assertThat(payments).as("the payments' externalResultCode").containsExactly(MASKED, ORDER_ONLY);
    List<String> operations = jdbi.withHandle(h -> h.createQuery("""
            SELECT operation || ' ' || coalesce(details, '-') || ' | ' || coalesce(external_result_code, '-')
              FROM payment_operations ORDER BY id""").mapTo(String.class).list());
    assertThat(operations).containsExactly(
        "WITHDRAWAL - | -",
        "REJECT rejected by the merchant: " + MASKED + " | " + MASKED,
        "REJECT rejected by the merchant: " + ORDER_ONLY + " | " + ORDER_ONLY);
    List<String> answers = jdbi.withHandle(h -> h.createQuery(
        "SELECT answer ->> 'external_result_code' FROM idempotency_keys ORDER BY payment_id")
        .mapTo(String.class).list());
    assertThat(answers).as("a keyed reject's retry is answered").containsExactly(MASKED, ORDER_ONLY);

    JdbiWebhookOutbox outbox = new JdbiWebhookOutbox(jdbi);
    Instant now = Instant.now();
    outbox.requeue(EVENT, now);
    List<ClaimedEvent> resent = outbox.claim("resend", now.plusSeconds(1), Duration.ofMinutes(1), 10);
    assertThat(resent).extracting(e -> new String(e.body(), StandardCharsets.UTF_8))
        .as("the body a resend sends, the rest of it as it was").containsExactly(body(MASKED));
    String unchanged = jdbi.withHandle(h -> h.createQuery(
        "SELECT convert_from(body, 'UTF8') FROM webhook_events WHERE payment_id = repeat('b', 32)")
        .mapTo(String.class).one());
    assertThat(unchanged).isEqualTo(body(ORDER_ONLY));
  }

  /** A rejected withdrawal's webhook body as the gateway renders it, its reason in the JSON. */
  private static String body(String reason) {
    return "{\"id\":\"" + "a".repeat(32) + "\",\"paymentType\":\"WITHDRAWAL\",\"state\":\"CANCELLED\","
        + "\"errorCode\":\"8.00\",\"errorMessage\":\"Rejected by Merchant\",\"externalResultCode\":\""
        + reason.replace("\"", "\\\"") + "\",\"amount\":7.00,\"currency\":\"EUR\","
        + "\"customer\":{\"referenceId\":\"payout-17\"},\"shopName\":\"Shop\"}";
  }
}
