package io.tollgate.domain.group;

/**
 * Decoding of Punycode (RFC 3492), the form a domain label takes after {@code xn--}.
 * {@link java.net.IDN#toUnicode} decodes a label only when encoding the result again gives the
 * label back, which a label written from a character IDNA 2003 maps to others ('ß') never does.
 */
final class Punycode {

  private static final int BASE = 36;
  private static final int T_MIN = 1;
  private static final int T_MAX = 26;
  private static final int SKEW = 38;
  private static final int DAMP = 700;
  private static final int INITIAL_BIAS = 72;
  private static final int INITIAL_N = 128;

  private Punycode() {}

  /** The Unicode text {@code encoded} (a label without its {@code xn--}) stands for, or null when it is no Punycode. */
  static String decode(String encoded) {
    int delimiter = encoded.lastIndexOf('-');
    StringBuilder basic = new StringBuilder();
    for (int j = 0; j < Math.max(delimiter, 0); j++) {
      char c = encoded.charAt(j);
      if (c >= INITIAL_N) {
        return null;
      }
      basic.append(c);
    }
    int[] out = basic.codePoints().toArray();
    int length = out.length;
    out = java.util.Arrays.copyOf(out, encoded.length());
    int n = INITIAL_N;
    int i = 0;
    int bias = INITIAL_BIAS;
    int in = delimiter > 0 ? delimiter + 1 : 0;
    while (in < encoded.length()) {
      int old = i;
      int w = 1;
      for (int k = BASE; ; k += BASE) {
        if (in >= encoded.length()) {
          return null;
        }
        int digit = digit(encoded.charAt(in++));
        if (digit < 0 || digit > (Integer.MAX_VALUE - i) / w) {
          return null;
        }
        i += digit * w;
        int t = k <= bias ? T_MIN : Math.min(k - bias, T_MAX);
        if (digit < t) {
          break;
        }
        if (w > Integer.MAX_VALUE / (BASE - t)) {
          return null;
        }
        w *= BASE - t;
      }
      bias = adapt(i - old, length + 1, old == 0);
      if (i / (length + 1) > Integer.MAX_VALUE - n) {
        return null;
      }
      n += i / (length + 1);
      i %= length + 1;
      if (!Character.isValidCodePoint(n) || (n >= Character.MIN_SURROGATE && n <= Character.MAX_SURROGATE)) {
        return null;
      }
      System.arraycopy(out, i, out, i + 1, length - i);
      out[i++] = n;
      length++;
    }
    return new String(out, 0, length);
  }

  private static int digit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0' + 26;
    }
    if (c >= 'a' && c <= 'z') {
      return c - 'a';
    }
    if (c >= 'A' && c <= 'Z') {
      return c - 'A';
    }
    return -1;
  }

  private static int adapt(int delta, int points, boolean first) {
    delta = first ? delta / DAMP : delta / 2;
    delta += delta / points;
    int k = 0;
    while (delta > ((BASE - T_MIN) * T_MAX) / 2) {
      delta /= BASE - T_MIN;
      k += BASE;
    }
    return k + (BASE - T_MIN + 1) * delta / (delta + SKEW);
  }
}
