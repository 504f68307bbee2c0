package io.tollgate.processor.sandbox;

import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.PaymentId;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.YearMonth;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The sandbox acquirer and bank: test cards with fixed outcomes (CONTRACT section 4), amount
 * limits, expiry and Luhn checks, simulated 3-D Secure, and bank transfers that arrive for
 * the requested amount or for {@code additionalParameters.sandboxReceivedAmount}.
 */
public final class SandboxProcessor implements PaymentProcessor {

  static final BigDecimal DEPOSIT_LIMIT = new BigDecimal("10000000");
  static final BigDecimal PAYOUT_LIMIT = new BigDecimal("10000");

  /** How a test card behaves. */
  enum Behaviour {
    THREE_DS_APPROVED, THREE_DS_DECLINED, APPROVED, DECLINED_BY_ISSUER, INSUFFICIENT_FUNDS, EXPIRED, WRONG_CVV,
    /** Declined 4.02 Do Not Honor on the first terminal tried, approved on any later one (cascading); payouts too. */
    DO_NOT_HONOR_FIRST_ATTEMPT
  }

  private static final Map<String, Behaviour> TEST_CARDS = Map.ofEntries(
      Map.entry("4000000000000002", Behaviour.THREE_DS_APPROVED),
      Map.entry("5555000000000008", Behaviour.THREE_DS_APPROVED),
      Map.entry("4242424242424242", Behaviour.THREE_DS_DECLINED),
      Map.entry("5555000000000438", Behaviour.THREE_DS_DECLINED),
      Map.entry("4000000000000408", Behaviour.APPROVED),
      Map.entry("5555000000000107", Behaviour.APPROVED),
      Map.entry("4000000000000416", Behaviour.DECLINED_BY_ISSUER),
      Map.entry("5555000000000115", Behaviour.DECLINED_BY_ISSUER),
      Map.entry("4000000000009995", Behaviour.INSUFFICIENT_FUNDS),
      Map.entry("4000000000000069", Behaviour.EXPIRED),
      Map.entry("4000000000000127", Behaviour.WRONG_CVV),
      Map.entry("4000000000000424", Behaviour.DO_NOT_HONOR_FIRST_ATTEMPT));

  private final Clock clock;

  public SandboxProcessor(Clock clock) {
    this.clock = clock;
  }

  @Override
  public String terminalName() {
    return "Sandbox Acquirer";
  }

  @Override
  public Result authorize(CardCharge charge) {
    Result refused = cardChecks(charge, DEPOSIT_LIMIT, true);
    if (refused != null) {
      return refused;
    }
    Behaviour b = behaviour(charge.cardNumber());
    if (b == Behaviour.THREE_DS_APPROVED || b == Behaviour.THREE_DS_DECLINED) {
      return new Result(Result.Status.CHALLENGE, null, externalId(), "3DS_REQUIRED", Map.of(), null);
    }
    if (b == Behaviour.DO_NOT_HONOR_FIRST_ATTEMPT) {
      return charge.attempt() <= 1 ? Result.declined(ErrorCode.E4_02_DO_NOT_HONOR, externalId(), "05")
          : Result.approved(externalId(), "00");
    }
    return outcome(b);
  }

  @Override
  public Result completeChallenge(CardCharge charge, boolean customerPassed) {
    Behaviour b = behaviour(charge.cardNumber());
    if (!customerPassed || b == Behaviour.THREE_DS_DECLINED) {
      return Result.declined(ErrorCode.E5_00_DECLINED_BY_3DS, externalId(), "3DS_FAILED");
    }
    return Result.approved(externalId(), "00");
  }

  @Override
  public Result capture(PaymentId payment, Terminal terminal, String externalId, Money amount) {
    return Result.approved(externalId == null ? externalId() : externalId, "00");
  }

  @Override
  public Result voidAuthorization(PaymentId payment, Terminal terminal, String externalId) {
    return Result.approved(externalId == null ? externalId() : externalId, "00");
  }

  @Override
  public Result payout(CardCharge payout) {
    Result refused = cardChecks(payout, PAYOUT_LIMIT, false);
    if (refused != null) {
      return refused;
    }
    Behaviour b = behaviour(payout.cardNumber());
    if (b == Behaviour.DO_NOT_HONOR_FIRST_ATTEMPT && payout.attempt() <= 1) {
      return Result.declined(ErrorCode.E4_02_DO_NOT_HONOR, externalId(), "05");
    }
    return outcome(b == Behaviour.THREE_DS_DECLINED ? Behaviour.APPROVED : b);
  }

  /**
   * Sends the transfer at once: declined above the payout limit, or for an account number that
   * ends in {@code 0000} (the sandbox's closed account), else paid.
   */
  @Override
  public Result bankPayout(PaymentId payout, Terminal terminal, Money amount,
      io.tollgate.domain.payment.Customer account) {
    if (amount.amount().compareTo(PAYOUT_LIMIT) > 0) {
      return Result.declined(ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM, externalId(), "61");
    }
    if (account == null || account.accountNumber() == null) {
      return Result.declined(ErrorCode.E3_02_INVALID_REQUEST_FORMAT_OR_MISSING_REQUIRED_PARAMETERS, externalId(),
          "NO_ACCOUNT");
    }
    if (account.accountNumber().strip().endsWith("0000")) {
      return Result.declined(ErrorCode.E4_00_DECLINED_BY_ISSUER, externalId(), "ACCOUNT_CLOSED");
    }
    return Result.approved(externalId(), "PAID");
  }

