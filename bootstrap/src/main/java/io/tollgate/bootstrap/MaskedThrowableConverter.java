package io.tollgate.bootstrap;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/** A logged exception's stack trace with card numbers and passwords masked as in {@link MaskedMessageConverter}. */
public final class MaskedThrowableConverter extends ThrowableProxyConverter {

  @Override
  public String convert(ILoggingEvent event) {
    return MaskedMessageConverter.mask(super.convert(event));
  }
}
