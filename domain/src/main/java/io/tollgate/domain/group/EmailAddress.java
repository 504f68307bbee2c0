package io.tollgate.domain.group;

import java.net.IDN;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An e-mail address, kept lower-case. Its domain may be internationalised, written in Unicode
 * (ivan@пример.рф) or as the DNS has it (ivan@xn--e1afmkfd.xn--p1ai): each label must be a host
 * name's once the domain is in ASCII, and the top-level one letters or an IDN's {@code xn--} form.
 * The value is the address as written; {@link #key} is the one address every spelling names.
 */
public record EmailAddress(String value) {

  private static final Pattern LOCAL = Pattern.compile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$");
  private static final Pattern LABEL = Pattern.compile("^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$");
  private static final Pattern TLD = Pattern.compile("^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$");

  public EmailAddress {
    // the form kept is the one checked, so that key() takes the domain to ASCII as the check did
    value = value == null ? null : value.strip().toLowerCase(Locale.ROOT);
    if (value == null || !isValid(value)) {
      throw new IllegalArgumentException("not a valid e-mail address");
    }
  }

  /**
   * The address as a list compares it: the local part lower-case, the domain in ASCII as
   * {@link IDN#toASCII} has it (the form checked above, and the one mail is routed by),
   * lower-case. One address written another way, in Unicode or punycode, with a soft hyphen or a
   * zero-width space (dropped), an ideographic full stop (a dot), fullwidth letters or 'ß' ("ss"),
   * has one key, so that a list that holds the address holds every spelling a customer could give.
   * A punycode label is read as the Unicode it encodes first, so that "xn--strae-oqa" is "straße"
   * and has its key; one that encodes no single label's Unicode keeps its key as written.
   */
  public String key() {
    int at = value.indexOf('@');
    return value.substring(0, at) + "@" + Arrays.stream(IDN.toASCII(value.substring(at + 1)).split("\\.", -1))
        .map(label -> keyOf(label.toLowerCase(Locale.ROOT))).collect(Collectors.joining("."));
  }

  /** A punycode label as the Unicode it encodes is in ASCII; any other label as it is. */
  private static String keyOf(String label) {
    String unicode = label.startsWith("xn--") ? Punycode.decode(label.substring(4)) : null;
    if (unicode == null) {
      return label;
    }
    String ascii;
    try {
      ascii = IDN.toASCII(unicode).toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      return label;
    }
    return LABEL.matcher(ascii).matches() ? ascii : label;
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
      domain = IDN.toASCII(v.substring(at + 1));
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
