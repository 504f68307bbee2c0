package io.tollgate.domain.group;

import io.tollgate.domain.error.ErrorCode;
import java.util.Optional;
import java.util.regex.Pattern;

/** An entry of an error-code group: one digit, a dot, two digits (e.g. {@code 4.02}). */
public record ErrorCodeEntry(String value) {

  private static final Pattern FORMAT = Pattern.compile("^[0-9]\\.[0-9]{2}$");

  public ErrorCodeEntry {
    if (value == null || !FORMAT.matcher(value).matches()) {
      throw new IllegalArgumentException("an error code is one digit, a dot and two digits, e.g. 4.02");
    }
  }

  public Optional<ErrorCode> known() {
    return ErrorCode.fromCode(value);
  }
}
