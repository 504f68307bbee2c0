package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.out.ReferenceData;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A payment shows its card's brand from the BIN data by the reference's names, which clients
 * read as an enum: a brand stored otherwise (imported before imports checked it) is shown by
 * its name when it is one, and else the brand the number's range tells.
 */
class CardProfilesTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      5555555555554444 | MASTERCARD     | MASTERCARD
      5555555555554444 | master card    | MASTERCARD
      5555555555554444 | Visa Electron  | MASTERCARD
      5555555555554444 | ' '            | MASTERCARD
      4000000000000408 | -              | VISA
      4000000000000408 | rupay          | RUPAY
      """)
  void shows_the_brand_by_the_references_name(String digits, String stored, String shown) {
    ReferenceData reference = mock(ReferenceData.class);
    when(reference.bin(digits)).thenReturn(Optional.of(new ReferenceData.BinRecord(digits.substring(0, 8), stored,
        "CREDIT", "DE", "Bank")));
    assertThat(new CardProfiles(reference).describe(digits, "tok", null, "12", "2045").brand()).isEqualTo(shown);
  }
}
