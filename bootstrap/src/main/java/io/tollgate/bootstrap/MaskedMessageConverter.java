package io.tollgate.bootstrap;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.regex.Pattern;

/**
 * The log message with anything shaped like a card number masked to its first six and last
 * four digits: a last line of defence, since no code of ours logs card data on purpose.
 */
public final class MaskedMessageConverter extends MessageConverter {

  static final Pattern CARD_LIKE = Pattern.compile("(?<![0-9A-Za-z])([0-9]{6})[0-9]{2,9}([0-9]{4})(?![0-9A-Za-z])");

  @Override
  public String convert(ILoggingEvent event) {
    return mask(super.convert(event));
  }

  static String mask(String message) {
    return message == null || !hasTwelveDigitsInARow(message) ? message
        : CARD_LIKE.matcher(message).replaceAll("$1******$2");
  }

  /** What every match needs: most lines (an access-log line per request) have no such run. */
  private static boolean hasTwelveDigitsInARow(String message) {
    int run = 0;
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      if (c >= '0' && c <= '9') {
        if (++run == 12) {
          return true;
        }
      } else {
        run = 0;
      }
    }
    return false;
  }
}
