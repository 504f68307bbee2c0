package io.tollgate.domain.user;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** What a merchant user may change, beyond reading its merchant's records. */
public enum Permission {
  SHOP_GROUP_VIEW,
  SHOP_GROUP_EDIT,
  /** The spec's "Edit Shops": BIN, e-mail, card and error-code groups, webhook resends. */
  SHOP_EDIT,
  SETTINGS_EDIT;

  /** Parses a comma-separated list such as {@code SHOP_EDIT,SETTINGS_EDIT}; {@code ALL} means every one. */
  public static Set<Permission> parseList(String list) {
    Set<Permission> result = EnumSet.noneOf(Permission.class);
    if (list == null || list.isBlank()) {
      return result;
    }
    for (String part : list.split(",")) {
      String name = part.strip().toUpperCase(Locale.ROOT);
      if (name.equals("ALL")) {
        result.addAll(EnumSet.allOf(Permission.class));
      } else if (!name.isEmpty()) {
        result.add(Permission.valueOf(name));
      }
    }
    return result;
  }
}
