package io.tollgate.domain.money;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MoneyTest {

  private final Currencies currencies = Currencies.defaults();

  @ParameterizedTest(name = "{0} has {1} decimals")
  @CsvSource({"EUR,2", "USD,2", "JPY,0", "KWD,3", "BHD,3", "BTC,8", "ETH,8", "USDT,8"})
  void knows_the_minor_unit_of_iso_currencies_and_crypto_symbols(String code, int scale) {
    assertThat(currencies.require(code).scale()).isEqualTo(scale);
  }

  @Test
  void does_not_know_made_up_or_lower_case_codes() {
    assertThat(currencies.find("XYZ")).isEmpty();
    assertThat(currencies.find("eur")).isEmpty();
    assertThat(currencies.find("XAU")).as("gold has no minor unit and is not payable").isEmpty();
  }

  @Test
  void holds_amounts_at_the_currency_scale() {
    Money m = new Money(new BigDecimal("10.5"), currencies.require("EUR"));
    assertThat(m.amount()).isEqualByComparingTo("10.50");
    assertThat(m.amount().scale()).isEqualTo(2);
    assertThat(m.toString()).isEqualTo("10.50 EUR");
  }

  @Test
  void refuses_more_decimals_than_the_currency_allows_instead_of_rounding() {
    assertThatThrownBy(() -> new Money(new BigDecimal("10.001"), currencies.require("EUR")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("EUR");
    assertThatThrownBy(() -> new Money(new BigDecimal("1.5"), currencies.require("JPY")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new Money(new BigDecimal("1.2300"), currencies.require("EUR")).amount()).isEqualByComparingTo("1.23");
    assertThat(new Money(new BigDecimal("0.12345678"), currencies.require("BTC")).amount().scale()).isEqualTo(8);
  }

  @Test
  void adds_and_compares_only_within_one_currency() {
    Currency eur = currencies.require("EUR");
    Money ten = Money.of("10.00", eur);
    assertThat(ten.plus(Money.of("0.01", eur)).amount()).isEqualByComparingTo("10.01");
    assertThat(ten.minus(Money.of("10", eur)).isZero()).isTrue();
    assertThat(ten.isGreaterThan(Money.of("9.99", eur))).isTrue();
    assertThatThrownBy(() -> ten.plus(Money.of("1", currencies.require("USD"))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void configured_crypto_symbols_replace_the_defaults() {
    Currencies custom = new Currencies(java.util.Map.of("SOL", 9));
    assertThat(custom.require("SOL").scale()).isEqualTo(9);
    assertThat(custom.find("BTC")).isEmpty();
  }
}
