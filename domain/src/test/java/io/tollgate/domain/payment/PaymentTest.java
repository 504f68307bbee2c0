package io.tollgate.domain.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PaymentTest {

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final Money TEN_EUR = Money.of("10", Currencies.defaults().require("EUR"));

  private static Payment.Draft deposit() {
    return new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.DEPOSIT, PaymentMethod.BASIC_CARD,
        TEN_EUR, "order-1", null, null, false, null, null, null, null, null, Map.of());
  }

  @Test
  void creation_records_create_payment_in_the_initial_state() {
    Payment.Transition t = Payment.create(deposit(), PaymentState.CHECKOUT, T0);
    assertThat(t.before()).isNull();
    assertThat(t.after().state()).isEqualTo(PaymentState.CHECKOUT);
    assertThat(t.operation().operation()).isEqualTo(OperationType.CREATE_PAYMENT);
    assertThat(t.operation().paymentState()).isEqualTo(PaymentState.CHECKOUT);
    assertThatThrownBy(() -> Payment.create(deposit(), PaymentState.PENDING, T0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * 100.00 USD asked, authorized as 92.00 EUR by a terminal in euros, then captured for 46.00
   * EUR: the customer pays half of what was asked, and both amounts say so.
   */
  @Test
  void a_partial_capture_of_a_converted_deposit_scales_what_was_asked_with_it() {
    Currencies currencies = Currencies.defaults();
    Money asked = Money.of("100.00", currencies.require("USD"));
    Money charged = Money.of("92.00", currencies.require("EUR"));
    Payment authorized = Payment.create(deposit(), PaymentState.CHECKOUT, T0).after().withRouting(charged, asked, 7L, "EUR")
        .apply(OperationType.DEPOSIT, PaymentState.AUTHORIZED, Outcome.NONE, T0).after();

    Payment half = authorized.apply(OperationType.CAPTURE, PaymentState.COMPLETED,
        Outcome.NONE.withAmount(Money.of("46.00", currencies.require("EUR"))), T0).after();
    assertThat(half.amount()).isEqualTo(Money.of("46.00", currencies.require("EUR")));
    assertThat(half.customerAmount().amount()).isEqualByComparingTo("50.00");
    assertThat(half.customerAmount().currency().code()).isEqualTo("USD");

    Payment third = authorized.apply(OperationType.CAPTURE, PaymentState.COMPLETED,
        Outcome.NONE.withAmount(Money.of("30.67", currencies.require("EUR"))), T0).after();
    assertThat(third.customerAmount().amount()).as("33.3369..., half-even to cents").isEqualByComparingTo("33.34");
    Payment whole = authorized.apply(OperationType.CAPTURE, PaymentState.COMPLETED,
        Outcome.NONE.withAmount(charged), T0).after();
    assertThat(whole.customerAmount()).isEqualTo(asked);
  }

  @Test
  void a_decline_keeps_its_error_and_the_processors_codes() {
    Payment p = Payment.create(deposit(), PaymentState.CHECKOUT, T0).after();
    Outcome declined = Outcome.error(ErrorCode.E4_01_INSUFFICIENT_FUNDS).withExternal("ext-1", "51");
    Payment.Transition t = p.apply(OperationType.DEPOSIT, PaymentState.DECLINED, declined, T0.plusSeconds(1));
    assertThat(t.after().state()).isEqualTo(PaymentState.DECLINED);
    assertThat(t.after().errorCode()).isEqualTo(ErrorCode.E4_01_INSUFFICIENT_FUNDS);
    assertThat(t.after().errorMessage()).isEqualTo("Insufficient Funds");
    assertThat(t.after().externalId()).isEqualTo("ext-1");
    assertThat(t.after().externalResultCode()).isEqualTo("51");
    assertThat(t.after().updated()).isEqualTo(T0.plusSeconds(1));
    assertThat(t.operation().errorCode()).isEqualTo(ErrorCode.E4_01_INSUFFICIENT_FUNDS);
    assertThat(t.before()).isSameAs(p);
  }

  @Test
  void an_address_given_at_execution_replaces_the_customers_and_stays_through_later_steps() {
    Payment.Draft described = new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.DEPOSIT,
        PaymentMethod.BASIC_CARD, TEN_EUR, "order-2", null, null, false, null,
        new Customer("cust-7", null, "Ann", null, null, "ann@example.com", null, null, "198.51.100.1"), null, null, null,
        Map.of());
    Payment executed = Payment.create(described, PaymentState.CHECKOUT, T0).after().withCustomerIp("203.0.113.9");
    Payment done = executed.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0).after();
    assertThat(done.customer().ip()).isEqualTo("203.0.113.9");
    assertThat(done.customer().referenceId()).isEqualTo("cust-7");
    assertThat(done.customer().email()).isEqualTo("ann@example.com");

    Payment anonymous = Payment.create(deposit(), PaymentState.CHECKOUT, T0).after().withCustomerIp("2001:db8::1");
    assertThat(anonymous.customer()).isEqualTo(Customer.ofIp("2001:db8::1"));
  }

  @Test
  void a_final_payment_cannot_move_again() {
    Payment done = Payment.create(deposit(), PaymentState.CHECKOUT, T0).after()
        .apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0).after();
    assertThatThrownBy(() -> done.apply(OperationType.CANCEL, PaymentState.CANCELLED, Outcome.NONE, T0))
        .isInstanceOf(DomainException.Conflict.class).hasMessage("1.00 Illegal Workflow State");
  }

  @Test
  void a_refund_must_name_its_parent() {
    Payment.Draft orphan = new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.REFUND,
        PaymentMethod.BASIC_CARD, TEN_EUR, null, null, null, false, null, null, null, null, null, Map.of());
    assertThatThrownBy(() -> Payment.create(orphan, PaymentState.PENDING, T0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("parent");
  }

  @Test
  void a_card_number_in_clear_is_refused_as_card_details() {
    assertThatThrownBy(() -> new CardDetails("4000000000000002", null, null, "12", "2045", "VISA", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Pan.mask("4000000000000002")).isEqualTo("400000******0002");
  }

  /**
   * A masked card number hides at least five digits, so that with the Luhn check 10,000 numbers
   * or more fit it: first 6 and last 4 from 15 digits on; a shorter one shows fewer of its first.
   */
  @Test
  void a_masked_card_number_hides_five_digits_or_more_whatever_its_length() {
    assertThat(Pan.mask("4000000000000002123")).isEqualTo("400000*********2123");
    assertThat(Pan.mask("378282246310005")).isEqualTo("378282*****0005");
    assertThat(Pan.mask("30569309025904")).isEqualTo("30569*****5904");
    assertThat(Pan.mask("6759649826438")).isEqualTo("6759*****6438");
    assertThat(Pan.mask("500000123454")).isEqualTo("500*****3454");
    assertThat(Pan.mask("123456")).isEqualTo("*****6");
    assertThat(new Pan("500000123454").masked()).isEqualTo("500*****3454");
    assertThat(Pan.maskForDisplay("card 5000 0012 3454 refused")).isEqualTo("card 500*****3454 refused");
    assertThat(CardBrands.detect("5555000000000008")).isEqualTo("MASTERCARD");
    assertThat(CardBrands.detect("4000000000000002")).isEqualTo("VISA");
  }
}
