package io.tollgate.bootstrap;

import com.fasterxml.jackson.core.JsonStreamContext;
import io.tollgate.domain.group.Pan;
import net.logstash.logback.mask.ValueMasker;

/**
 * Masks card numbers in every text value of a JSON log line (message, stack trace, MDC), by
 * the rule of the text format and the error envelopes ({@link Pan#maskForDisplay}), and the
 * passwords of URLs as the text format does ({@link MaskedMessageConverter#mask}).
 */
public final class CardNumberValueMasker implements ValueMasker {

  @Override
  public Object mask(JsonStreamContext context, Object value) {
    if (value instanceof CharSequence text) {
      String original = text.toString();
      String masked = MaskedMessageConverter.mask(original);
      // null: the value is written as it is
      return masked == original ? null : masked;
    }
    return null;
  }
}
