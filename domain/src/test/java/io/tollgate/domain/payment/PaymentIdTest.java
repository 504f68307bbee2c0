package io.tollgate.domain.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PaymentIdTest {

  @Test
  void randomIdsAreThirtyTwoLowerCaseHexCharacters() {
    for (int i = 0; i < 100; i++) {
      String id = PaymentId.random().value();
      assertThat(id).matches("[0-9a-f]{32}");
      assertThat(PaymentId.isWellFormed(id)).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"0123456789abcdef0123456789abcdef", "ffffffffffffffffffffffffffffffff",
      "00000000000000000000000000000000"})
  void acceptsThirtyTwoLowerCaseHexCharacters(String id) {
    assertThat(PaymentId.isWellFormed(id)).isTrue();
    assertThat(new PaymentId(id).value()).isEqualTo(id);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0",
      "0123456789ABCDEF0123456789abcdef", "0123456789abcdeg0123456789abcdef", "0123456789abcdef0123456789abcde\n",
      "0123456789abcdef-123456789abcdef", "0123456789abcdef0123456789abcd\u0663f", "0123456789abcdef 123456789abcdef"})
  void refusesAnythingElse(String id) {
    assertThat(PaymentId.isWellFormed(id)).isFalse();
    assertThatThrownBy(() -> new PaymentId(id)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesNull() {
    assertThat(PaymentId.isWellFormed(null)).isFalse();
    assertThatThrownBy(() -> new PaymentId(null)).isInstanceOf(NullPointerException.class);
  }
}
