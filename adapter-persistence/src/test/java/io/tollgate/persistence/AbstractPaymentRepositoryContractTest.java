package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.PaymentRepository.PaymentFilter;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Outcome;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What every implementation of {@link PaymentRepository} must do. Subclasses provide the
 * repository and two shops that exist in it.
 */
abstract class AbstractPaymentRepositoryContractTest {

  static final Currencies CURRENCIES = Currencies.defaults();
  static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

  abstract PaymentRepository repository();

  abstract ShopId shop();

  abstract ShopId otherShop();

  Payment.Draft draft(ShopId shop, String amount, String reference) {
    return new Payment.Draft(PaymentId.random(), shop, PaymentType.DEPOSIT, PaymentMethod.BASIC_CARD,
        Money.of(amount, CURRENCIES.require("EUR")), reference, "desc", null, false,
        new CardDetails("400000******0002", "a".repeat(32), "ANN LEE", "12", "2045", "VISA", "US"),
        new Customer("cust-1", "DE", "Ann", "Lee", "1990-01-31", "ann@example.com", "49 30 1234", "de", "10.0.0.1"),
        new BillingAddress("Main 1", null, "Berlin", "DE", "10115", null),
        "https://shop.example/r", "https://shop.example/h", Map.of("k", "v"));
  }

  Payment insert(ShopId shop, String amount, String reference, Instant at) {
    return repository().insert(Payment.create(draft(shop, amount, reference), PaymentState.CHECKOUT, at));
  }

  @Test
  void a_stored_payment_reads_back_equal_at_version_one() {
    Payment stored = insert(shop(), "10.5", "r-1", T0);
    Payment read = repository().find(stored.id()).orElseThrow();
    assertThat(read).isEqualTo(stored);
    assertThat(read.version()).isEqualTo(1);
    assertThat(read.amount().amount()).isEqualByComparingTo("10.50");
    assertThat(read.amount().amount().scale()).isEqualTo(2);
    assertThat(read.card().maskedNumber()).isEqualTo("400000******0002");
    assertThat(read.additionalParameters()).containsEntry("k", "v");
    assertThat(repository().find(PaymentId.random())).isEmpty();
  }

  @Test
  void an_update_moves_the_version_and_appends_its_operation() {
    Payment p = insert(shop(), "5", "r-2", T0);
    Outcome declined = Outcome.error(ErrorCode.E4_02_DO_NOT_HONOR).withExternal("ext-9", "05").withDetails("acquirer said no");
    Payment after = repository().update(p.apply(OperationType.DEPOSIT, PaymentState.DECLINED, declined, T0.plusSeconds(2)));
    assertThat(after.version()).isEqualTo(2);
    Payment read = repository().find(p.id()).orElseThrow();
    assertThat(read).isEqualTo(after);
    assertThat(read.errorCode()).isEqualTo(ErrorCode.E4_02_DO_NOT_HONOR);

    List<PaymentOperation> ops = repository().operations(p.id());
    assertThat(ops).extracting(PaymentOperation::operation).containsExactly(OperationType.DEPOSIT, OperationType.CREATE_PAYMENT);
    assertThat(ops.get(0).errorCode()).isEqualTo(ErrorCode.E4_02_DO_NOT_HONOR);
    assertThat(ops.get(0).details()).isEqualTo("acquirer said no");
    assertThat(ops.get(0).id()).isGreaterThan(ops.get(1).id());
  }

  @Test
  void the_customers_address_given_by_a_step_is_stored_with_it_and_reads_back() {
    Payment p = insert(shop(), "5", "r-ip", T0);
    Payment executed = repository().update(p.withCustomerIp("203.0.113.9", "AU")
        .apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(1)));
    Payment read = repository().find(p.id()).orElseThrow();
    assertThat(read).isEqualTo(executed);
    assertThat(read.customer().ip()).isEqualTo("203.0.113.9");
    assertThat(read.customer().ipCountryCode()).isEqualTo("AU");
    assertThat(read.customer().referenceId()).as("the rest of the customer as created").isEqualTo("cust-1");

