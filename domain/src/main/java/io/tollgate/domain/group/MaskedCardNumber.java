package io.tollgate.domain.group;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A masked card number as a card group holds it: 6 to 8 leading digits, a mask of {@code *} or
 * {@code X}, and the 4 trailing digits, at most 19 characters in all (e.g. {@code 411111***1111},
 * or {@code 411111*1111}, which means the same). No more leading digits than a masked card number
 * may show (PCI DSS: the first 6, or 8 for the longer numbers, with the last 4): with more, an
 * entry, kept and listed in clear, would hold all but a digit or two of a card number. The mask stands for any number of digits, so the
 * entry matches a card of any length that starts with all of its leading digits and ends with
 * its 4 trailing ones; the entry's own length says nothing about the cards it matches.
 */
public record MaskedCardNumber(String value) {

  private static final Pattern FORMAT = Pattern.compile("^[0-9]{6,8}([*]+|[X]+)[0-9]{4}$");

  /** The fewest leading digits an entry has. */
  private static final int FEWEST_LEADING = 6;

  public MaskedCardNumber {
    if (value == null || value.length() > 19 || !FORMAT.matcher(value).matches()) {
      throw new IllegalArgumentException("a masked card number has 6 to 8 leading digits, a mask of '*' or 'X'"
          + " and 4 trailing digits, at most 19 characters in all");
    }
  }

  /** The digits before the mask, all of them. */
  public String leadingDigits() {
    int mask = 0;
    while (Character.isDigit(value.charAt(mask))) {
      mask++;
    }
    return value.substring(0, mask);
  }

  public String bin() {
    return value.substring(0, FEWEST_LEADING);
  }

  public String last4() {
    return value.substring(value.length() - 4);
  }

  /** The entry as the merchant API lists it: as given, with an {@code X} mask shown as {@code *}. */
  public String display() {
    return value.replace('X', '*');
  }

  /**
   * What matching compares, whatever the length of the mask: the leading digits, one {@code *},
   * the last 4 ({@code 411111*1111}). Two entries with the same key block the same cards.
   */
  public String key() {
    return key(leadingDigits(), last4());
  }

  /**
   * The keys of every entry that matches this card number: its first 6, 7, ... digits with its
   * last 4, as long as the mask still stands for at least one digit.
   *
   * @param digits a card number, digits only
   */
  public static List<String> keysOf(String digits) {
    List<String> keys = new ArrayList<>();
    String last4 = digits.substring(Math.max(0, digits.length() - 4));
    for (int n = FEWEST_LEADING; n <= digits.length() - 5; n++) {
      keys.add(key(digits.substring(0, n), last4));
    }
    return keys;
  }

  private static String key(String leading, String last4) {
    return leading + "*" + last4;
  }
}
