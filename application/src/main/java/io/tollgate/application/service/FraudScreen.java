package io.tollgate.application.service;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ReferenceData.AntifraudProfile;
import io.tollgate.application.port.out.ReferenceData.AntifraudRule;
import io.tollgate.domain.antifraud.AntifraudRuleType;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.group.EmailAddress;
import io.tollgate.domain.group.MaskedCardNumber;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.ShopId;
import java.time.Clock;
import java.time.Duration;
import io.tollgate.application.port.out.GroupRepository.Member;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The shop's anti-fraud profile applied to a payment before any processor sees it. The rules
 * that screen the payment's type ({@link AntifraudRuleType#screens}) run in the profile's order; the first one that hits declines the payment with its code, and the
 * verdict names the rule and the group so the merchant can see why.
 */
final class FraudScreen {

  /** What the screen found: {@code hit} is null when every rule passed. */
  record Verdict(AntifraudProfile profile, ErrorCode hit, String details) {}

  private final ReferenceData reference;
  private final GroupRepository groups;
  private final SecretBox secrets;
  private final Clock clock;

  FraudScreen(ReferenceData reference, GroupRepository groups, SecretBox secrets, Clock clock) {
    this.reference = reference;
    this.groups = groups;
    this.secrets = secrets;
    this.clock = clock;
  }

  /**
   * Whether the shop's profile has a velocity rule that counts a card's deposits: a step that
   * screens a deposit with a card of the shop must then hold the card's lock
   * ({@link io.tollgate.application.port.out.PaymentRepository#lockCard}) before the screen
   * counts. Asks the same cached profile as {@link #screen}.
   */
  boolean countsCardDeposits(ShopId shop) {
    return reference.antifraudProfileOfShop(shop.value()).stream().flatMap(profile -> profile.rules().stream())
        .anyMatch(rule -> isVelocity(rule.rule()) && rule.threshold() != null && rule.windowMinutes() != null);
  }

  private static boolean isVelocity(String rule) {
    try {
      return AntifraudRuleType.valueOf(rule).isVelocity();
    } catch (IllegalArgumentException e) {
      return false; // a rule this version does not know is skipped by the screen too
    }
  }

  /**
   * Empty when the shop has no anti-fraud profile. Every group the rules name is read in one
   * query and every membership they ask about in one more, whatever the number of rules.
   */
  Optional<Verdict> screen(Payment p, Supplier<String> cardNumber) {
    Optional<AntifraudProfile> found = reference.antifraudProfileOfShop(p.shopId().value());
    if (found.isEmpty()) {
      return Optional.empty();
    }
    AntifraudProfile profile = found.get();
    String digits = p.card() == null || p.card().cardToken() == null ? null : cardNumber.get();
    List<RuleToRun> rules = new ArrayList<>();
    for (AntifraudRule rule : profile.rules()) {
      AntifraudRuleType type;
      try {
        type = AntifraudRuleType.valueOf(rule.rule());
      } catch (IllegalArgumentException e) {
        continue; // a rule this version does not know is skipped, never guessed at
      }
      if (type.screens(p.type())) {
        rules.add(new RuleToRun(type, rule));
      }
    }
    // The groups, their memberships and the velocity counts in one round trip: a card rule's
    // value depends on how its group stores cards, not yet known here, so both forms are asked
    // about; a velocity rule only asks whether its threshold is reached, so counting stops there.
    Set<Long> groupIds = new LinkedHashSet<>();
    Set<Member> candidates = new LinkedHashSet<>();
    List<GroupRepository.CardCount> counts = new ArrayList<>();
    int[] countOf = new int[rules.size()]; // each rule's place among the counts, or -1
    for (int i = 0; i < rules.size(); i++) {
      RuleToRun r = rules.get(i);
      Long groupId = r.rule().groupId();
      if (groupId != null) {
        groupIds.add(groupId);
        candidates.addAll(candidates(r.type(), groupId, p, digits));
      }
      GroupRepository.CardCount count = velocityCount(r, p);
      countOf[i] = count == null ? -1 : counts.size();
      if (count != null) {
        counts.add(count);
      }
    }
    GroupRepository.Lookup lookup = groups.lookup(groupIds, candidates, counts);
    Map<Long, GroupRepository.GroupRecord> named = lookup.groups();
    Set<Member> held = lookup.held();
    for (int i = 0; i < rules.size(); i++) {
      RuleToRun r = rules.get(i);
      GroupRepository.GroupRecord group = r.rule().groupId() == null ? null : named.get(r.rule().groupId());
      Integer count = countOf[i] < 0 ? null : lookup.counts().get(countOf[i]);
      String why = check(r.type(), r.rule(), group, p, digits, held, count);
      if (why != null) {
        return Optional.of(new Verdict(profile, r.type().declineCode(),
            "anti-fraud profile '" + profile.name() + "', rule " + r.type().name() + ": " + why));
      }
    }
    return Optional.of(new Verdict(profile, null,
        "anti-fraud profile '" + profile.name() + "': " + rules.size() + " rules passed"));
  }

