package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ConfigurationReferenceTest {

  @Test
  void the_readme_table_lists_exactly_the_settings_the_code_reads() throws Exception {
    Path readme = Path.of("..", "README.md");
    String text = Files.readString(readme);
    Set<String> documented = new LinkedHashSet<>();
    Matcher m = Pattern.compile("(?m)^\\| `(TOLLGATE_[A-Z_]+)` \\|").matcher(text);
    while (m.find()) {
      documented.add(m.group(1));
    }
    Set<String> inCode = new LinkedHashSet<>();
    TollgateConfig.SETTINGS.forEach(s -> inCode.add(s.name()));
    assertThat(documented).containsExactlyInAnyOrderElementsOf(inCode);
    for (TollgateConfig.Setting s : TollgateConfig.SETTINGS) {
      assertThat(text).as(s.name()).contains("| `" + s.name() + "` | " + s.defaultValue() + " | " + s.description() + " |");
    }
  }

  @Test
  void production_refuses_to_start_without_a_master_key_a_real_database_or_its_https_address() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_ENVIRONMENT", "production")))
        .hasMessageContaining("TOLLGATE_MASTER_KEY").hasMessageContaining("TOLLGATE_DB_URL")
        .hasMessageContaining("TOLLGATE_PUBLIC_URL is required");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_ENVIRONMENT", "production",
        "TOLLGATE_PUBLIC_URL", "http://pay.example.com")))
        .hasMessageContaining("TOLLGATE_PUBLIC_URL must be https in production");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_PUBLIC_URL", "pay.example.com")))
        .hasMessageContaining("TOLLGATE_PUBLIC_URL must be an absolute http(s) URL");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_PUBLIC_URL", "http://localhost:9000/")).publicUrlFor(1))
        .isEqualTo("http://localhost:9000");
  }

  /**
   * The checkout page's links, forms, redirects and cookie are rooted at {@code /checkout}: a
   * public URL with a path (Tollgate behind a proxy that strips it) is refused at start, naming
   * the setting, instead of starting with a checkout whose every link and form misses Tollgate.
   */
  @Test
  void a_public_url_with_a_path_is_refused_at_start() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_PUBLIC_URL", "https://shop.example/pay")))
        .hasMessageContaining("TOLLGATE_PUBLIC_URL must be an origin without a path");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_PUBLIC_URL", "https://shop.example/pay/")))
        .hasMessageContaining("TOLLGATE_PUBLIC_URL must be an origin without a path");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_PUBLIC_URL", "https://pay.example.com/?shop=1")))
        .hasMessageContaining("TOLLGATE_PUBLIC_URL must be an origin without a path");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_PUBLIC_URL", "https://pay.example.com:8443")).publicUrlFor(1))
        .isEqualTo("https://pay.example.com:8443");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_PUBLIC_URL", "https://pay.example.com/")).publicUrlFor(1))
        .isEqualTo("https://pay.example.com");
  }

  @Test
  void a_merchants_share_of_the_lists_is_half_the_pool_unless_set() {
    assertThat(TollgateConfig.from(Map.of()).merchantListShare()).isEqualTo(8);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_DB_POOL_SIZE", "5")).merchantListShare()).isEqualTo(2);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_DB_POOL_SIZE", "1")).merchantListShare()).isEqualTo(1);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LIST_SHARE", "0")).merchantListShare()).isZero();
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LIST_SHARE", "-1")))
        .hasMessageContaining("TOLLGATE_MERCHANT_LIST_SHARE must be between 0 and 500");
  }

  @Test
  void the_lists_of_all_merchants_are_three_quarters_of_the_pool_unless_set_and_never_below_one_share() {
    assertThat(TollgateConfig.from(Map.of()).merchantListsTotal()).isEqualTo(12);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_DB_POOL_SIZE", "5")).merchantListsTotal()).isEqualTo(3);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_DB_POOL_SIZE", "1")).merchantListsTotal()).isEqualTo(1);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LIST_SHARE", "14")).merchantListsTotal())
        .as("a share set above three quarters of the pool raises the default total with it").isEqualTo(14);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LISTS_TOTAL", "0")).merchantListsTotal()).isZero();
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LISTS_TOTAL", "8")).merchantListsTotal()).isEqualTo(8);
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LISTS_TOTAL", "7")))
        .hasMessageContaining("TOLLGATE_MERCHANT_LISTS_TOTAL must be 0 or at least TOLLGATE_MERCHANT_LIST_SHARE (8)");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LISTS_TOTAL", "501")))
        .hasMessageContaining("TOLLGATE_MERCHANT_LISTS_TOTAL must be between 0 and 500");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_MERCHANT_LISTS_TOTAL", "many")))
        .hasMessageContaining("TOLLGATE_MERCHANT_LISTS_TOTAL must be an integer");
  }

  @Test
  void a_job_interval_under_a_millisecond_is_refused() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_JOB_INTERVAL", "PT0.0001S")))
        .hasMessageContaining("TOLLGATE_JOB_INTERVAL");
  }

  /**
   * Unset, the webhook retry schedule is the contract's (section 6): 1 min, 5 min, 15 min, 1 h,
   * 3 h, 6 h, 12 h, 24 h, 24 h, 24 h; set, it is the delays given, in order.
   */
  @Test
  void the_webhook_retry_schedule_is_the_contract_s_unless_set() {
    java.util.List<java.time.Duration> contract = java.util.stream.Stream.of("PT1M", "PT5M", "PT15M", "PT1H",
        "PT3H", "PT6H", "PT12H", "PT24H", "PT24H", "PT24H").map(java.time.Duration::parse).toList();
    assertThat(TollgateConfig.from(Map.of()).webhookRetrySchedule()).isEqualTo(contract);
    assertThat(io.tollgate.application.service.WebhookService.DEFAULT_RETRY_SCHEDULE).isEqualTo(contract);
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", "PT2S, PT1M")).webhookRetrySchedule())
        .containsExactly(java.time.Duration.ofSeconds(2), java.time.Duration.ofMinutes(1));
  }

  /**
   * A webhook timeout under a millisecond was 0 ms to Jetty, no timeout: no webhook was ever
   * sent. A job interval of P200000D passed the start, then overflowed as nanoseconds.
   */
  @Test
  void a_duration_outside_its_range_is_refused_at_start_naming_the_setting() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_TIMEOUT", "PT0.0005S")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TOLLGATE_WEBHOOK_TIMEOUT must be between PT1S and PT1M (got 'PT0.0005S')");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_JOB_INTERVAL", "P200000D")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TOLLGATE_JOB_INTERVAL must be between PT0.001S and PT1H (got 'P200000D')");
  }

  /** Each duration setting: its lowest and highest values pass, a little below or above does not. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
      "TOLLGATE_JOB_INTERVAL,           PT0.001S, PT1H,   PT0.0009S, PT1H0.001S",
      "TOLLGATE_SANDBOX_BANK_DELAY,     PT0S,     P1D,    PT-0.001S, PT24H0.001S",
      "TOLLGATE_WEBHOOK_RETRY_SCHEDULE, PT0.1S,   P7D,    PT0.099S,  P7DT0.001S",
      "TOLLGATE_WEBHOOK_TIMEOUT,        PT1S,     PT1M,   PT0.999S,  PT1M0.001S",
      "TOLLGATE_WEBHOOK_LOG_RETENTION,  P7D,      P3650D, PT167H59M, P3650DT1S",
      "TOLLGATE_CARD_RETENTION,         P30D,     P3650D, PT719H59M, P3650DT1S"})
  void each_duration_setting_takes_the_ends_of_its_range_and_nothing_beyond(String name, String min, String max,
      String below, String above) {
    assertThat(TollgateConfig.from(Map.of(name, min))).isNotNull();
    assertThat(TollgateConfig.from(Map.of(name, max))).isNotNull();
    for (String outside : new String[] {below, above}) {
      assertThatThrownBy(() -> TollgateConfig.from(Map.of(name, outside))).as(outside)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(name + " must be between " + min + " and " + max + " (got '" + outside + "')");
    }
    // and the defaults are within every range
    assertThat(TollgateConfig.from(Map.of())).isNotNull();
  }

  @Test
  void every_delay_of_the_webhook_retry_schedule_is_checked() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", "PT1M,P8D,PT1H")))
        .hasMessageContaining("TOLLGATE_WEBHOOK_RETRY_SCHEDULE must be between PT0.1S and P7D (got 'P8D')");
  }

  /**
   * A schedule of commas alone was an empty one, which turned retries off without a word: the
   * first failed delivery of every webhook was marked failed. It is refused with the other
   * settings' problems.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {",", ",,", " , "})
  void a_webhook_retry_schedule_without_a_delay_is_refused(String schedule) {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", schedule,
        "TOLLGATE_PORT", "http")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TOLLGATE_WEBHOOK_RETRY_SCHEDULE must list at least one delay")
        .hasMessageContaining("TOLLGATE_PORT");
  }

  /**
   * A stray comma read as nothing: "PT1M,PT5M," ran with two retries and said nothing of the
   * third delay its operator may have meant to write.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"PT1M,PT5M,", ",PT1M", "PT1M,,PT5M", "PT1M, ,PT5M"})
  void a_webhook_retry_schedule_with_an_empty_delay_is_refused(String schedule) {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", schedule)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TOLLGATE_WEBHOOK_RETRY_SCHEDULE has an empty delay before, between or after its"
            + " commas (got '" + schedule + "')");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", " PT1M , PT5M ")).webhookRetrySchedule())
        .containsExactly(java.time.Duration.ofMinutes(1), java.time.Duration.ofMinutes(5));
  }

  @Test
  void the_webhook_log_is_kept_a_week_at_least_and_ninety_days_unless_set() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_LOG_RETENTION", "P6D")))
        .hasMessageContaining("TOLLGATE_WEBHOOK_LOG_RETENTION must be between P7D and P3650D (got 'P6D')");
    assertThat(TollgateConfig.from(Map.of()).webhookLogRetention()).isEqualTo(java.time.Duration.ofDays(90));
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_WEBHOOK_LOG_RETENTION", "P400D")).webhookLogRetention())
        .isEqualTo(java.time.Duration.ofDays(400));
  }

  @Test
  void card_numbers_are_kept_thirty_days_at_least_and_two_years_unless_set() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_CARD_RETENTION", "P29D")))
        .hasMessageContaining("TOLLGATE_CARD_RETENTION must be between P30D and P3650D (got 'P29D')");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_CARD_RETENTION", "P2Y")))
        .hasMessageContaining("TOLLGATE_CARD_RETENTION must be an ISO-8601 duration");
    assertThat(TollgateConfig.from(Map.of()).cardRetention()).isEqualTo(java.time.Duration.ofDays(730));
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_CARD_RETENTION", "P30D")).cardRetention())
        .isEqualTo(java.time.Duration.ofDays(30));
  }

  @Test
  void an_iso_currency_cannot_be_given_other_decimals_as_a_crypto_currency() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "EUR:8,BTC:8")))
        .hasMessageContaining("TOLLGATE_CRYPTO_CURRENCIES: EUR is an ISO 4217 currency");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_CRYPTO_CURRENCIES", "BTC:8,SOL:9")).cryptoCurrencies())
        .containsEntry("SOL", 9);
  }

  @Test
  void the_platforms_base_currency_is_eur_unless_set_and_must_be_a_currency_payments_can_be_in() {
    assertThat(TollgateConfig.from(Map.of()).baseCurrency()).isEqualTo("EUR");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_BASE_CURRENCY", "USD")).baseCurrency()).isEqualTo("USD");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_BASE_CURRENCY", "BTC")).baseCurrency()).isEqualTo("BTC");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_BASE_CURRENCY", "eur")))
        .hasMessageContaining("TOLLGATE_BASE_CURRENCY must be an ISO 4217 code or one of TOLLGATE_CRYPTO_CURRENCIES");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_BASE_CURRENCY", "DOGE")))
        .hasMessageContaining("TOLLGATE_BASE_CURRENCY");
    assertThat(TollgateConfig.from(Map.of("TOLLGATE_BASE_CURRENCY", "DOGE", "TOLLGATE_CRYPTO_CURRENCIES", "DOGE:2"))
        .baseCurrency()).isEqualTo("DOGE");
  }

  @Test
  void bad_values_are_all_reported_at_once() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_PORT", "http", "TOLLGATE_ENVIRONMENT", "staging",
        "TOLLGATE_CRYPTO_CURRENCIES", "BTC")))
        .hasMessageContaining("TOLLGATE_PORT").hasMessageContaining("TOLLGATE_ENVIRONMENT")
        .hasMessageContaining("TOLLGATE_CRYPTO_CURRENCIES");
  }
}
