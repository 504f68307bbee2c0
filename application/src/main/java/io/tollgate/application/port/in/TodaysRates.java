package io.tollgate.application.port.in;

import io.tollgate.domain.money.Money;

/**
 * Amounts shown in another currency at today's imported rates, for one answer: an estimate,
 * never what was charged.
 */
public interface TodaysRates {

  /**
   * {@code amount} in {@code currency} (half-even, to its decimals); {@code amount} itself in its
   * own currency; null when {@code currency} is null or unknown, or no rate to it is known.
   */
  Money convert(Money amount, String currency);

  /**
   * {@code amount} in the platform's base currency (the merchant API's {@code baseAmount}), as
   * {@link #convert}: null when no rate to it is known.
   */
  Money toBaseCurrency(Money amount);
}
