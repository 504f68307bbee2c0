package io.tollgate.domain.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {

  @Test
  void holds_the_whole_catalogue_of_the_public_api() {
    assertThat(ErrorCode.values()).hasSize(116);
    assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::code)).doesNotHaveDuplicates()
        .allMatch(c -> c.matches("[0-9]\\.[0-9]{2}"));
  }

  @Test
  void finds_codes_by_their_public_form() {
    assertThat(ErrorCode.fromCode("1.04")).contains(ErrorCode.E1_04_CANCELLED_BY_TIMEOUT);
    assertThat(ErrorCode.fromCode("4.01").orElseThrow().message()).isEqualTo("Insufficient Funds");
    assertThat(ErrorCode.fromCode("6.39").orElseThrow().message()).isEqualTo("Card BIN Blacklisted");
    assertThat(ErrorCode.fromCode("8.00").orElseThrow().describe()).isEqualTo("8.00 Rejected by Merchant");
    assertThat(ErrorCode.fromCode("9.99")).isEmpty();
    assertThat(ErrorCode.fromCode(null)).isEmpty();
  }
}
