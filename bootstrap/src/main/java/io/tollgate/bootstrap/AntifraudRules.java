package io.tollgate.bootstrap;

import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.ReferenceData.AntifraudRule;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.antifraud.AntifraudRuleType;
import io.tollgate.domain.shop.MerchantId;
import java.util.Locale;

/** Reads an operator's rule: {@code TYPE=GROUP_ID} or, for velocity rules, {@code TYPE=COUNT/MINUTES}. */
final class AntifraudRules {

  private AntifraudRules() {}

  static AntifraudRule parse(String text, MerchantId merchant, GroupRepository groups) {
    String[] parts = text.split("=", 2);
    AntifraudRuleType type;
    try {
      type = AntifraudRuleType.valueOf(parts[0].strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw bad(text, "unknown rule type " + parts[0]);
    }
    if (parts.length < 2) {
      throw bad(text, type.isVelocity() ? "give COUNT/MINUTES" : "give the group id");
    }
    try {
      if (type.isVelocity()) {
        String[] limit = parts[1].split("/");
        int count = Integer.parseInt(limit[0].strip());
        int minutes = Integer.parseInt(limit[1].strip());
        if (count < 0 || minutes <= 0) {
          throw bad(text, "COUNT must be 0 or more and MINUTES positive");
        }
        return new AntifraudRule(0, type.name(), null, count, minutes);
      }
      long groupId = Long.parseLong(parts[1].strip());
      groups.find(groupId).filter(g -> g.kind() == type.group() && g.merchantId().equals(merchant))
          .orElseThrow(() -> bad(text, "group " + groupId + " is not a " + type.group() + " group of the merchant"));
      return new AntifraudRule(0, type.name(), groupId, null, null);
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      throw bad(text, type.isVelocity() ? "give COUNT/MINUTES, e.g. 3/60" : "give the group id");
    }
  }

  private static DomainException.Invalid bad(String rule, String why) {
    return new DomainException.Invalid(Violation.of("rule", why, rule));
  }
}
