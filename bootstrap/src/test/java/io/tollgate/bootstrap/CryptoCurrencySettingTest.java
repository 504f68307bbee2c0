package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A crypto symbol taken out of TOLLGATE_CRYPTO_CURRENCIES while payments are kept in it: every
 * read of such a payment, every list that held one, and the job that cancels timed-out checkouts
 * (for all payments, at every round) failed on it. The service refuses to start instead, and
 * says which setting must keep which symbol.
 */
class CryptoCurrencySettingTest {

  @Test
  void a_symbol_payments_are_kept_in_cannot_be_taken_out_of_the_setting() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "BTC:8,DOGE:2"))) {
      payInDoge(gw);

      Map<String, String> env = new HashMap<>(Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
          "TOLLGATE_DATA_DIR", ScratchDirectories.create("tollgate-crypto").toString(),
          "TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY));
      assertThatThrownBy(() -> Tollgate.start(TollgateConfig.from(env), gw.database).close())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("TOLLGATE_CRYPTO_CURRENCIES must keep DOGE");

      env.put("TOLLGATE_CRYPTO_CURRENCIES", "DOGE:2");
      try (Tollgate kept = Tollgate.start(TollgateConfig.from(env), gw.database)) {
        assertThat(kept.port()).isPositive();
      }
    }
  }

  /**
   * The check reads the record of the currencies payments are kept in, not the payments: it
   * read every payment at every start and CLI command, a quarter of a second a million
   * payments. Here the payments table is locked against any reader while the service is wired.
   */
  @Test
  void the_check_at_start_does_not_read_the_payments() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "BTC:8,DOGE:2"))) {
      payInDoge(gw);
      Map<String, String> env = Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
          "TOLLGATE_DATA_DIR", ScratchDirectories.create("tollgate-crypto-lock").toString(),
          "TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY, "TOLLGATE_CRYPTO_CURRENCIES", "DOGE:2");
      assertWiredWhileNoPaymentCanBeRead(gw, env);
    }
  }

  /**
   * A symbol given fewer decimals than an amount kept in it has: that payment, every list that
   * held it and the shop's balances answered 500s, and the start did not say why. The service
   * refuses to start instead, and says how many decimals the amounts kept in it need.
   */
  @Test
  void a_symbol_cannot_be_given_fewer_decimals_than_an_amount_kept_in_it_has() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "BTC:8"))) {
      String id = deposit(gw, "0.12345678", "BTC");

      Map<String, String> env = settings("tollgate-crypto-decimals", "BTC:2");
      assertThatThrownBy(() -> Tollgate.start(TollgateConfig.from(env), gw.database).close())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("TOLLGATE_CRYPTO_CURRENCIES must give BTC at least 8 decimals (it gives 2)");

      // a database from before the decimals were recorded is read once to learn them
      gw.database.jdbi().useHandle(h -> h.execute("UPDATE currencies_in_use SET decimals = NULL"));
      assertThatThrownBy(() -> Tollgate.start(TollgateConfig.from(env), gw.database).close())
          .hasMessageContaining("TOLLGATE_CRYPTO_CURRENCIES must give BTC at least 8 decimals (it gives 2)");

      env.put("TOLLGATE_CRYPTO_CURRENCIES", "BTC:9");
      try (Tollgate more = Tollgate.start(TollgateConfig.from(env), gw.database)) {
        TestGateway.Answer read = get(gw, more, "/api/v1/payments/" + id);
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        assertThat(read.json().at("/result/amount").decimalValue()).isEqualByComparingTo("0.12345678");
      }
    }
  }

  /**
   * Fewer decimals that every amount kept fits are taken, read from the payments once: the next
   * start with them reads the record again, not the payments.
   */
  @Test
  void a_symbol_can_be_given_fewer_decimals_that_every_amount_kept_in_it_fits() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "BTC:8"))) {
      String id = deposit(gw, "0.12", "BTC");

      Map<String, String> env = settings("tollgate-crypto-fewer", "BTC:2");
      try (Tollgate fewer = Tollgate.start(TollgateConfig.from(env), gw.database)) {
        TestGateway.Answer read = get(gw, fewer, "/api/v1/payments/" + id);
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        assertThat(read.json().at("/result/amount").decimalValue()).isEqualByComparingTo("0.12");
      }
      assertWiredWhileNoPaymentCanBeRead(gw, env);
    }
  }

  /** Emptied by an operator who wants none of the default's symbols, the setting gave all three. */
  @Test
  void set_but_empty_means_no_crypto_currency_and_unset_the_default_three() {
    assertThat(TollgateConfig.from(Map.of()).cryptoCurrencies()).containsOnlyKeys("BTC", "ETH", "USDT");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "")).cryptoCurrencies()).isEmpty();
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "  ")).cryptoCurrencies()).isEmpty();
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_CRYPTO_CURRENCIES", " SOL:9 ")).cryptoCurrencies())
        .containsOnlyKeys("SOL");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "",
        "TOLLGATE_BASE_CURRENCY", "BTC")))
        .hasMessageContaining("TOLLGATE_BASE_CURRENCY must be an ISO 4217 code or one of TOLLGATE_CRYPTO_CURRENCIES");
  }

  /** A new sandbox without BTC starts (its sample rates name BTC) and takes payments in ISO currencies only. */
  @Test
  void a_sandbox_without_crypto_currencies_starts_and_takes_no_payment_in_btc() throws Exception {
    try (TestGateway gw = TestGateway.start(Map.of("TOLLGATE_CRYPTO_CURRENCIES", ""))) {
      TestGateway.Answer btc = gw.post("/api/v1/payments",
          "{\"paymentType\":\"DEPOSIT\",\"amount\":0.5,\"currency\":\"BTC\"}");
      assertThat(btc.status()).as(btc.body()).isEqualTo(400);
      TestGateway.Answer eur = gw.post("/api/v1/payments",
          "{\"paymentType\":\"DEPOSIT\",\"amount\":12.5,\"currency\":\"EUR\"}");
      assertThat(eur.status()).as(eur.body()).isEqualTo(200);
    }
  }

  /** The settings of a second service on the test gateway's database, with these crypto symbols. */
  private static Map<String, String> settings(String scratch, String crypto) throws java.io.IOException {
    return new HashMap<>(Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
        "TOLLGATE_DATA_DIR", ScratchDirectories.create(scratch).toString(),
        "TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY, "TOLLGATE_CRYPTO_CURRENCIES", crypto));
  }

  /** A deposit of the test gateway's shop, left in CHECKOUT; its id. */
  private static String deposit(TestGateway gw, String amount, String currency) {
    TestGateway.Answer created = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":" + amount + ",\"currency\":\"" + currency + "\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return created.json().at("/result/id").asText();
  }

  /** A GET of the gateway API of {@code app}, with the test gateway's shop key. */
  private static TestGateway.Answer get(TestGateway gw, Tollgate app, String path) {
    return gw.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + app.port() + path))
        .header("Authorization", "Bearer " + gw.apiKey));
  }

  private static void payInDoge(TestGateway gw) {
    TestGateway.Answer doge = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":12.5,\"currency\":\"DOGE\"}");
    assertThat(doge.status()).as(doge.body()).isEqualTo(200);
  }

  /** Wires the service with {@code env} while the payments table is locked against any reader. */
  private static void assertWiredWhileNoPaymentCanBeRead(TestGateway gw, Map<String, String> env) throws Exception {
    try (org.jdbi.v3.core.Handle lock = gw.database.jdbi().open()) {
      lock.begin();
      lock.execute("LOCK TABLE payments IN ACCESS EXCLUSIVE MODE");
      java.util.concurrent.CompletableFuture<Tollgate.Services> wired = java.util.concurrent.CompletableFuture
          .supplyAsync(() -> Tollgate.Services.wire(TollgateConfig.from(env), gw.database, "http://127.0.0.1"));
      try {
        assertThat(wired.get(30, java.util.concurrent.TimeUnit.SECONDS)).as("wired while no payment can be read")
            .isNotNull();
      } finally {
        lock.rollback();
      }
    }
  }
}