  private record RuleToRun(AntifraudRuleType type, AntifraudRule rule) {}

  /**
   * The values a group rule may compare with its group, most specific first; for a card, both
   * the forms a group can store it in.
   */
  private List<Member> candidates(AntifraudRuleType type, long id, Payment p, String digits) {
    List<Member> out = new ArrayList<>();
    switch (type) {
      case BIN_BLACKLIST -> {
        if (digits != null) {
          out.addAll(bins(id, digits));
        }
      }
      case CARD_BLACKLIST, CARD_WHITELIST -> {
        if (digits != null) {
          cardValues(true, digits).forEach(v -> out.add(new Member(id, v)));
          cardValues(false, digits).forEach(v -> out.add(new Member(id, v)));
        }
      }
      case EMAIL_BLACKLIST -> emails(p).forEach(v -> out.add(new Member(id, v)));
      case CARD_COUNTRY_RESTRICTED, BILLING_COUNTRY_RESTRICTED, CITIZENSHIP_COUNTRY_RESTRICTED -> {
        String code = countryOf(type, p);
        if (code != null) {
          out.add(new Member(id, code));
        }
      }
      default -> { }
    }
    return out;
  }

  /** A card's BINs a group may list, longest first. */
  private static List<Member> bins(long id, String digits) {
    List<Member> out = new ArrayList<>();
    for (int n = Math.min(8, digits.length()); n >= 6; n--) {
      out.add(new Member(id, digits.substring(0, n)));
    }
    return out;
  }

  /** Why the rule hits, or null when it does not. */
  private String check(AntifraudRuleType type, AntifraudRule rule, GroupRepository.GroupRecord group, Payment p,
      String digits, Set<Member> held, Integer count) {
    if (!type.isVelocity() && group == null) {
      return null; // the group is gone: nothing to match
    }
    String inGroup = group == null ? null : " is in group '" + group.name() + "' (#" + group.id() + ")";
    return switch (type) {
      case BIN_BLACKLIST -> {
        for (Member m : digits == null ? List.<Member>of() : bins(group.id(), digits)) {
          if (held.contains(m)) {
            // the card as masked, not the BIN matched: 8 leading digits of a 13-digit card and its
            // masked last 4 gave 12 of 13 digits, and the Luhn check the last. Nor how many digits
            // matched, which picks one of the group's entries when BINs of other lengths share a prefix.
            yield "BIN of card " + Pan.mask(digits) + inGroup;
          }
        }
        yield null;
      }
      case CARD_BLACKLIST -> digits != null && holdsCard(group, digits, held)
          ? "card " + Pan.mask(digits) + inGroup : null;
      case CARD_WHITELIST -> digits != null && !holdsCard(group, digits, held)
          ? "card " + Pan.mask(digits) + " is not in group" + inGroup.substring(" is in group".length()) : null;
      case EMAIL_BLACKLIST -> emails(p).stream().anyMatch(v -> held.contains(new Member(group.id(), v)))
          ? "e-mail " + email(p) + inGroup : null;
      case CARD_COUNTRY_RESTRICTED, BILLING_COUNTRY_RESTRICTED, CITIZENSHIP_COUNTRY_RESTRICTED -> {
        String code = countryOf(type, p);
        String what = switch (type) {
          case CARD_COUNTRY_RESTRICTED -> "card issuing country ";
          case BILLING_COUNTRY_RESTRICTED -> "billing country ";
          default -> "citizenship country ";
        };
        yield code != null && held.contains(new Member(group.id(), code)) ? what + code + inGroup : null;
      }
      case COMPLETED_DEPOSITS_PER_CARD -> velocity(rule, count, "completed or in-progress");
      case DECLINED_DEPOSITS_PER_CARD -> velocity(rule, count, "declined or in-progress");
    };
  }

