package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.bootstrap.TestGateway.Answer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Card numbers are kept for TOLLGATE_CARD_RETENTION after the last payment that used them: a
 * background job forgets the others, unless a payment in flight still needs its card. (A gateway
 * of its own, whose retention is the shortest there is, and whose cards are aged in the database.)
 */
class CardRetentionTest {

  static TestGateway gw;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start(Map.of("TOLLGATE_CARD_RETENTION", "P30D"));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void a_card_unused_for_the_retention_is_forgotten_but_one_a_payment_in_flight_needs_is_kept() throws Exception {
    String forgotten = tokenOf(completed("4000000000000408"));
    String recent = tokenOf(completed("4111111111111111"));
    String waiting = created("5555000000000107");
    String kept = tokenOf(waiting);

    age(forgotten, 31);
    age(recent, 29);
    age(kept, 31);
    assertThat(WebhookReceiver.await(() -> !stored(forgotten), Duration.ofSeconds(10)))
        .as("the job forgets the card unused for 31 days").isTrue();
    Answer refused = byToken(forgotten);
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.json().at("/errors/0/field").asText()).isEqualTo("card.cardToken");
    assertThat(refused.json().at("/errors/0/message").asText()).isEqualTo("unknown card token");
    assertThat(byToken(recent).status()).as("the card used 29 days ago").isEqualTo(200);

    Answer charged = gw.patch("/api/v1/payments/" + waiting, "{\"customerIp\":\"203.0.113.5\"}");
    assertThat(charged.json().at("/result/state").asText())
        .as("the deposit waiting since its card's last use has its card: " + charged.body()).isEqualTo("COMPLETED");

    assertThat(tokenOf(created("4000000000000408"))).as("the card given again is kept under its old token")
        .isEqualTo(forgotten);
    assertThat(byToken(forgotten).status()).isEqualTo(200);
  }

  /**
   * A payment that uses a card again, by its token or by its number, starts its retention anew.
   * (Aged 29 days, not past the retention, so that the job cannot forget it before it is used.)
   */
  @Test
  void a_card_used_again_is_kept_for_the_whole_retention_from_then() {
    String byItsToken = tokenOf(completed("4012888888881881"));
    String byItsNumber = tokenOf(completed("5105105105105100"));
    age(byItsToken, 29);
    age(byItsNumber, 29);

    assertThat(gw.patch("/api/v1/payments/" + byToken(byItsToken).json().at("/result/id").asText(),
        "{\"customerIp\":\"203.0.113.5\"}").json().at("/result/state").asText()).isEqualTo("COMPLETED");
    completed("5105105105105100");
    assertThat(daysUnused(byItsToken)).isZero();
    assertThat(daysUnused(byItsNumber)).isZero();
  }

  /**
   * A payment whose card the vault no longer has (forgotten in the instant between its creation
   * and its mark as used) is declined with 1.06 when charged, with no terminal asked; it used to
   * fail every time it was charged, and stay open.
   */
  @Test
  void a_deposit_whose_card_is_gone_is_declined_with_1_06() {
    String id = created("4000000000000077");
    String token = tokenOf(id);
    gw.database.jdbi().useHandle(h -> h.createUpdate("DELETE FROM card_vault WHERE token = :token")
        .bind("token", token).execute());

    Answer charged = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.5\"}");
    assertThat(charged.status()).as(charged.body()).isEqualTo(200);
    assertThat(charged.json().at("/result/state").asText()).isEqualTo("DECLINED");
    assertThat(charged.json().at("/result/errorCode").asText()).isEqualTo("1.06");
  }

  /** A deposit of this card, executed host-to-host and completed; its id. */
  private static String completed(String number) {
    String id = created(number);
    Answer done = gw.patch("/api/v1/payments/" + id, "{\"customerIp\":\"203.0.113.5\"}");
    assertThat(done.json().at("/result/state").asText()).as(done.body()).isEqualTo("COMPLETED");
    return id;
  }

  /** A deposit of this card, in CHECKOUT; its id. */
  private static String created(String number) {
    Answer created = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2,"currency":"EUR",
         "card":{"cardNumber":"%s","expiryMonth":"12","expiryYear":"2045"}}""".formatted(number));
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return created.json().at("/result/id").asText();
  }

  private static String tokenOf(String payment) {
    return gw.get("/api/v1/payments/" + payment).json().at("/result/paymentMethodDetails/cardToken").asText();
  }

  private static Answer byToken(String token) {
    return gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":2,"currency":"EUR","card":{"cardToken":"%s"}}""".formatted(token));
  }

  /** Makes the card look as if a payment last used it {@code days} ago. */
  private static void age(String token, int days) {
    gw.database.jdbi().useHandle(h -> h.createUpdate(
            "UPDATE card_vault SET last_used = now() - make_interval(days => :days) WHERE token = :token")
        .bind("days", days).bind("token", token).execute());
  }

  private static int daysUnused(String token) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(
            "SELECT extract(day FROM now() - last_used)::int FROM card_vault WHERE token = :token")
        .bind("token", token).mapTo(Integer.class).one());
  }

  private static boolean stored(String token) {
    return gw.database.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM card_vault WHERE token = :token")
        .bind("token", token).mapTo(Integer.class).one()) == 1;
  }
}
