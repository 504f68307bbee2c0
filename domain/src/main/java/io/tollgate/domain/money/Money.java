package io.tollgate.domain.money;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * An amount in one currency, always held at the currency's scale. Creating one with more
 * decimals than the currency allows is refused rather than rounded: a merchant who sends
 * 10.001 EUR made a mistake we must not hide.
 */
public record Money(BigDecimal amount, Currency currency) implements Comparable<Money> {

  public Money {
    Objects.requireNonNull(amount, "amount");
    Objects.requireNonNull(currency, "currency");
    if (!fitsScale(amount, currency)) {
      throw new IllegalArgumentException(
          "amount " + amount.toPlainString() + " has more decimals than " + currency.code()
              + " allows (" + currency.scale() + ")");
    }
    amount = amount.setScale(currency.scale());
  }

  public static boolean fitsScale(BigDecimal amount, Currency currency) {
    return amount.stripTrailingZeros().scale() <= currency.scale();
  }

  public static Money of(String amount, Currency currency) {
    return new Money(new BigDecimal(amount), currency);
  }

  public static Money zero(Currency currency) {
    return new Money(BigDecimal.ZERO, currency);
  }

  public Money plus(Money other) {
    requireSameCurrency(other);
    return new Money(amount.add(other.amount), currency);
  }

  public Money minus(Money other) {
    requireSameCurrency(other);
    return new Money(amount.subtract(other.amount), currency);
  }

  public boolean isZero() {
    return amount.signum() == 0;
  }

  public boolean isNegative() {
    return amount.signum() < 0;
  }

  public boolean isGreaterThan(Money other) {
    return compareTo(other) > 0;
  }

  @Override
  public int compareTo(Money other) {
    requireSameCurrency(other);
    return amount.compareTo(other.amount);
  }

  private void requireSameCurrency(Money other) {
    if (!currency.equals(other.currency)) {
      throw new IllegalArgumentException(
          "currency mismatch: " + currency.code() + " and " + other.currency.code());
    }
  }

  @Override
  public String toString() {
    return amount.toPlainString() + " " + currency.code();
  }
}
