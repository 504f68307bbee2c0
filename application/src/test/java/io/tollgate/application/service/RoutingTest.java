package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

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
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingTest {

  private static final Currencies CURRENCIES = Currencies.defaults();
  private final ReferenceData reference = mock(ReferenceData.class);
  private final Routing routing = new Routing(reference, mock(GroupRepository.class), CURRENCIES);

  private static Connector connector(String currency, String min, String max) {
    return new Connector(1, 1, 1, "Acquirer", "ACTIVE", "BASIC_CARD", currency, 1, 100,
        min == null ? null : new BigDecimal(min), max == null ? null : new BigDecimal(max), null, null);
  }

  /** A connector of shop 1 on its own terminal. */
  private static Connector connector(String terminal, String currency, int priority, String max, Long cascadeGroup) {
    return new Connector(priority, 1, priority, terminal, "ACTIVE", "BASIC_CARD", currency, priority, 100, null,
        max == null ? null : new BigDecimal(max), cascadeGroup, null);
  }

  private static Money money(String amount, String currency) {
    return new Money(new BigDecimal(amount), CURRENCIES.require(currency));
  }

  private void shopHas(Connector... connectors) {
    when(reference.connectorsOf(1)).thenReturn(List.of(connectors));
    when(reference.hasConnectors(1)).thenReturn(connectors.length > 0);
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

  @Test
  void connectors_in_the_payments_currency_come_before_higher_priority_ones_that_would_convert_it() {
    shopHas(connector("USD first", "USD", 1, null, null), connector("EUR second", "EUR", 2, null, null),
        connector("GBP third", "GBP", 3, null, null), connector("EUR fourth", "EUR", 4, null, null));

    assertThat(routing.candidates(deposit(money("50.00", "EUR")))).extracting(Connector::terminalName)
        .containsExactly("EUR second", "EUR fourth", "USD first", "GBP third");
    assertThat(routing.candidates(deposit(money("50.00", "CHF")))).extracting(Connector::terminalName)
        .as("none in the currency: by priority").containsExactly("USD first", "EUR second", "GBP third", "EUR fourth");
  }
}
