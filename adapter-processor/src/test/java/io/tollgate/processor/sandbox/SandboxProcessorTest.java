package io.tollgate.processor.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.PaymentProcessor.CardCharge;
import io.tollgate.application.port.out.PaymentProcessor.Result;
import io.tollgate.application.port.out.PaymentProcessor.Result.Status;
import io.tollgate.application.port.out.PaymentProcessor.Terminal;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.PaymentId;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The sandbox's test cards and limits as CONTRACT section 4 describes them, with both sides of every limit. */
class SandboxProcessorTest {

  private static final Currency EUR = new Currency("EUR", 2, false);
  private static final Terminal TERMINAL = new Terminal(null, "Sandbox Acquirer");
  private static final String APPROVED_CARD = "4000000000000408";

  /** Mid-November 2026, UTC: the current month is 11/2026. */
  private final SandboxProcessor sandbox =
      new SandboxProcessor(Clock.fixed(Instant.parse("2026-11-15T12:00:00Z"), ZoneOffset.UTC));

  private static Money eur(String amount) {
    return Money.of(amount, EUR);
  }

  private static CardCharge card(String number, String amount, String month, String year, int attempt) {
    return new CardCharge(PaymentId.random(), eur(amount), number, month, year, "JANE DOE", "123", true, TERMINAL,
        attempt, null);
  }

  /** A first attempt with a card that expires years after the clock's month. */
  private static CardCharge card(String number, String amount) {
    return card(number, amount, "12", "2030", 1);
  }

  private static CardCharge attempt(String number, int attempt) {
    return card(number, "10.00", "12", "2030", attempt);
  }

  private static CardCharge expiring(String month, String year) {
    return card(APPROVED_CARD, "10.00", month, year, 1);
  }

  private static Customer account(String accountNumber) {
    return new Customer("ref-1", "DE", "Jane", "Doe", null, null, null, null, null, accountNumber, "Jane Doe",
        null, null, null, null, null, null, null);
  }

  /** Approved when {@code code} is null, else declined with it. */
  private static void assertOutcome(Result result, ErrorCode code) {
    if (code == null) {
      assertApproved(result);
    } else {
      assertDeclined(result, code);
    }
  }

  private static void assertApproved(Result result) {
    assertThat(result.status()).isEqualTo(Status.APPROVED);
    assertThat(result.errorCode()).isNull();
  }

  private static void assertDeclined(Result result, ErrorCode code) {
    assertThat(result.status()).isEqualTo(Status.DECLINED);
    assertThat(result.errorCode()).isEqualTo(code);
  }

  @ParameterizedTest
  @ValueSource(strings = {"4000000000000002", "5555000000000008"})
  void a_3ds_enrolled_card_asks_for_a_challenge_and_is_approved_when_the_customer_passes(String number) {
    Result authorization = sandbox.authorize(card(number, "10.00"));

    assertThat(authorization.status()).isEqualTo(Status.CHALLENGE);
    assertThat(authorization.errorCode()).isNull();
    assertApproved(sandbox.completeChallenge(card(number, "10.00"), true));
    assertDeclined(sandbox.completeChallenge(card(number, "10.00"), false), ErrorCode.E5_00_DECLINED_BY_3DS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"4242424242424242", "5555000000000438"})
  void a_3ds_enrolled_card_that_fails_3ds_asks_for_a_challenge_and_is_declined_5_00_even_when_passed(
      String number) {
    Result authorization = sandbox.authorize(card(number, "10.00"));

    assertThat(authorization.status()).isEqualTo(Status.CHALLENGE);
    assertDeclined(sandbox.completeChallenge(card(number, "10.00"), true), ErrorCode.E5_00_DECLINED_BY_3DS);
  }

  @ParameterizedTest
  @CsvSource({
      "4000000000000408, ",
      "5555000000000107, ",
      "4000000000000416, E4_00_DECLINED_BY_ISSUER",
      "5555000000000115, E4_00_DECLINED_BY_ISSUER",
      "4000000000009995, E4_01_INSUFFICIENT_FUNDS",
      "4000000000000069, E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE",
      "4000000000000127, E4_07_INVALID_SECURITY_CODE",
      "4111111111111111, ",
      "5105105105105100, "})
  void a_card_not_enrolled_in_3ds_is_answered_at_once_with_its_fixed_outcome(String number, ErrorCode code) {
    Result result = sandbox.authorize(card(number, "10.00"));

    assertOutcome(result, code);
  }

