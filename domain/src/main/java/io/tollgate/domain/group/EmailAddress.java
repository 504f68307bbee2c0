package io.tollgate.domain.group;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An e-mail address, kept lower-case. Its domain may be internationalised, written in Unicode
 * (ivan@пример.рф) or as the DNS has it (ivan@xn--e1afmkfd.xn--p1ai): each label must be a host
 * name's once the domain is in ASCII, and the top-level one letters or an IDN's {@code xn--} form.
 */
public record EmailAddress(String value) {

  private static final Pattern LOCAL = Pattern.compile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$");
  private static final Pattern LABEL = Pattern.compile("^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$");
  private static final Pattern TLD = Pattern.compile("^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$");

  public EmailAddress {
    if (value == null || !isValid(value.strip())) {
      throw new IllegalArgumentException("not a valid e-mail address");
    }
    value = value.strip().toLowerCase(Locale.ROOT);
  }

  private static boolean isValid(String v) {
    if (v.length() > 254) {
      return false;
    }
    int at = v.indexOf('@');
    if (at <= 0 || at != v.lastIndexOf('@')) {
      return false;
    }
    String local = v.substring(0, at);
    String domain;
    try {
      domain = java.net.IDN.toASCII(v.substring(at + 1));
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (local.length() + 1 + domain.length() > 254) {
      return false;
    }
    if (!LOCAL.matcher(local).matches() || local.startsWith(".") || local.endsWith(".") || local.contains("..")) {
      return false;
    }
    String[] labels = domain.split("\\.", -1);
    if (labels.length < 2) {
      return false;
    }
    for (String label : labels) {
      if (!LABEL.matcher(label).matches()) {
        return false;
      }
    }
    return TLD.matcher(labels[labels.length - 1]).matches();
  }
}
