package io.tollgate.bootstrap;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.tollgate.domain.group.Pan;

/** A logged exception's stack trace with card numbers masked as in {@link MaskedMessageConverter}. */
public final class MaskedThrowableConverter extends ThrowableProxyConverter {

  @Override
  public String convert(ILoggingEvent event) {
    return Pan.maskForDisplay(super.convert(event));
  }
}
