package io.tollgate.bootstrap;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.tollgate.domain.group.Pan;

/**
 * The log message with anything that can be a card number masked to its first six and last
 * four digits, by the rule the error envelopes follow ({@link Pan#maskForDisplay}): a last line
 * of defence, since no code of ours logs card data on purpose.
 */
public final class MaskedMessageConverter extends MessageConverter {

  @Override
  public String convert(ILoggingEvent event) {
    return mask(super.convert(event));
  }

  static String mask(String message) {
    return Pan.maskForDisplay(message);
  }
}
