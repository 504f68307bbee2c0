package io.tollgate.application.service;

import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Amounts shown in another currency at today's rates (the imported currency rates, as routing
 * converts with them: half-even, to the target currency's decimals), for one answer: each pair's
 * rate is read once however many payments ask for it. What the merchant API shows as a
 * payment's {@code shopBaseAmount} and {@code baseAmount} are so estimates at today's rate, as
 * the reference describes its base amounts, never what was charged.
 */
final class CurrentRates implements io.tollgate.application.port.in.TodaysRates {

  private final ReferenceData reference;
  private final Currencies currencies;
  private final String baseCurrency;
  private final Map<String, Optional<java.math.BigDecimal>> rates = new HashMap<>();

  CurrentRates(ReferenceData reference, Currencies currencies, String baseCurrency) {
    this.reference = reference;
    this.currencies = currencies;
    this.baseCurrency = baseCurrency;
  }

  @Override
  public Money toBaseCurrency(Money amount) {
    return convert(amount, baseCurrency);
  }

  @Override
  public Money convert(Money amount, String currency) {
    if (currency == null) {
      return null;
    }
    if (amount.currency().code().equals(currency)) {
      return amount;
    }
    Optional<Currency> target = currencies.find(currency);
    if (target.isEmpty()) {
      return null;
    }
    Optional<java.math.BigDecimal> rate = rates.computeIfAbsent(amount.currency().code() + "/" + currency,
        pair -> reference.currencyRate(amount.currency().code(), currency).map(ReferenceData.CurrencyRate::rate));
    return rate.map(r -> new Money(amount.amount().multiply(r).setScale(target.get().scale(), RoundingMode.HALF_EVEN),
        target.get())).orElse(null);
  }
}
