package io.tollgate.domain.group;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Pan#maskForDisplay}: whatever can be a card number (12 to 19 digits, together or in
 * groups) is masked wherever it stands; what cannot be one is echoed as given.
 */
class CardNumberMaskingTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      4111111111111111                      | 411111******1111
      411111111111                          | 411111**1111
      4111111111111111111                   | 411111*********1111
      4111111111111112                      | 411111******1112
      4111 1111 1111 1111                   | 411111******1111
      4111-1111-1111-1111                   | 411111******1111
      3782 822463 10005                     | 378282*****0005
      card 4111111111111111, expires 12/30  | card 411111******1111, expires 12/30
      card4111111111111111                  | card411111******1111
      4111111111111111-1230                 | 411111**********1230
      ["4111111111111111",12]               | ["411111******1111",12]
      1234 5678 9012 3456 7890              | 123456**********7890
      4111 - 1111 - 1111 - 1111             | 411111******1111
      4111  1111  1111  1111                | 411111******1111
      4111  1111 1111 1111                  | 411111******1111
      4111 1111 1111  1111                  | 411111******1111
      4111--1111--1111--1111                | 411111******1111
      4111+1111+1111+1111                   | 411111******1111
      4111/1111/1111/1111                   | 411111******1111
      4111%201111%201111%201111             | 411111******1111
      /api/v1/payments/4111%201111%201111%201111 | /api/v1/payments/411111******1111
      card%204111111111111111111            | card%20411111*********1111
      ?q=4111+1111+1111+1111&x=1            | ?q=411111******1111&x=1
      4111.1111.1111.1111                   | 411111******1111
      card 4111:1111:1111:1111 expired.     | card 411111******1111 expired.
      pan=4111.1111.1111.1111.              | pan=411111******1111.
      3782.822463.10005                     | 378282*****0005
      3056:930902:5904                      | 305693****5904
      4111.1111.1111.1111.111               | 411111*********1111
      4111.1111.1111.1                      | 411111***1111
      at 10:30:00 card 4111.1111.1111.1111  | at 10:30:00 card 411111******1111
      pan:4111.1111.1111.1111               | pan:411111******1111
      cardNumber:4111:1111:1111:1111        | cardNumber:411111******1111
      card:4111:1111:1111:1111              | card:411111******1111
      /cards/4111.1111.1111.1111.json       | /cards/411111******1111.json
      4111_1111_1111_1111                   | 411111******1111
      pan_4111_1111_1111_1111_exp_1230      | pan_411111******1111_exp_1230
      3782_822463_10005                     | 378282*****0005
      """)
  void masks_what_can_be_a_card_number(String text, String masked) {
    assertThat(Pan.maskForDisplay(text)).isEqualTo(masked);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "12345678901234567890",
      "123456789012345678901234567890",
      "-12345678901234567890",
      "shopGroupId 99999999999999999999 is too large",
      "12345678901",
      "5555 0000 x",
      "2026-11-22T09:13:07",
      "0a1b2c3d4e5f607182934567a4b5c6d7",
      "/api/v1/payments/41111111111111111111111111111111",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "f47ac10b-58cc-4372-1234-567890123456",
      "12345678-1234-1234-1234-123456789012",
      "order 12345",
      "192.168.100.200",
      "24/11/2026 10:30:00",
      "100%2012345",
      "2026.11.24 10:30:00.123456",
      "12:34:56.7890",
      "amount 1234.5678 and 12345678.9012",
      "192.168.100.200:8443",
      "2001:1234:5678:9012:3456:7890:1234:5678",
      "1.2.3.4.5.6.7.8.9.10.11.12.13",
      "4111.1111:1111.1111",
      "v2024.1105.0001",
      "4111.1111.1111.1111.1111.1111",
      "4111.1111.1111.1111a",
      "client 2001:1234:5678:9012::1",
      "[2001:1234:5678:9012::1]:443",
      "2600:1700:5455:1234::/48",
      "fe80:1234:5678:9012:3456",
      "fe80::1234:5678:9012:3456",
      "2001:db8:1234:5678:9012:3456::",
      "build 2024.11.05.000112345",
      "order_2024_11_05_000112345",
      "4111_1111.1111_1111",
      "snake_case_12345_678901",
      ""})
  void echoes_what_cannot_be_one_as_given(String text) {
    assertThat(Pan.maskForDisplay(text)).isEqualTo(text);
  }

  @org.junit.jupiter.api.Test
  void tabs_split_a_card_number_as_spaces_do() {
    assertThat(Pan.maskForDisplay("pan\t4111\t1111\t1111\t1111\tend")).isEqualTo("pan\t411111******1111\tend");
  }

  /** Only a Luhn-valid card number counts, found by the masking's rule, identifiers left out. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      4000000000000002                      | true
      order-4000-0000-0000-0002             | true
      txn.4000-000000-000002                | true
      202611240005                          | true
      4111111111111111-1230                 | true
      order-202611240001                    | false
      123456789012                          | false
      4000000000000003                      | false
      12345678901234567890                  | false
      0a1b2c3d4e5f60718293a4b5c6d7e8f9      | false
      4000 0000 0000 0002 but spaced        | true
      4000.0000.0000.0002                   | true
      4000:0000:0000:0003                   | false
      4000_0000_0000_0002                   | true
      """)
  void tells_a_luhn_valid_card_number(String text, boolean holds) {
    assertThat(Pan.holdsLuhnValidCardNumber(text)).isEqualTo(holds);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      400000000000000212345      | 400000***********2345
      4000 0000 0000 0002 1234 5 | 400000***********2345
      40000000000000020          | 400000*******0020
      400000******0002           | 400000******0002
      12345                      | 12345
      """)
  void a_card_number_field_masks_any_value_with_twelve_digits_or_more(String value, String echoed) {
    assertThat(Pan.maskCardField(value)).isEqualTo(echoed);
  }
}
