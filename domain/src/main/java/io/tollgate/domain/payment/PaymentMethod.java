package io.tollgate.domain.payment;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** The payment methods Tollgate processes. */
public enum PaymentMethod {
  BASIC_CARD,
  BANKTRANSFER;

  private static final Set<String> PUBLIC_NAMES = loadPublicNames();

  public static Optional<PaymentMethod> find(String name) {
    for (PaymentMethod m : values()) {
      if (m.name().equals(name)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether {@code name} is one of the payment method names of the public API, processed by
   * Tollgate or not: a merchant asking for one we do not offer deserves a different answer
   * from one who made a typo.
   */
  public static boolean isPublicName(String name) {
    return PUBLIC_NAMES.contains(name);
  }

  private static Set<String> loadPublicNames() {
    try (InputStream in = PaymentMethod.class.getResourceAsStream("payment-method-names.txt")) {
      if (in == null) {
        throw new IllegalStateException("payment-method-names.txt is missing");
      }
      return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
          .map(String::strip).filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