  private boolean holdsCard(GroupRepository.GroupRecord group, String digits, Set<Member> held) {
    return cardValues(group.masked(), digits).stream().anyMatch(v -> held.contains(new Member(group.id(), v)));
  }

  /**
   * The values a group holds a card as: in a masked group, the key of every entry that matches
   * it (its leading digits, 6 or more, with its last 4); otherwise the keyed fingerprint of its number.
   */
  private List<String> cardValues(boolean masked, String digits) {
    return masked ? MaskedCardNumber.keysOf(digits) : List.of(GroupService.cardFingerprint(secrets, digits));
  }

  /** The payment's e-mail as the customer wrote it, lower-case, or null. */
  private static String email(Payment p) {
    return p.customer() == null || p.customer().email() == null ? null
        : p.customer().email().strip().toLowerCase(Locale.ROOT);
  }

  /**
   * The values an e-mail group may hold the payment's address as: its {@link EmailAddress#key},
   * which every spelling of it shares, and the address as written, which entries added before
   * they were keyed hold. An address that has no key (one the request rules would refuse, kept
   * from before they did) is compared as written only: the screen declines by a list, never by
   * an address it cannot read.
   */
  private static List<String> emails(Payment p) {
    String written = email(p);
    if (written == null) {
      return List.of();
    }
    String key;
    try {
      key = new EmailAddress(written).key();
    } catch (IllegalArgumentException e) {
      return List.of(written);
    }
    return key.equals(written) ? List.of(key) : List.of(key, written);
  }

  private static String countryOf(AntifraudRuleType type, Payment p) {
    String code = switch (type) {
      case CARD_COUNTRY_RESTRICTED -> p.card() == null ? null : p.card().issuingCountry();
      case BILLING_COUNTRY_RESTRICTED -> p.billingAddress() == null ? null : p.billingAddress().countryCode();
      case CITIZENSHIP_COUNTRY_RESTRICTED -> p.customer() == null ? null : p.customer().citizenshipCountryCode();
      default -> null;
    };
    return code == null ? null : code.strip().toUpperCase(Locale.ROOT);
  }

  /**
   * The count a velocity rule asks for this payment, or null when the rule has nothing to count.
   * A card verification (a deposit of 0) is screened only by the rules that count verifications:
   * it can add none of the card's completed deposits, so a limit on those says nothing about it.
   */
  private GroupRepository.CardCount velocityCount(RuleToRun r, Payment p) {
    Set<PaymentState> states = r.type().countedStates();
    AntifraudRule rule = r.rule();
    if (states.isEmpty() || p.card() == null || p.card().cardToken() == null || rule.threshold() == null
        || rule.windowMinutes() == null || (!r.type().countsVerifications() && isVerification(p))) {
      return null;
    }
    // the payment itself is not one of its card's other deposits, though its step may have made it PENDING
    return new GroupRepository.CardCount(p.shopId(), p.card().cardToken(), states, p.id(),
        clock.instant().minus(Duration.ofMinutes(rule.windowMinutes())), Math.max(0, rule.threshold()),
        r.type().countsVerifications());
  }

  private static boolean isVerification(Payment p) {
    return p.amount().amount().signum() == 0;
  }

  private static String velocity(AntifraudRule rule, Integer count, String word) {
    return count != null && count >= rule.threshold()
        ? count + " " + word + " deposits with this card in the last " + rule.windowMinutes()
            + " minutes, or still in progress (limit " + rule.threshold() + ")"
        : null;
  }
}
