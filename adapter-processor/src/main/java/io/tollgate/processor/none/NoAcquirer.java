package io.tollgate.processor.none;

import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.PaymentId;
import java.util.Map;

/**
 * The processor of a production deployment with no acquirer connected: it declines every call
 * (1.05, result code {@value #RESULT_CODE}) without moving any money. The sandbox simulator must
 * never answer for real money, and Tollgate ships no adapter for a real acquirer yet: a team
 * connects one by implementing {@link PaymentProcessor} and wiring it in place of this one.
 *
 * <p>A decline here is true to the port's contract: nothing was sent anywhere, and nothing
 * will be.
 */
public final class NoAcquirer implements PaymentProcessor {

  static final String RESULT_CODE = "NO_ACQUIRER";

  private static Result declined() {
    return Result.declined(ErrorCode.E1_05_TERMINAL_NOT_FOUND, null, RESULT_CODE);
  }

  @Override
  public String terminalName() {
    return "No acquirer connected";
  }

  @Override
  public Result authorize(CardCharge charge) {
    return declined();
  }

  @Override
  public Result completeChallenge(CardCharge charge, boolean customerPassed) {
    return declined();
  }

  @Override
  public Result capture(PaymentId payment, Terminal terminal, String externalId, Money amount) {
    return declined();
  }

  @Override
  public Result voidAuthorization(PaymentId payment, Terminal terminal, String externalId) {
    return declined();
  }

  @Override
  public Result payout(CardCharge payout) {
    return declined();
  }

  @Override
  public Result bankPayout(PaymentId payout, Terminal terminal, Money amount, Customer account) {
    return declined();
  }

  @Override
  public Result refund(PaymentId refund, PaymentId deposit, Terminal terminal, String depositExternalId, Money amount) {
    return declined();
  }

  @Override
  public Result startBankTransfer(PaymentId payment, Terminal terminal, Money amount,
      Map<String, String> additionalParameters) {
    return declined();
  }

  @Override
  public Result bankTransferStatus(PaymentId payment, Terminal terminal, String externalId, Money expected,
      Map<String, String> additionalParameters) {
    return declined();
  }
}
