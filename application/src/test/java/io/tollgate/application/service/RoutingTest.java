package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ReferenceData.Connector;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentTransitions;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RoutingTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private final Routing routing = new Routing(mock(ReferenceData.class), mock(GroupRepository.class), CURRENCIES);

  private static Connector connector(String currency, String min, String max) {
    return new Connector(1, 1, 1, "Acquirer", "ACTIVE", "BASIC_CARD", currency, 1, 100,
        min == null ? null : new BigDecimal(min), max == null ? null : new BigDecimal(max), null, null);
  }

  private static Payment deposit(Money amount) {
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.DEPOSIT,
        PaymentMethod.BASIC_CARD, amount, null, null, null, false, null, null, null, null, null, null);
    return Payment.create(draft, PaymentTransitions.initialStates(PaymentType.DEPOSIT).iterator().next(),
        Instant.now()).after();
  }

  private boolean routes(Connector c, BigDecimal amount) {
    return routing.route(deposit(new Money(amount, CURRENCIES.require(c.terminalCurrency()))), c).refusal() == null;
  }

  /** Every amount of the currency in a window around both bounds: routed exactly when in [min, below). */
  private void assertRangeIsWhatRoutingDoes(Connector c) {
    Currency currency = CURRENCIES.require(c.terminalCurrency());
    BigDecimal step = BigDecimal.ONE.movePointLeft(currency.scale());
    BigDecimal below = Routing.amountBelow(c, CURRENCIES);
    for (BigDecimal bound : new BigDecimal[] {c.minAmount(), c.maxAmount()}) {
      BigDecimal from = bound.setScale(currency.scale(), java.math.RoundingMode.FLOOR).subtract(step.multiply(BigDecimal.TEN));
      for (int i = 0; i <= 20; i++) {
        BigDecimal amount = from.add(step.multiply(BigDecimal.valueOf(i)));
        boolean inRange = amount.compareTo(c.minAmount()) >= 0 && amount.compareTo(below) < 0;
        assertThat(routes(c, amount)).as(amount + " " + c.terminalCurrency()).isEqualTo(inRange);
      }
    }
  }

  @Test
  void the_published_bound_is_the_currencys_next_amount_after_the_inclusive_maximum() {
    assertThat(Routing.amountBelow(connector("EUR", "1", "5000"), CURRENCIES)).isEqualByComparingTo("5000.01");
    assertThat(Routing.amountBelow(connector("EUR", "1", "5000"), CURRENCIES).scale()).isEqualTo(2);
    assertThat(Routing.amountBelow(connector("JPY", null, "5000"), CURRENCIES)).isEqualByComparingTo("5001");
    assertThat(Routing.amountBelow(connector("KWD", null, "7.5"), CURRENCIES)).isEqualByComparingTo("7.501");
    assertThat(Routing.amountBelow(connector("BTC", null, "0.5"), CURRENCIES)).isEqualByComparingTo("0.50000001");
    assertThat(Routing.amountBelow(connector("EUR", null, "10.005"), CURRENCIES)).isEqualByComparingTo("10.01");
    assertThat(Routing.amountBelow(connector("EUR", "1", null), CURRENCIES)).isNull();
  }

  @Test
  void routing_sends_exactly_the_amounts_of_the_published_range() {
    assertRangeIsWhatRoutingDoes(connector("EUR", "1", "5000"));
    assertRangeIsWhatRoutingDoes(connector("EUR", "0.125", "10.005"));
    assertRangeIsWhatRoutingDoes(connector("JPY", "100", "5000"));
    assertRangeIsWhatRoutingDoes(connector("KWD", "0.5", "7.5"));
  }
}
