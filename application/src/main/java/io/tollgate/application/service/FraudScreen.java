package io.tollgate.application.service;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ReferenceData.AntifraudProfile;
import io.tollgate.application.port.out.ReferenceData.AntifraudRule;
import io.tollgate.domain.antifraud.AntifraudRuleType;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.group.MaskedCardNumber;
import io.tollgate.domain.payment.CardBrands;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentState;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * The shop's anti-fraud profile applied to a payment before any processor sees it. Rules run
 * in the profile's order; the first one that hits declines the payment with its code, and the
 * verdict names the rule and the group so the merchant can see why.
 */
final class FraudScreen {

  /** What the screen found: {@code hit} is null when every rule passed. */
  record Verdict(AntifraudProfile profile, ErrorCode hit, String details) {}

  private final ReferenceData reference;
  private final GroupRepository groups;
  private final PaymentRepository payments;
  private final CardVault cardVault;
  private final SecretBox secrets;
  private final Clock clock;

  FraudScreen(ReferenceData reference, GroupRepository groups, PaymentRepository payments, CardVault cardVault,
      SecretBox secrets, Clock clock) {
    this.reference = reference;
    this.groups = groups;
    this.payments = payments;
    this.cardVault = cardVault;
    this.secrets = secrets;
    this.clock = clock;
  }

  /** Empty when the shop has no anti-fraud profile. */
  Optional<Verdict> screen(Payment p) {
    Optional<AntifraudProfile> found = reference.antifraudProfileOfShop(p.shopId().value());
    if (found.isEmpty()) {
      return Optional.empty();
    }
    AntifraudProfile profile = found.get();
    String digits = p.card() == null || p.card().cardToken() == null ? null
        : cardVault.reveal(p.shopId(), p.card().cardToken()).orElse(null);
    for (AntifraudRule rule : profile.rules()) {
      AntifraudRuleType type;
      try {
        type = AntifraudRuleType.valueOf(rule.rule());
      } catch (IllegalArgumentException e) {
        continue; // a rule this version does not know is skipped, never guessed at
      }
      String why = check(type, rule, p, digits);
      if (why != null) {
        return Optional.of(new Verdict(profile, type.declineCode(),
            "anti-fraud profile '" + profile.name() + "', rule " + type.name() + ": " + why));
      }
    }
    return Optional.of(new Verdict(profile, null,
        "anti-fraud profile '" + profile.name() + "': " + profile.rules().size() + " rules passed"));
  }

  /** Why the rule hits, or null when it does not. */
  private String check(AntifraudRuleType type, AntifraudRule rule, Payment p, String digits) {
    String inGroup = rule.groupId() == null ? null
        : groups.find(rule.groupId()).map(g -> " is in group '" + g.name() + "' (#" + g.id() + ")").orElse(null);
    if (!type.isVelocity() && inGroup == null) {
      return null; // the group is gone: nothing to match
    }
    return switch (type) {
      case BIN_BLACKLIST -> {
        if (digits == null) {
          yield null;
        }
        for (int n = Math.min(8, digits.length()); n >= 6; n--) {
          if (groups.contains(rule.groupId(), digits.substring(0, n))) {
            yield "BIN " + digits.substring(0, n) + inGroup;
          }
        }
        yield null;
      }
      case CARD_BLACKLIST -> digits != null && cardListed(rule.groupId(), digits)
          ? "card " + CardBrands.mask(digits) + inGroup : null;
      case CARD_WHITELIST -> digits != null && !cardListed(rule.groupId(), digits)
          ? "card " + CardBrands.mask(digits) + " is not in group" + inGroup.substring(" is in group".length()) : null;
      case EMAIL_BLACKLIST -> {
        String email = p.customer() == null || p.customer().email() == null ? null
            : p.customer().email().strip().toLowerCase(Locale.ROOT);
        yield email != null && groups.contains(rule.groupId(), email) ? "e-mail " + email + inGroup : null;
      }
      case CARD_COUNTRY_RESTRICTED -> country(rule, p.card() == null ? null : p.card().issuingCountry(),
          "card issuing country ", inGroup);
      case BILLING_COUNTRY_RESTRICTED -> country(rule,
          p.billingAddress() == null ? null : p.billingAddress().countryCode(), "billing country ", inGroup);
      case CITIZENSHIP_COUNTRY_RESTRICTED -> country(rule,
          p.customer() == null ? null : p.customer().citizenshipCountryCode(), "citizenship country ", inGroup);
      case COMPLETED_DEPOSITS_PER_CARD -> velocity(rule, p, PaymentState.COMPLETED, "completed");
      case DECLINED_DEPOSITS_PER_CARD -> velocity(rule, p, PaymentState.DECLINED, "declined");
    };
  }

  private boolean cardListed(long groupId, String digits) {
    GroupRepository.GroupRecord group = groups.find(groupId).orElseThrow();
    String value = group.masked() ? new MaskedCardNumber(CardBrands.mask(digits)).canonical()
        : GroupService.cardFingerprint(secrets, digits);
    return groups.contains(groupId, value);
  }

  private String country(AntifraudRule rule, String code, String what, String inGroup) {
    if (code == null) {
      return null;
    }
    String upper = code.strip().toUpperCase(Locale.ROOT);
    return groups.contains(rule.groupId(), upper) ? what + upper + inGroup : null;
  }

  private String velocity(AntifraudRule rule, Payment p, PaymentState state, String word) {
    if (p.card() == null || p.card().cardToken() == null || rule.threshold() == null || rule.windowMinutes() == null) {
      return null;
    }
    int count = payments.countCardDeposits(p.shopId(), p.card().cardToken(), state,
        clock.instant().minus(Duration.ofMinutes(rule.windowMinutes())));
    return count >= rule.threshold()
        ? count + " " + word + " deposits with this card in the last " + rule.windowMinutes()
            + " minutes (limit " + rule.threshold() + ")"
        : null;
  }
}