  @Override
  public Result refund(PaymentId refund, PaymentId deposit, Terminal terminal, String depositExternalId,
      Money amount) {
    if (amount.amount().compareTo(PAYOUT_LIMIT) > 0) {
      return Result.declined(ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM, externalId(), "61");
    }
    return Result.approved(externalId(), "00");
  }

  @Override
  public Result startBankTransfer(PaymentId payment, Terminal terminal, Money amount,
      Map<String, String> additionalParameters) {
    if (amount.amount().compareTo(DEPOSIT_LIMIT) >= 0) {
      return Result.declined(ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM, externalId(), "61");
    }
    Map<String, String> refs = new LinkedHashMap<>();
    refs.put("bankName", "Tollgate Sandbox Bank");
    refs.put("accountHolder", "Tollgate Sandbox Collections");
    refs.put("iban", "DE89370400440532013000");
    refs.put("bic", "SBXTDEFFXXX");
    refs.put("paymentReference", "TG" + payment.value().substring(0, 12).toUpperCase());
    refs.put("amount", amount.amount().toPlainString());
    refs.put("currency", amount.currency().code());
    return new Result(Result.Status.PENDING, null, externalId(), "AWAITING_TRANSFER", refs, null);
  }

  @Override
  public Result bankTransferStatus(PaymentId payment, Terminal terminal, String externalId, Money expected,
      Map<String, String> additionalParameters) {
    String received = additionalParameters.get("sandboxReceivedAmount");
    Money settled = expected;
    if (received != null) {
      try {
        BigDecimal amount = new BigDecimal(received.strip());
        // bounded before it is scaled: "1e25" would overflow the amount column when written, and
        // fail the settlement of every transfer in its batch again and again
        if (amount.compareTo(DEPOSIT_LIMIT) >= 0) {
          return Result.declined(ErrorCode.E1_08_INVALID_AMOUNT, externalId, "BAD_AMOUNT");
        }
        settled = new Money(amount, expected.currency());
      } catch (IllegalArgumentException e) {
        return Result.declined(ErrorCode.E1_08_INVALID_AMOUNT, externalId, "BAD_AMOUNT");
      }
      if (settled.amount().signum() <= 0) {
        return Result.declined(ErrorCode.E1_08_INVALID_AMOUNT, externalId, "NOTHING_RECEIVED");
      }
    }
    return new Result(Result.Status.APPROVED, null, externalId, "RECEIVED", Map.of(),
        settled.equals(expected) ? null : settled);
  }

  private Result cardChecks(CardCharge charge, BigDecimal limit, boolean inclusiveLimit) {
    String digits = charge.cardNumber() == null ? "" : charge.cardNumber();
    if (!Pan.luhnValid(digits) || digits.length() < 12 || digits.length() > 19) {
      return Result.declined(ErrorCode.E4_13_DECLINED_BY_ISSUER_INVALID_CARD_NUMBER, externalId(), "14");
    }
    int cmp = charge.amount().amount().compareTo(limit);
    if (inclusiveLimit ? cmp >= 0 : cmp > 0) {
      return Result.declined(ErrorCode.E3_28_AMOUNT_HIGHER_THAN_MAXIMUM, externalId(), "61");
    }
    if (isExpired(charge.expiryMonth(), charge.expiryYear())) {
      return Result.declined(ErrorCode.E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE, externalId(), "54");
    }
    return null;
  }

  private boolean isExpired(String month, String year) {
    if (month == null || year == null) {
      return false;
    }
    try {
      YearMonth expiry = YearMonth.of(Integer.parseInt(year), Integer.parseInt(month));
      return expiry.isBefore(YearMonth.now(clock));
    } catch (RuntimeException e) {
      return true;
    }
  }

  private static Behaviour behaviour(String cardNumber) {
    return TEST_CARDS.getOrDefault(cardNumber, Behaviour.APPROVED);
  }

  private static Result outcome(Behaviour b) {
    return switch (b) {
      case APPROVED, THREE_DS_APPROVED, DO_NOT_HONOR_FIRST_ATTEMPT -> Result.approved(externalId(), "00");
      case THREE_DS_DECLINED -> Result.declined(ErrorCode.E5_00_DECLINED_BY_3DS, externalId(), "3DS_FAILED");
      case DECLINED_BY_ISSUER -> Result.declined(ErrorCode.E4_00_DECLINED_BY_ISSUER, externalId(), "05");
      case INSUFFICIENT_FUNDS -> Result.declined(ErrorCode.E4_01_INSUFFICIENT_FUNDS, externalId(), "51");
      case EXPIRED -> Result.declined(ErrorCode.E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE, externalId(), "54");
      case WRONG_CVV -> Result.declined(ErrorCode.E4_07_INVALID_SECURITY_CODE, externalId(), "N7");
    };
  }

  private static String externalId() {
    return "sbx_" + UUID.randomUUID().toString().replace("-", "");
  }
}