    Payment anonymous = repository().insert(Payment.create(new Payment.Draft(PaymentId.random(), shop(),
        PaymentType.DEPOSIT, PaymentMethod.BASIC_CARD, Money.of("5", CURRENCIES.require("EUR")), "r-ip-2", null, null,
        false, null, null, null, null, null, Map.of()), PaymentState.CHECKOUT, T0));
    repository().update(anonymous.withCustomerIp("2001:db8::9")
        .apply(OperationType.DEPOSIT, PaymentState.DECLINED, Outcome.NONE, T0.plusSeconds(1)));
    assertThat(repository().find(anonymous.id()).orElseThrow().customer()).isEqualTo(Customer.ofIp("2001:db8::9"));
  }

  @Test
  void the_terminal_a_step_ran_on_is_stored_by_id_and_name_with_the_payment_and_its_operation() {
    Payment p = insert(shop(), "5", "r-terminal", T0);
    Payment atA = repository().update(p.withRouting(p.amount(), null, 11L, "Acquirer A")
        .apply(OperationType.CHECKOUT, PaymentState.PENDING, Outcome.NONE, T0.plusSeconds(1)));
    Payment.Transition screened = atA.apply(OperationType.DETECT_FRAUD, PaymentState.PENDING, Outcome.NONE,
        T0.plusSeconds(2));
    Payment atB = repository().update(screened.after().withRouting(p.amount(), null, 12L, "Acquirer B")
        .apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0.plusSeconds(2)),
        List.of(screened.operation()), stored -> PaymentRepository.Effects.NONE);

    Payment read = repository().find(p.id()).orElseThrow();
    assertThat(read).isEqualTo(atB);
    assertThat(read.terminalId()).isEqualTo(12L);
    assertThat(read.terminalName()).isEqualTo("Acquirer B");
    assertThat(repository().operations(p.id()))
        .extracting(o -> o.operation() + " " + o.terminalId() + " " + o.terminalName())
        .containsExactly("DEPOSIT 12 Acquirer B", "DETECT_FRAUD 11 Acquirer A", "CHECKOUT 11 Acquirer A",
            "CREATE_PAYMENT null null");
  }

  @Test
  void an_update_from_a_stale_version_is_refused_and_changes_nothing() {
    Payment p = insert(shop(), "5", "r-3", T0);
    repository().update(p.apply(OperationType.CANCEL, PaymentState.CANCELLED, Outcome.NONE, T0));
    assertThatThrownBy(() -> repository().update(
            p.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0)))
        .isInstanceOf(DomainException.Conflict.class);
    assertThat(repository().find(p.id()).orElseThrow().state()).isEqualTo(PaymentState.CANCELLED);
    assertThat(repository().operations(p.id())).hasSize(2);
  }

  @Test
  void lists_a_shops_payments_newest_first_with_filters_and_has_more() {
    ShopId shop = otherShop();
    Instant base = T0.plus(1, ChronoUnit.DAYS);
    Payment a = insert(shop, "1", "same", base);
    Payment b = insert(shop, "2", "other", base.plusSeconds(10));
    Payment c = insert(shop, "3", "same", base.plusSeconds(20));
    insert(shop(), "4", "same", base.plusSeconds(30));

    PaymentFilter all = new PaymentFilter(shop, null, null, null, null, null);
    Page<Payment> first = repository().list(all, 0, 2);
    assertThat(first.items()).extracting(Payment::id).containsExactly(c.id(), b.id());
    assertThat(first.hasMore()).isTrue();
    Page<Payment> second = repository().list(all, 2, 2);
    assertThat(second.items()).extracting(Payment::id).containsExactly(a.id());
    assertThat(second.hasMore()).isFalse();
    assertThat(repository().list(all, 0, 3).hasMore()).isFalse();

    assertThat(repository().list(new PaymentFilter(shop, null, null, null, null, "same"), 0, 10).items())
        .extracting(Payment::id).containsExactly(c.id(), a.id());
    assertThat(repository().list(new PaymentFilter(shop, base.plusSeconds(10), base.plusSeconds(20), null, null, null), 0, 10).items())
        .extracting(Payment::id).containsExactly(b.id());
    assertThat(repository().list(new PaymentFilter(shop, null, null, base.plusSeconds(15), null, null), 0, 10).items())
        .extracting(Payment::id).containsExactly(c.id());
  }

  @Test
  void the_refunded_total_counts_only_refunds_that_can_still_succeed() {
    Payment parent = insert(shop(), "10", "parent", T0);
    Payment completed = repository().update(parent.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE, T0));
    Currency eur = CURRENCIES.require("EUR");
    assertThat(repository().refunded(completed.id(), eur, null).total().amount()).isEqualByComparingTo("0");
    Payment r1 = refund(completed, "3");
    refund(completed, "2");
    repository().update(r1.apply(OperationType.REFUND, PaymentState.DECLINED, Outcome.error(ErrorCode.E4_00_DECLINED_BY_ISSUER), T0));
    PaymentRepository.Refunded refunded = repository().refunded(completed.id(), eur, null);
    assertThat(refunded.total().amount()).isEqualByComparingTo("2.00");
    assertThat(refunded.rest().amount()).isEqualByComparingTo("2.00");
    assertThat(refunded.askedFor().amount()).isEqualByComparingTo("0");
  }

  /**
   * A deposit converted for its terminal is refunded in either currency: the refunds asked in
   * the currency it was asked in are summed as asked, apart from the others, so that what is
   * left to refund as asked does not carry each refund's rounding.
   */
  @Test
  void the_refunds_asked_in_the_currency_the_deposit_was_asked_in_are_summed_as_asked() {
    Payment parent = insert(shop(), "12.71", "converted", T0);
    Payment completed = repository().update(parent.apply(OperationType.DEPOSIT, PaymentState.COMPLETED, Outcome.NONE,
        T0));
    Currency eur = CURRENCIES.require("EUR");
    Currency gbp = CURRENCIES.require("GBP");
    refundAsked(completed, "1.40", Money.of("1.10", gbp));
    refundAsked(completed, "1.40", Money.of("1.10", gbp));
    refund(completed, "2.00");
    Payment declined = refundAsked(completed, "5.00", Money.of("3.94", gbp));
    repository().update(declined.apply(OperationType.REFUND, PaymentState.DECLINED,
        Outcome.error(ErrorCode.E4_00_DECLINED_BY_ISSUER), T0));

    PaymentRepository.Refunded refunded = repository().refunded(completed.id(), eur, gbp);
    assertThat(refunded.total()).isEqualTo(Money.of("4.80", eur));
    assertThat(refunded.askedFor()).isEqualTo(Money.of("2.20", gbp));
    assertThat(refunded.rest()).isEqualTo(Money.of("2.00", eur));
  }

  Payment refundAsked(Payment parent, String amount, Money asked) {
    Payment.Draft d = new Payment.Draft(PaymentId.random(), parent.shopId(), PaymentType.REFUND, parent.method(),
        Money.of(amount, CURRENCIES.require("EUR")), null, null, parent.id(), false, parent.card(), null, null,
        null, null, Map.of());
    Payment.Transition created = Payment.create(d, PaymentState.PENDING, T0);
    return repository().insert(new Payment.Transition(null, created.after().withRouting(created.after().amount(), asked,
        null, null), created.operation()));
  }

  Payment refund(Payment parent, String amount) {
    Payment.Draft d = new Payment.Draft(PaymentId.random(), parent.shopId(), PaymentType.REFUND, parent.method(),
        Money.of(amount, CURRENCIES.require("EUR")), null, null, parent.id(), false, parent.card(), null, null,
        null, null, Map.of());
    return repository().insert(Payment.create(d, PaymentState.PENDING, T0));
  }
}
