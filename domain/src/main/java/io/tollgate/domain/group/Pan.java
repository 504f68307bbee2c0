package io.tollgate.domain.group;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A full card number (primary account number): 12 to 19 digits, Luhn-valid. Spaces and dashes
 * are ignored. Its {@link #toString()} is masked so that it cannot leak into a log by accident.
 */
public final class Pan {

  private final String digits;

  public Pan(String raw) {
    if (raw == null) {
      throw new IllegalArgumentException("a card number is required");
    }
    String cleaned = raw.replaceAll("[ -]", "");
    if (!cleaned.matches("^[0-9]{12,19}$")) {
      throw new IllegalArgumentException("a card number has 12 to 19 digits");
    }
    if (!luhnValid(cleaned)) {
      throw new IllegalArgumentException("not a valid card number (Luhn check failed)");
    }
    this.digits = cleaned;
  }

  public String digits() {
    return digits;
  }

  /** As it may be shown: {@link #mask}. */
  public String masked() {
    return mask(digits);
  }

  /** The fewest digits of a card number a masked one hides: with the Luhn check, 10,000 numbers fit. */
  private static final int HIDDEN = 5;

  /**
   * A card number's digits as they may be shown, the rest as '*': the first 6 (its BIN) and the
   * last 4 when that hides 5 or more, as for 15 digits or more; a shorter number shows fewer of
   * its first digits, to hide 5 all the same. Shown as 6 and 4, a 12-digit number kept 10 of its
   * 12 digits, and the Luhn check left 10 numbers to try.
   */
  public static String mask(String digits) {
    int n = digits.length();
    int last = Math.max(0, Math.min(4, n - HIDDEN));
    int first = Math.max(0, Math.min(6, n - HIDDEN - last));
    return digits.substring(0, first) + "*".repeat(n - first - last) + digits.substring(n - last);
  }

  public static boolean luhnValid(String digits) {
    if (digits == null || digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
      return false;
    }
    int sum = 0;
    boolean twice = false;
    for (int i = digits.length() - 1; i >= 0; i--) {
      int d = digits.charAt(i) - '0';
      if (twice) {
        d *= 2;
        if (d > 9) {
          d -= 9;
        }
      }
      sum += d;
      twice = !twice;
    }
    return sum % 10 == 0;
  }

  /**
   * Masks as {@link #mask} does (its first 6 and last 4 digits kept, fewer of a shorter number)
   * everything in {@code text} that can be a card number, so that text a client sent can be
   * echoed back or logged without exposing one. A card number has 12 to 19 digits (ISO/IEC 7812,
   * as this class takes them; here digits of any script, full-width ones too, shown masked in
   * ASCII digits), written together or in groups split by spaces, dashes, slashes or plus signs
   * of any kind (a no-break space, an en dash, an invisible zero-width space or soft hyphen),
   * written as they are or URL-encoded ({@code %20}, {@code %E2%80%93}), up to
   * {@value #MAX_SEPARATOR} of them
   * ({@code 4111 1111 1111 1111}, {@code 4111 - 1111 - 1111 - 1111}, {@code 4111+1111+1111+1111});
   * a run of such groups is masked whole when some of its consecutive groups hold 12 to 19
   * digits. Groups split by one punctuation mark or symbol (a dot, colon, underscore, comma, bar,
   * bullet and the like, as it is or URL-encoded, with a space on either side or none) are masked
   * only when they are grouped as a card number is, one mark throughout
   * ({@code 4111.1111.1111.1111}, {@code 3782:822463:10005}, {@code 4111, 1111, 1111, 1111}),
   * since times, amounts, lists, addresses and identifiers are written so too. Not a line break:
   * numbers on lines of their own are not one number. Luhn does not
   * matter: a mistyped card number is all but the real one. Not masked: a longer number (20
   * digits or more are no card number), and digits inside an identifier (a word of
   * {@value #IDENTIFIER_LENGTH} or more hex characters such as a payment id or a hash, or a UUID).
   * The error envelopes and the logs both mask with this.
   */
  public static String maskForDisplay(String text) {
    return masked(text, false);
  }

  /**
   * {@code text} with each card number in it that passes the Luhn check masked as
   * {@link #maskForDisplay} masks: for text that is kept, where a number that only looks like a
   * card number (an order number of 12 digits or more, nine in ten of which fail the check) is
   * better left as it is.
   */
  public static String maskLuhnValid(String text) {
    return masked(text, true);
  }

  /** {@code text} with its card numbers masked; with {@code luhn}, only those that pass the check. */
  private static String masked(String text, boolean luhn) {
    if (text == null || digits(text) < MIN_DIGITS) {
      return text;
    }
    // A card's own grouping by punctuation first: a card number grouped so and followed by a
    // slash and another number would otherwise be read with it as one run, its first digits left
    // in clear and its last group taken into the run's masking.
    String dotted = maskDotted(text, luhn);
    String base = dotted == null ? text : dotted;
    // Identifiers only take digits out of runs, so text with nothing to mask while they are
    // ignored has nothing to mask at all. Most log lines are such text (an access-log line
    // names a payment id), and finding identifiers costs more than this first scan.
    String masked = mask(base, null, luhn) == null ? null : mask(base, identifiers(base), luhn);
    return masked == null ? base : masked;
  }

  /**
   * Whether {@code text} holds a card number that passes the Luhn check, found as
   * {@link #maskForDisplay} finds them: for text that is only kept when it holds none, such as a
   * caller's request id, where a date-based or sequential number of 12 digits or more should not
   * be taken for one.
   */
  public static boolean holdsLuhnValidCardNumber(String text) {
    return text != null && digits(text) >= MIN_DIGITS
        && (mask(text, null, true) != null && mask(text, identifiers(text), true) != null
            || maskDotted(text, true) != null);
  }

  /**
   * {@code text} with each card number written in groups split by a punctuation mark or symbol
   * (dots, colons, underscores, commas and the like, {@link #gapAt}) masked, or null when it holds
   * none. These also split times, dates, amounts, lists, versions, addresses and the words of an
   * identifier, so here only a card's own grouping counts: one mark throughout, a first group
   * of four digits, then groups of four ({@code 4111.1111.1111.1111}, up to 19 digits with a
   * shorter last group) or the six-digit middle group of a 14- or 15-digit card
   * ({@code 3782:822463:10005}); a run that goes on past such groups is no card number (an
   * IPv6 address of digits alone is one of those).
   */
  private static String maskDotted(String text, boolean luhn) {
    if (!holdsDottedGroup(text)) {
      return null;
    }
    Matcher run = DOTTED_RUN.matcher(text);
    Matcher goingOn = DOTTED_RUN_ON.matcher(text).useTransparentBounds(true).useAnchoringBounds(false);
    StringBuilder out = null;
    int copied = 0;
    while (run.find()) {
      int from = run.start();
      String groups = run.group();
      while (true) {
        // each stretch of the run grouped by one mark: the whole run when it has one, and else
        // what a list's "1. ", a reference's "12345, " or a "; 2. ..." after it sets off
        List<int[]> stretches = stretches(groups);
        for (int[] stretch : stretches) {
          int start = from + stretch[0];
          if (start < copied) {
            continue;
          }
          String part = groups.substring(stretch[0], stretch[1]);
          if (inAddress(text, start) && colonGrouped(part)) {
            continue;
          }
          String digits = cardGrouping(part);
          if (digits == null || luhn && !luhnValid(digits)) {
            continue;
          }
          out = out == null ? new StringBuilder(text.length()) : out;
          out.append(text, copied, start)
              .append(mask(digits));
          copied = from + stretch[1];
        }
        // A run ends after at most MAX_GROUPS + 1 groups, and never just before a dot and a digit,
        // so a list of cards ("1. 4539.1488.0343.6467; 2. 5555.5555.5555.4444", or three cards
        // split by "; ") ends a run within its second card or after it, and what follows it can
        // start no run (it follows a digit and a gap). So the text is read on from the run's last
        // stretch, where its mark last changed; a run of one mark throughout goes on no further,
        // as a longer run is no card number.
        int end = from + groups.length();
        int last = from + stretches.get(stretches.size() - 1)[0];
        if (last == from) {
          break;
        }
        goingOn.region(last, text.length());
        if (!goingOn.lookingAt() || goingOn.end() <= end) {
          break;
        }
        from = last;
        groups = goingOn.group();
      }
    }
    return out == null ? null : out.append(text, copied, text.length()).toString();
  }

  /**
   * Where a card may stand in {@code run}: its stretches of one mark ({@link #sameMarkStretches}),
   * and of one gap, spaces and all, for a card grouped by the mark that sets off what comes before
   * or after it ({@code 1. 4539.1488...}); by start, the longer first.
   */
  private static List<int[]> stretches(String run) {
    List<int[]> byMark = sameMarkStretches(run, false);
    List<int[]> byGap = sameMarkStretches(run, true);
    if (byGap.size() == byMark.size()) {
      return byMark; // the spaces split nothing the marks do not
    }
    List<int[]> all = new ArrayList<>(byMark);
    all.addAll(byGap);
    all.sort((x, y) -> x[0] != y[0] ? Integer.compare(x[0], y[0]) : Integer.compare(y[1], x[1]));
    return all;
  }

  /**
   * The stretches of {@code run} (groups of digits split by gaps, {@link #gapAt}) whose gaps all
   * have one mark (with {@code spacesCount}, are one gap, the spaces around the mark too), each as
   * far as it goes: from the run's start or a group whose gap before it has another mark, to the
   * run's end or a group whose gap after it has another mark. A group set off by the mark of its
   * own grouping starts none: {@code 4111.1111.1111.1111.1111.1111} is one stretch, and no card
   * number.
   *
   * @return the stretches' start and end offsets in {@code run}, in order
   */
  private static List<int[]> sameMarkStretches(String run, boolean spacesCount) {
    List<int[]> stretches = new ArrayList<>();
    int stretchStart = 0;
    String stretchMark = null;
    int i = 0;
    while (i < run.length()) {
      int group = i;
      while (i < run.length() && isDigit(run.charAt(i))) {
        i++;
      }
      int gap = i == group || i == run.length() ? 0 : gapAt(run, i);
      if (gap == 0) {
        break;
      }
      String mark = spacesCount ? run.substring(i, i + gap) : markOf(run.substring(i, i + gap));
      if (stretchMark != null && !stretchMark.equals(mark)) {
        stretches.add(new int[] {stretchStart, i});
        stretchStart = group;
      }
      stretchMark = mark;
      i += gap;
    }
    stretches.add(new int[] {stretchStart, i});
    return stretches;
  }

  /** The mark of a gap ({@link #gapAt}) without the spaces around it, URL-encoded ones in capitals. */
  private static String markOf(String gap) {
    StringBuilder mark = new StringBuilder();
    gap.chars().filter(ch -> !isGapSpace((char) ch)).forEach(mark::appendCodePoint);
    return mark.toString().toUpperCase(java.util.Locale.ROOT);
  }

  /** Whether the groups of {@code run} are split by colons, as an IPv6 address's are. */
  private static boolean colonGrouped(String run) {
    int i = 0;
    while (i < run.length() && isDigit(run.charAt(i))) {
      i++;
    }
    int gap = i == run.length() ? 0 : gapAt(run, i);
    String mark = gap == 0 ? "" : markOf(run.substring(i, i + gap));
    return mark.equals(":") || mark.equals("%3A");
  }

  /**
   * Whether {@code text} has four digits followed by a gap of one mark ({@link #gapAt}) and a
   * digit, as every card number {@link #maskDotted} masks starts: most text does not, and is
   * spared the pattern.
   */
  private static boolean holdsDottedGroup(String text) {
    int digitsInRow = 0;
    for (int i = 0; i < text.length() - 1; i++) {
      char c = text.charAt(i);
      if (isDigit(c)) {
        digitsInRow++;
      } else {
        if (digitsInRow >= 4) {
          int gap = gapAt(text, i);
          if (gap > 0 && i + gap < text.length() && isDigit(text.charAt(i + gap))) {
            return true;
          }
        }
        digitsInRow = 0;
      }
    }
    return false;
  }

  /**
   * How many characters of one punctuation mark or symbol that may group a card number's digits
   * (besides the separators {@link #separatorAt} takes) start at {@code at}, written as it is or
   * URL-encoded: 0 for none.
   */
  private static int markAt(String text, int at) {
    char c = text.charAt(at);
    if (c == '%') {
      int decoded = hexByte(text, at + 1);
      if (decoded < 0) {
        return 1; // a percent sign of its own
      }
      return decoded < 0x80 && (decoded == '%' || isMark(decoded)) ? 3 : 0;
    }
    return isMark(c) ? 1 : 0;
  }

  /**
   * Whether {@code c} is punctuation or a symbol ({@code . , : ; _ | * ~ # = ' " ! ? $ @ & ^ ( ) [ ]},
   * a bullet, a middle dot), other than the separators {@link #separatorAt} takes and a percent
   * sign (which {@link #markAt} reads as a URL-encoded character where one follows).
   */
  private static boolean isMark(int c) {
    if (c == '/' || c == '+' || c == '%' || c == 0x2212 || c == 0xFF0B || c == 0xFF0F) {
      return false;
    }
    return switch (Character.getType(c)) {
      case Character.CONNECTOR_PUNCTUATION, Character.START_PUNCTUATION, Character.END_PUNCTUATION,
          Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION, Character.OTHER_PUNCTUATION,
          Character.MATH_SYMBOL, Character.CURRENCY_SYMBOL, Character.MODIFIER_SYMBOL, Character.OTHER_SYMBOL -> true;
      default -> false;
    };
  }

  /**
   * How many characters of one gap of a card's own grouping by a mark start at {@code at}: the
   * mark ({@link #markAt}), with a space or tab on either side or none ({@code 4111, 1111}); 0
   * for none.
   */
  private static int gapAt(String text, int at) {
    int i = at;
    if (i < text.length() && isGapSpace(text.charAt(i))) {
      i++;
    }
    int mark = i < text.length() ? markAt(text, i) : 0;
    if (mark == 0) {
      return 0;
    }
    i += mark;
    if (i < text.length() && isGapSpace(text.charAt(i))) {
      i++;
    }
    return i - at;
  }

  /** A space or invisible character ({@link #isSeparator}) around a gap's mark: not a dash, slash or plus sign. */
  private static boolean isGapSpace(char c) {
    return c == ' ' || c == '\t' || c >= 0x80 && isSeparator(c) && Character.getType(c) != Character.DASH_PUNCTUATION
        && c != 0x2212 && c != 0xFF0B && c != 0xFF0F || (c < 0x20 || c == 0x7F) && isSeparator(c);
  }

  /**
   * Whether a run starting at {@code start} right after a colon goes on from an address (an IPv6
   * address's group of one to four hex characters, or its {@code ::}) rather than a key such as
   * {@code pan:} or {@code cardNumber:}, whose card number is masked.
   */
  private static boolean inAddress(String text, int start) {
    if (start == 0 || text.charAt(start - 1) != ':') {
      return false;
    }
    int word = start - 1;
    while (word > 0 && isAsciiLetterOrDigit(text.charAt(word - 1))) {
      word--;
    }
    int length = start - 1 - word;
    if (length == 0) {
      return true;
    }
    if (length > 4) {
      return false;
    }
    for (int i = word; i < start - 1; i++) {
      if (Character.digit(text.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The digits of {@code run} (groups of digits split by gaps of one mark, {@link #gapAt}) when
   * it is grouped as a card number is, with one mark throughout, else null.
   */
  private static String cardGrouping(String run) {
    if (run.length() < 15) {
      return null;
    }
    List<String> digitGroups = new ArrayList<>();
    String mark = null;
    int i = 0;
    while (i < run.length()) {
      int group = i;
      while (i < run.length() && isDigit(run.charAt(i))) {
        i++;
      }
      if (i == group) {
        return null;
      }
      digitGroups.add(run.substring(group, i));
      if (i == run.length()) {
        break;
      }
      int gap = gapAt(run, i);
      if (gap == 0) {
        return null;
      }
      // one mark throughout, written one way: "4111.1111%2E1111" is not grouped as a card is
      String thisMark = markOf(run.substring(i, i + gap));
      if (mark != null && !mark.equals(thisMark)) {
        return null;
      }
      mark = thisMark;
      i += gap;
    }
    String[] groups = digitGroups.toArray(String[]::new);
    int total = 0;
    for (String group : groups) {
      total += group.length();
    }
    if (total < 13 || total > MAX_DIGITS || groups[0].length() != 4) {
      return null;
    }
    boolean byFours = groups.length >= 4 && groups.length <= 5;
    for (int g = 1; g < groups.length - 1; g++) {
      byFours &= groups[g].length() == 4;
    }
    byFours &= groups[groups.length - 1].length() <= 4;
    boolean sixInTheMiddle = groups.length == 3 && groups[1].length() == 6
        && (groups[2].length() == 4 || groups[2].length() == 5);
    return byFours || sixInTheMiddle ? ascii(String.join("", groups)) : null;
  }

  /**
   * {@code text} masked, or null when nothing in it is to be masked; with {@code luhn}, only
   * runs holding a Luhn-valid card number count.
   */
  private static String mask(String text, boolean[] inIdentifier, boolean luhn) {
    StringBuilder out = null;
    int copied = 0;
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (c == '%' && isEncodedPunctuation(text, i)) {
        // a URL-encoded space or mark: its hex digits are no part of a number (a percent sign
        // before a number, as in 100%4111..., is not one: it is the number that follows)
        i += 3;
        continue;
      }
      if (!isDigit(c) || inIdentifier != null && inIdentifier[i]) {
        i++;
        continue;
      }
      int start = i;
      List<Integer> groups = new ArrayList<>();
      while (true) {
        int group = i;
        while (i < n && isDigit(text.charAt(i))) {
          i++;
        }
        groups.add(i - group);
        int next = i;
        for (int separators = 0; separators < MAX_SEPARATOR; separators++) {
          int length = separatorAt(text, next);
          if (length == 0) {
            break;
          }
          next += length;
        }
        if (next > i && next < n && isDigit(text.charAt(next)) && (inIdentifier == null || !inIdentifier[next])) {
          i = next;
        } else {
          break;
        }
      }
      String run = null;
      if (luhn) {
        run = digitsOf(text.substring(start, i));
      }
      if (luhn ? holdsLuhnValid(groups, run) : holdsCardNumber(groups)) {
        out = out == null ? new StringBuilder(n) : out;
        run = run == null ? digitsOf(text.substring(start, i)) : run;
        out.append(text, copied, start)
            .append(mask(run));
        copied = i;
      }
    }
    return out == null ? null : out.append(text, copied, n).toString();
  }

  /** How many characters of one separator between two groups start at {@code at}: 0 for none. */
  private static int separatorAt(String text, int at) {
    if (at >= text.length()) {
      return 0;
    }
    char c = text.charAt(at);
    if (Character.isHighSurrogate(c) && at + 1 < text.length() && Character.isLowSurrogate(text.charAt(at + 1))) {
      return isSeparator(Character.toCodePoint(c, text.charAt(at + 1))) ? 2 : 0;
    }
    if (c != '%') {
      return isSeparator(c) ? 1 : 0;
    }
    // URL-encoded: one character of one to four UTF-8 bytes
    int first = at + 2 < text.length() ? hexByte(text, at + 1) : -1;
    int bytes = first < 0x80 ? 1 : first >= 0xC0 && first < 0xE0 ? 2 : first >= 0xE0 && first < 0xF0 ? 3
        : first >= 0xF0 && first < 0xF8 ? 4 : 0;
    if (first < 0 || bytes == 0 || at + 3 * bytes > text.length()) {
      return 0;
    }
    int codePoint = bytes == 1 ? first : first & (bytes == 2 ? 0x1F : bytes == 3 ? 0x0F : 0x07);
    for (int b = 1; b < bytes; b++) {
      int next = text.charAt(at + 3 * b) == '%' ? hexByte(text, at + 3 * b + 1) : -1;
      if (next < 0x80 || next >= 0xC0) {
        return 0;
      }
      codePoint = codePoint << 6 | next & 0x3F;
    }
    // an encoded line break too: a URL holds no lines
    return isSeparator(codePoint) || codePoint == '\n' || codePoint == '\r' ? 3 * bytes : 0;
  }

  /**
   * Whether {@code c} may split the groups of a card number anywhere: a space, dash, slash or
   * plus sign of any kind, or an invisible mark (a zero-width space, a soft hyphen, a combining
   * mark). Not a line break: numbers on lines of their own (a phone number above a postcode)
   * are not one number.
   */
  private static boolean isSeparator(int c) {
    if (c == ' ' || c == '-' || c == '\t' || c == '/' || c == '+') {
      return true;
    }
    if (c < 0x80) {
      // a control character other than a line break (a backspace, an escape)
      return (c < 0x20 || c == 0x7F) && c != '\n' && c != '\r' && c != 0x0B && c != '\f';
    }
    int type = Character.getType(c);
    if (type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR || c == 0x85) {
      return false;
    }
    if (c == 0x115F || c == 0x1160 || c == 0x3164 || c == 0xFFA0 || Character.isISOControl(c)) {
      return true; // Hangul fillers, letters that show nothing; C1 controls
    }
    return Character.isSpaceChar(c) || Character.isWhitespace(c) || type == Character.DASH_PUNCTUATION
        || type == Character.FORMAT || type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
        || c == 0x2212 || c == 0xFF0B || c == 0xFF0F;
  }

  /** Whether a URL-encoded byte at {@code at} is no ASCII letter or digit. */
  private static boolean isEncodedPunctuation(String text, int at) {
    int decoded = hexByte(text, at + 1);
    return decoded >= 0 && !(decoded >= '0' && decoded <= '9' || decoded >= 'A' && decoded <= 'Z'
        || decoded >= 'a' && decoded <= 'z');
  }

  /** The byte written as two hex digits at {@code at}, or -1. */
  private static int hexByte(String text, int at) {
    if (at + 1 >= text.length()) {
      return -1;
    }
    int high = hexDigit(text.charAt(at));
    int low = hexDigit(text.charAt(at + 1));
    return high < 0 || low < 0 ? -1 : high << 4 | low;
  }

  /** The value of an ASCII hex digit, or -1: a URL encodes in ASCII only. */
  private static int hexDigit(char c) {
    return c < 0x80 ? Character.digit(c, 16) : -1;
  }

  /** The digits of a run, its separators (URL-encoded ones with their hex digits) taken out. */
  private static String digitsOf(String run) {
    StringBuilder digits = new StringBuilder(run.length());
    for (int i = 0; i < run.length(); i++) {
      char c = run.charAt(i);
      if (c == '%' && hexByte(run, i + 1) >= 0) {
        i += 2;
      } else if (isDigit(c)) {
        digits.append(c > '9' ? (char) ('0' + Character.digit(c, 10)) : c);
      }
    }
    return digits.toString();
  }

  /**
   * How a value refused from a field meant for a card number is echoed: there, 20 digits or
   * more are most likely a card number with a digit or two too many, so a value with 12 digits
   * or more is shown as its digits masked ({@link #mask}), whatever their count; a value with
   * fewer is shown as it is.
   */
  public static String maskCardField(String value) {
    if (value == null || digits(value) < MIN_DIGITS) {
      return value;
    }
    StringBuilder digits = new StringBuilder();
    value.chars().filter(c -> isDigit((char) c)).forEach(c -> digits.append((char) c));
    return mask(ascii(digits.toString()));
  }

  private static final int MIN_DIGITS = 12;
  private static final int MAX_DIGITS = 19;
  private static final int IDENTIFIER_LENGTH = 32;
  /**
   * The most separators that split two groups of one card number: a double space, or " - ", as
   * people write them, split the number no less than a single one.
   */
  private static final int MAX_SEPARATOR = 3;
  /** A mark ({@link #isMark}), as it is or URL-encoded (ASCII punctuation, {@code %2C}). */
  private static final String MARK = "(?:[\\p{Pc}\\p{Ps}\\p{Pe}\\p{Pi}\\p{Pf}\\p{Po}\\p{Sm}\\p{Sc}\\p{Sk}\\p{So}"
      + "&&[^/+%\\u2212\\uFF0B\\uFF0F]]|%(?:2[1-9AaCcEe]|3[A-Fa-f]|40|5[B-Fb-f]|60|7[B-Eb-e])|%(?![0-9A-Fa-f]{2}))";
  /** A gap of a card's own grouping by a mark ({@link #gapAt}). */
  private static final String GAP_SPACE = "[\\t\\p{Zs}\\p{Cf}\\p{Mn}\\p{Me}\\u115F\\u1160\\u3164\\uFFA0"
      + "\\x00-\\x08\\x0E-\\x1F\\x7F\\x80-\\x84\\x86-\\x9F]";
  private static final String GAP = GAP_SPACE + "?" + MARK + GAP_SPACE + "?";
  /**
   * The most groups after the first that a run is read in: more than any card's grouping has, so
   * a longer run is read as nine groups, no card number, and the rest of it cannot start one (a
   * run starts after no digit and gap). An unbounded repeat of this group recurses once per group
   * in the JDK's regex engine: 1,500 groups overflowed a request thread's stack.
   */
  private static final int MAX_GROUPS = 8;
  /** A decimal digit of any script in the Basic Multilingual Plane, as {@link #isDigit} takes it. */
  private static final String DIGIT = "[\\p{Nd}&&[\\x{0}-\\x{FFFF}]]";
  /** The groups of a run, and what may not follow it. */
  private static final String GROUPS = DIGIT + "+(?:" + GAP + DIGIT + "+){1," + MAX_GROUPS + "}(?!" + DIGIT
      + "|:[0-9A-Za-z.:]|\\." + DIGIT + ")";
  /**
   * Groups of digits split by gaps of one punctuation mark, not part of a longer run: no digit
   * just before (but a URL-encoded character), nor a digit and a gap (a colon may be a key's,
   * {@link #inAddress}); a word may touch it, as in {@code ref4111.1111.1111.1111x}; and after
   * it no digit, nor a colon going on, nor a dot before a digit (a dot ending a sentence, or an
   * ellipsis, may follow: {@code card 4111.1111.1111.1111...}).
   */
  private static final Pattern DOTTED_RUN = Pattern.compile(
      "(?:(?<!" + DIGIT + ")|(?<=%[0-9A-Fa-f]{2}))(?<!" + DIGIT + GAP + ")(?<!" + DIGIT + "%[0-9A-Fa-f]{2})"
      + GROUPS);
  /** A run going on from the last group of one that {@link #DOTTED_RUN} found: read from that group. */
  private static final Pattern DOTTED_RUN_ON = Pattern.compile(GROUPS);
  private static final Pattern UUID = Pattern.compile(
      "(?<![0-9A-Za-z-])[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}(?![0-9A-Za-z-])");

  /** Whether some consecutive groups of a run hold as many digits as a card number. */
  private static boolean holdsCardNumber(List<Integer> groups) {
    for (int from = 0; from < groups.size(); from++) {
      int sum = 0;
      for (int to = from; to < groups.size() && sum < MIN_DIGITS; to++) {
        sum += groups.get(to);
      }
      if (sum >= MIN_DIGITS && sum <= MAX_DIGITS) {
        return true;
      }
    }
    return false;
  }

  /** Whether some consecutive groups of a run, whose digits are {@code digits}, hold a Luhn-valid card number. */
  private static boolean holdsLuhnValid(List<Integer> groups, String digits) {
    int offset = 0;
    for (int from = 0; from < groups.size(); from++) {
      int sum = 0;
      for (int to = from; to < groups.size() && sum <= MAX_DIGITS; to++) {
        sum += groups.get(to);
        if (sum >= MIN_DIGITS && sum <= MAX_DIGITS && luhnValid(digits.substring(offset, offset + sum))) {
          return true;
        }
      }
      offset += groups.get(from);
    }
    return false;
  }

  /** The positions that belong to an identifier: a long word of hex characters, or a UUID. */
  private static boolean[] identifiers(String text) {
    boolean[] marked = new boolean[text.length()];
    int i = 0;
    while (i < text.length()) {
      if (!isAsciiLetterOrDigit(text.charAt(i))) {
        i++;
        continue;
      }
      int start = i;
      boolean hex = true;
      while (i < text.length() && isAsciiLetterOrDigit(text.charAt(i))) {
        hex &= Character.digit(text.charAt(i), 16) >= 0;
        i++;
      }
      if (hex && i - start >= IDENTIFIER_LENGTH) {
        java.util.Arrays.fill(marked, start, i, true);
      }
    }
    Matcher uuid = UUID.matcher(text);
    while (uuid.find()) {
      java.util.Arrays.fill(marked, uuid.start(), uuid.end(), true);
    }
    return marked;
  }

  private static int digits(String text) {
    int count = 0;
    for (int i = 0; i < text.length(); i++) {
      if (isDigit(text.charAt(i))) {
        count++;
      }
    }
    return count;
  }

  /**
   * A decimal digit of any script: a card number typed with an input method that writes
   * full-width digits ({@code ４５３９}), or in Arabic-Indic digits, is a card number all the same.
   * Not the digits outside the Basic Multilingual Plane (mathematical digits and the like), which
   * take two chars.
   */
  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9' || c >= 0x660 && Character.isDigit(c);
  }

  /** The digits of {@code digits}, of any script ({@link #isDigit}), as ASCII digits. */
  private static String ascii(String digits) {
    StringBuilder out = null;
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      if (c > '9') {
        out = out == null ? new StringBuilder(digits.substring(0, i)) : out;
        out.append((char) ('0' + Character.digit(c, 10)));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? digits : out.toString();
  }

  private static boolean isAsciiLetterOrDigit(char c) {
    return c >= '0' && c <= '9' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Pan other && other.digits.equals(digits);
  }

  @Override
  public int hashCode() {
    return digits.hashCode();
  }

  @Override
  public String toString() {
    return masked();
  }
}
