package io.tollgate.bootstrap;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.tollgate.domain.group.Pan;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The log message with anything that can be a card number masked to its first six and last
 * four digits, by the rule the error envelopes follow ({@link Pan#maskForDisplay}): a last line
 * of defence, since no code of ours logs card data on purpose. Passwords in URLs are masked too:
 * libraries log a database URL they cannot use whole (the PostgreSQL driver does, at WARNING).
 */
public final class MaskedMessageConverter extends MessageConverter {

  // "password=" in a JDBC URL's query (sslpassword= too), up to the next parameter
  private static final Pattern QUERY_PASSWORD = Pattern.compile("(?i)(password=)[^&;\\s]*");
  // "//user:secret@host", as in a URL pasted from another tool's configuration
  private static final Pattern USERINFO_PASSWORD = Pattern.compile("(//[^/:@\\s]+:)[^@/\\s]*@");

  @Override
  public String convert(ILoggingEvent event) {
    return mask(super.convert(event));
  }

  /** {@code message} as the log writes it; the same instance when there is nothing to mask. */
  static String mask(String message) {
    return maskPasswords(Pan.maskForDisplay(message));
  }

  /** {@code text} with the passwords of the URLs in it replaced by {@code ***}; the same instance when it has none. */
  static String maskPasswords(String text) {
    return replace(replace(text, QUERY_PASSWORD, "$1***"), USERINFO_PASSWORD, "$1***@");
  }

  private static String replace(String text, Pattern pattern, String replacement) {
    if (text == null) {
      return null;
    }
    Matcher m = pattern.matcher(text);
    return m.find() ? m.replaceAll(replacement) : text;
  }
}
