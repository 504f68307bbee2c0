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
 * of its own, whose retention is the shortest there is, and whose cards are aged in the database.
 * A card is forgotten a day after the retention at the earliest: its mark may lag its last use by
 * a day.)
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

    // in one statement, which the job's one statement sees whole: when it forgets one, it has
    // judged the others
    age(Map.of(forgotten, 32, recent, 29, kept, 32));
    assertThat(WebhookReceiver.await(() -> !stored(forgotten), Duration.ofSeconds(10)))
        .as("the job forgets the card unused for 32 days").isTrue();
    Answer refused = byToken(forgotten);
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.json().at("/errors/0/field").asText()).isEqualTo("card.cardToken");
    assertThat(refused.json().at("/errors/0/message").asText()).isEqualTo("unknown card token");
    assertThat(stored(kept)).as("the card of the deposit in flight").isTrue();
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
    age(Map.of(byItsToken, 29, byItsNumber, 29));

    assertThat(gw.patch("/api/v1/payments/" + byToken(byItsToken).json().at("/result/id").asText(),
        "{\"customerIp\":\"203.0.113.5\"}").json().at("/result/state").asText()).isEqualTo("COMPLETED");
    completed("5105105105105100");
    assertThat(daysUnused(byItsToken)).isZero();
    assertThat(daysUnused(byItsNumber)).isZero();
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

  /** Makes each card look as if a payment last used it so many days ago, all in one statement. */
  private static void age(Map<String, Integer> daysByToken) {
    gw.database.jdbi().useHandle(h -> h.createUpdate("""
            UPDATE card_vault v SET last_used = now() - make_interval(hours => 24 * aged.days)
            FROM unnest(:tokens, :days) AS aged(token, days) WHERE v.token = aged.token""")
        .bind("tokens", daysByToken.keySet().toArray(String[]::new))
        .bind("days", daysByToken.keySet().stream().map(daysByToken::get).toArray(Integer[]::new)).execute());
  }

  private static int daysUnused(String token) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(
            "SELECT floor(extract(epoch FROM now() - last_used) / 86400)::int FROM card_vault WHERE token = :token")
        .bind("token", token).mapTo(Integer.class).one());
  }

  private static boolean stored(String token) {
    return gw.database.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM card_vault WHERE token = :token")
        .bind("token", token).mapTo(Integer.class).one()) == 1;
  }
}
