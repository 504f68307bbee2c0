package io.tollgate.rest.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrorEnvelopeTest {

  @Test
  void a_path_without_a_card_number_is_echoed_as_it_came() {
    assertThat(ErrorEnvelope.maskedPath("/api/v1/payments/abc%20def/%zz")).isEqualTo("/api/v1/payments/abc%20def/%zz");
    assertThat(ErrorEnvelope.maskedPath("/api/v1/payments/%")).isEqualTo("/api/v1/payments/%");
  }

  @Test
  void a_card_number_split_by_escaped_separators_is_masked_even_beside_a_malformed_escape() {
    assertThat(ErrorEnvelope.maskedPath("/x/4000%2D0000%2D0000%2D0002/%zz")).isEqualTo("/x/400000******0002/%zz");
    assertThat(ErrorEnvelope.maskedPath("/x/%zz/4000%C2%A00000%C2%A00000%C2%A00002/%"))
        .isEqualTo("/x/%zz/400000******0002/%");
  }
}