  @ParameterizedTest
  @CsvSource({
      "4000000000000002, ",
      "5555000000000008, ",
      "4242424242424242, ",
      "5555000000000438, ",
      "4000000000000408, ",
      "5555000000000107, ",
      "4000000000000416, E4_00_DECLINED_BY_ISSUER",
      "5555000000000115, E4_00_DECLINED_BY_ISSUER",
      "4000000000009995, E4_01_INSUFFICIENT_FUNDS",
      "4000000000000069, E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE",
      "4000000000000127, E4_07_INVALID_SECURITY_CODE",
      "4111111111111111, "})
  void a_card_payout_has_the_card_outcome_without_3ds(String number, ErrorCode code) {
    Result result = sandbox.payout(card(number, "10.00"));

    assertOutcome(result, code);
  }

  @Test
  void the_do_not_honor_card_is_declined_4_02_on_the_first_terminal_and_approved_on_the_next() {
    String number = "4000000000000424";

    assertDeclined(sandbox.authorize(attempt(number, 1)), ErrorCode.E4_02_DO_NOT_HONOR);
    assertApproved(sandbox.authorize(attempt(number, 2)));
    assertDeclined(sandbox.payout(attempt(number, 1)), ErrorCode.E4_02_DO_NOT_HONOR);
    assertApproved(sandbox.payout(attempt(number, 2)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"4000000000000409", "4242424242424241", "", "4000 0000 0000 0408", "400000000000040a"})
  void a_number_that_fails_the_luhn_check_is_declined_4_13(String number) {
    assertDeclined(sandbox.authorize(card(number, "10.00")), ErrorCode.E4_13_DECLINED_BY_ISSUER_INVALID_CARD_NUMBER);
    assertDeclined(sandbox.payout(card(number, "10.00")), ErrorCode.E4_13_DECLINED_BY_ISSUER_INVALID_CARD_NUMBER);
  }

  @Test
  void a_missing_card_number_is_declined_4_13() {
    assertDeclined(sandbox.authorize(card(null, "10.00")), ErrorCode.E4_13_DECLINED_BY_ISSUER_INVALID_CARD_NUMBER);
  }

  @Test
  void a_luhn_valid_number_is_accepted_from_12_to_19_digits_and_declined_4_13_outside() {
    ErrorCode invalid = ErrorCode.E4_13_DECLINED_BY_ISSUER_INVALID_CARD_NUMBER;

    assertDeclined(sandbox.authorize(card("40000000006", "10.00")), invalid);
    assertApproved(sandbox.authorize(card("400000000002", "10.00")));
    assertApproved(sandbox.authorize(card("4000000000000000006", "10.00")));
    assertDeclined(sandbox.authorize(card("40000000000000000002", "10.00")), invalid);
  }

  @Test
  void a_card_deposit_just_below_10_000_000_is_approved_and_one_of_10_000_000_is_declined_3_28() {
    assertApproved(sandbox.authorize(card(APPROVED_CARD, "9999999.99")));
    assertDeclined(sandbox.authorize(card(APPROVED_CARD, "10000000.00")), ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM);
  }

  @Test
  void a_card_payout_of_exactly_10_000_is_approved_and_one_of_10_000_01_is_declined_3_28() {
    assertApproved(sandbox.payout(card(APPROVED_CARD, "10000.00")));
    assertDeclined(sandbox.payout(card(APPROVED_CARD, "10000.01")), ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM);
  }

  @Test
  void the_limit_is_checked_before_the_card_outcome() {
    assertDeclined(sandbox.authorize(card("4000000000000002", "10000000.00")),
        ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM);
    assertDeclined(sandbox.payout(card("4000000000000416", "10000.01")), ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM);
  }

  @Test
  void a_refund_of_exactly_10_000_is_approved_and_one_of_10_000_01_is_declined_3_28() {
    PaymentId deposit = PaymentId.random();

    assertApproved(sandbox.refund(PaymentId.random(), deposit, TERMINAL, "sbx_1", eur("10000.00")));
    assertDeclined(sandbox.refund(PaymentId.random(), deposit, TERMINAL, "sbx_1", eur("10000.01")),
        ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM);
  }

  @Test
  void a_bank_payout_of_exactly_10_000_is_paid_and_one_of_10_000_01_is_declined_3_28() {
    Customer open = account("DE89370400440532013001");

    Result paid = sandbox.bankPayout(PaymentId.random(), TERMINAL, eur("10000.00"), open);

    assertApproved(paid);
    assertThat(paid.externalResultCode()).isEqualTo("PAID");
    assertDeclined(sandbox.bankPayout(PaymentId.random(), TERMINAL, eur("10000.01"), open),
        ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM);
  }

  @Test
  void a_bank_payout_to_the_closed_account_is_declined_4_00_and_one_without_an_account_3_02() {
    assertDeclined(sandbox.bankPayout(PaymentId.random(), TERMINAL, eur("10.00"), account("DE89370400440532010000")),
        ErrorCode.E4_00_DECLINED_BY_ISSUER);
    assertDeclined(sandbox.bankPayout(PaymentId.random(), TERMINAL, eur("10.00"), account(null)),
        ErrorCode.E3_02_INVALID_REQUEST_FORMAT_OR_MISSING_REQUIRED_PARAMETERS);
    assertDeclined(sandbox.bankPayout(PaymentId.random(), TERMINAL, eur("10.00"), null),
        ErrorCode.E3_02_INVALID_REQUEST_FORMAT_OR_MISSING_REQUIRED_PARAMETERS);
  }

  @Test
  void a_bank_transfer_just_below_10_000_000_waits_for_the_money_and_one_of_10_000_000_is_declined_3_28() {
    Result opened = sandbox.startBankTransfer(PaymentId.random(), TERMINAL, eur("9999999.99"), Map.of());

    assertThat(opened.status()).isEqualTo(Status.PENDING);
    assertThat(opened.externalRefs())
        .containsEntry("amount", "9999999.99")
        .containsEntry("currency", "EUR")
        .containsKeys("iban", "bic", "paymentReference");
    assertDeclined(sandbox.startBankTransfer(PaymentId.random(), TERMINAL, eur("10000000.00"), Map.of()),
        ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM);
  }

  @Test
  void a_bank_transfer_arrives_for_the_requested_amount_unless_another_one_is_received() {
    Money expected = eur("50.00");

    Result asRequested = sandbox.bankTransferStatus(PaymentId.random(), TERMINAL, "sbx_1", expected, Map.of());
    Result less = sandbox.bankTransferStatus(PaymentId.random(), TERMINAL, "sbx_1", expected,
        Map.of("sandboxReceivedAmount", "42.5"));

    assertApproved(asRequested);
    assertThat(asRequested.settledAmount()).isNull();
    assertApproved(less);
    assertThat(less.settledAmount()).isEqualTo(eur("42.50"));
  }

  @Test
  void a_received_amount_must_be_above_zero_and_below_10_000_000() {
    Money expected = eur("50.00");

    assertDeclined(received(expected, "0"), ErrorCode.E1_08_INVALID_AMOUNT);
    assertThat(received(expected, "0.01").settledAmount()).isEqualTo(eur("0.01"));
    assertThat(received(expected, "9999999.99").settledAmount()).isEqualTo(eur("9999999.99"));
    assertDeclined(received(expected, "10000000"), ErrorCode.E1_08_INVALID_AMOUNT);
    assertDeclined(received(expected, "1e25"), ErrorCode.E1_08_INVALID_AMOUNT);
    assertDeclined(received(expected, "-5"), ErrorCode.E1_08_INVALID_AMOUNT);
    assertDeclined(received(expected, "0.001"), ErrorCode.E1_08_INVALID_AMOUNT);
    assertDeclined(received(expected, "lots"), ErrorCode.E1_08_INVALID_AMOUNT);
  }

  private Result received(Money expected, String amount) {
    return sandbox.bankTransferStatus(PaymentId.random(), TERMINAL, "sbx_1", expected,
        Map.of("sandboxReceivedAmount", amount));
  }

  @Test
  void a_card_expiring_this_month_is_accepted_and_one_that_expired_last_month_is_declined_4_04() {
    ErrorCode expired = ErrorCode.E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE;

    assertApproved(sandbox.authorize(expiring("11", "2026")));
    assertDeclined(sandbox.authorize(expiring("10", "2026")), expired);
    assertApproved(sandbox.payout(expiring("11", "2026")));
    assertDeclined(sandbox.payout(expiring("10", "2026")), expired);
  }

  @Test
  void in_january_a_card_that_expired_in_december_is_declined_4_04() {
    SandboxProcessor january =
        new SandboxProcessor(Clock.fixed(Instant.parse("2027-01-01T00:00:00Z"), ZoneOffset.UTC));

    assertApproved(january.authorize(expiring("01", "2027")));
    assertDeclined(january.authorize(expiring("12", "2026")),
        ErrorCode.E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE);
  }

  @Test
  void an_expiry_in_the_past_is_declined_4_04_whatever_the_card() {
    assertDeclined(sandbox.authorize(card("4000000000000002", "10.00", "10", "2026", 1)),
        ErrorCode.E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE);
  }

  @ParameterizedTest
  @CsvSource({"13, 2030", "0, 2030", "ab, 2030", "12, 20x0"})
  void an_expiry_that_is_not_a_month_is_declined_4_04(String month, String year) {
    assertDeclined(sandbox.authorize(expiring(month, year)),
        ErrorCode.E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE);
  }
}
