package io.tollgate.domain.antifraud;

import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import java.util.Set;

/**
 * The rules an anti-fraud profile can hold: group rules reference one of the merchant's entry
 * groups; velocity rules count a card's recent deposits within a window. Each screens the
 * payment types it says something about ({@link #screens}).
 */
public enum AntifraudRuleType {
  BIN_BLACKLIST(GroupKind.BIN, ErrorCode.E6_39_CARD_BIN_BLACKLISTED),
  CARD_BLACKLIST(GroupKind.CARD, ErrorCode.E6_01_CARD_PAN_BLACKLISTED),
  CARD_WHITELIST(GroupKind.CARD, ErrorCode.E6_11_CARD_PAN_NOT_WHITELISTED),
  EMAIL_BLACKLIST(GroupKind.EMAIL, ErrorCode.E6_02_CUSTOMER_EMAIL_BLACKLISTED),
  CARD_COUNTRY_RESTRICTED(GroupKind.COUNTRY, ErrorCode.E6_03_CARD_ISSUING_COUNTRY_RESTRICTED),
  BILLING_COUNTRY_RESTRICTED(GroupKind.COUNTRY, ErrorCode.E6_35_BILLING_COUNTRY_RESTRICTED),
  CITIZENSHIP_COUNTRY_RESTRICTED(GroupKind.COUNTRY, ErrorCode.E6_36_CUSTOMER_CITIZENSHIP_COUNTRY_RESTRICTED),
  /**
   * More than {@code threshold} completed deposits with one card within the window. A deposit
   * on its way to completion counts as one: waiting for its 3-D Secure challenge (PENDING, its
   * card already screened and accepted) or authorized and waiting for its capture.
   */
  COMPLETED_DEPOSITS_PER_CARD(null, ErrorCode.E6_22_LIMIT_EXCEEDED_NUMBER_OF_COMPLETED_DEPOSITS_FOR_CARD),
  /**
   * More than {@code threshold} declined deposits with one card within the window; the screen's
   * own declines (6.xx) are not counted. A deposit whose outcome is not known yet counts as one:
   * sent to its terminal, or waiting for its 3-D Secure challenge (PENDING).
   */
  DECLINED_DEPOSITS_PER_CARD(null, ErrorCode.E6_23_LIMIT_EXCEEDED_NUMBER_OF_DECLINED_DEPOSITS_FOR_CARD);

  private final GroupKind group;
  private final ErrorCode declineCode;

  AntifraudRuleType(GroupKind group, ErrorCode declineCode) {
    this.group = group;
    this.declineCode = declineCode;
  }

  /** The kind of group the rule reads, or null for a velocity rule. */
  public GroupKind group() {
    return group;
  }

  public boolean isVelocity() {
    return group == null;
  }

  /**
   * Whether the rule screens a payment of this type. A velocity rule counts a card's deposits:
   * it limits taking money from the card, which says nothing about paying money out to it, so it
   * screens deposits only. A list (BIN, card, e-mail, country) names cards and customers the
   * shop does not deal with, either way: it screens withdrawals too.
   */
  public boolean screens(PaymentType type) {
    return !isVelocity() || type == PaymentType.DEPOSIT;
  }

  /**
   * The states of the card's deposits a velocity rule counts; empty for a list rule. A deposit
   * whose outcome is not known yet (PENDING: sent to its terminal, or waiting for its 3-D Secure
   * challenge) counts against both limits: toward "completed", or a customer could start several
   * 3-D Secure deposits of one card while none has completed yet, each passing the screen, and
   * complete them all past the limit; toward "declined", or deposits of one card sent at once,
   * each screened while the others wait for their terminals' answers, would all find no decline
   * and all reach the acquirer.
   */
  public Set<PaymentState> countedStates() {
    return switch (this) {
      case COMPLETED_DEPOSITS_PER_CARD -> Set.of(PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED);
      case DECLINED_DEPOSITS_PER_CARD -> Set.of(PaymentState.PENDING, PaymentState.DECLINED);
      default -> Set.of();
    };
  }

  /**
   * Whether a velocity rule counts card verifications, deposits of no amount (a pre-auth of 0):
   * a declined one is a declined attempt with the card, but one authorized moves no money and can
   * never complete a deposit of any, so it is none of the card's completed deposits. A rule that
   * does not count verifications does not screen one either: it has nothing to say about it.
   */
  public boolean countsVerifications() {
    return this != COMPLETED_DEPOSITS_PER_CARD;
  }

  public ErrorCode declineCode() {
    return declineCode;
  }
}
