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
      411111111111                          | 411*****1111
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
      4111,1111,1111,1111,2:ab              | 411111******1111,2:ab
      4111_1111_1111_1111_2:ab              | 411111******1111_2:ab
      card 4111:1111:1111:1111 expired.     | card 411111******1111 expired.
      pan=4111.1111.1111.1111.              | pan=411111******1111.
      3782.822463.10005                     | 378282*****0005
      3056:930902:5904                      | 30569*****5904
      4111.1111.1111.1111.111               | 411111*********1111
      4111.1111.1111.1                      | 4111*****1111
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

  /**
   * The card number field takes digits grouped by anything but letters, so a number grouped so
   * elsewhere is a card number too: spaces and dashes of other kinds (a no-break space from a
   * copied text, an en dash from a word processor, an invisible zero-width space or combining
   * mark), written as they are or URL-encoded, and a card's own grouping by one punctuation mark
   * or symbol, with or without spaces around it.
   */
  @ParameterizedTest
  @CsvSource(delimiterString = " => ", quoteCharacter = '"', textBlock = """
      Card no.4573.4598.0067.6436 / 4668\\u00a07891\\u00a09224\\u00a09855 => Card no.457345******643646**********9855
      4668\\u20077891\\u202f9224\\u00a09855 => 466878******9855
      4111\\u20131111\\u20131111\\u20131111 => 411111******1111
      4111\\u2014\\u20141111 1111\\u22121111 => 411111******1111
      4111\\u200b1111\\u200b1111\\u200b1111 => 411111******1111
      4111\\u00ad1111\\u00ad1111\\u00ad1111 => 411111******1111
      4111\\u034f1111\\u034f1111\\u034f1111 => 411111******1111
      4111\\udb40\\udc201111\\udb40\\udc201111\\udb40\\udc201111 => 411111******1111
      /payments/4111%F3%A0%80%A01111%F3%A0%80%A01111%F3%A0%80%A01111 => /payments/411111******1111
      100%4111111111111111 => 100%411111******1111
      /payments/4111%E2%80%931111%E2%80%931111%E2%80%931111 => /payments/411111******1111
      /payments/4111%C2%A01111%C2%A01111%C2%A01111 => /payments/411111******1111
      /payments/4111%2d1111%2D1111%2F1111 => /payments/411111******1111
      4836,7605,2407,0738 => 483676******0738
      4083|8460|3536|7075 => 408384******7075
      4083*8460*3536*7075 => 408384******7075
      4083~8460~3536~7075 => 408384******7075
      4083#8460#3536#7075 => 408384******7075
      4083=8460=3536=7075 => 408384******7075
      4083'8460'3536'7075 => 408384******7075
      4083;8460;3536;7075 => 408384******7075
      4083!8460!3536!7075 => 408384******7075
      4083@8460@3536@7075 => 408384******7075
      4083$8460$3536$7075 => 408384******7075
      /api/v1/payments/4083%2C8460%2C3536%2C7075 => /api/v1/payments/408384******7075
      /api/v1/payments/4083%7C8460%7C3536%7C7075 => /api/v1/payments/408384******7075
      3782,822463,10005 => 378282*****0005
      4111, 1111, 1111, 1111 => 411111******1111
      4111 | 1111 | 1111 | 1111 => 411111******1111
      4111. 1111. 1111. 1111 => 411111******1111
      4111&1111&1111&1111 => 411111******1111
      4111^1111^1111^1111 => 411111******1111
      4111?1111?1111?1111 => 411111******1111
      4111\\1111\\1111\\1111 => 411111******1111
      4111(1111(1111(1111 => 411111******1111
      4111\\u20221111\\u20221111\\u20221111 => 411111******1111
      4111 \\u00b7 1111 \\u00b7 1111 \\u00b7 1111 => 411111******1111
      4111\\u28001111\\u28001111\\u28001111 => 411111******1111
      /p/4111%261111%261111%261111 => /p/411111******1111
      4111.1111.1111.1111a => 411111******1111a
      ref4562.3763.9984.5482 => ref456237******5482
      card4771:1826:2639:9690 => card477118******9690
      N4776\\u20224433\\u20224475\\u20228775z => N477644******8775z
      4415,\\u200b8239,\\u200b1111,\\u200b1111 => 441582******1111
      4696.\\u20093442.\\u20091111.\\u20091111 => 469634******1111
      4415\\u202f,1111\\u202f,1111\\u202f,1111 => 441511******1111
      4415\\uff0c\\u30001111\\uff0c\\u30001111\\uff0c\\u30001111 => 441511******1111
      4871,\\u200b9151,1783,3183 => 487191******3183
      4469\\u31644871\\u31649135\\u31649152 => 446948******9152
      4167\\u00088982\\u00084132\\u00087798 => 416789******7798
      4142 % 7924 % 6235 % 7990 => 414279******7990
      /api/v1/payments/4581%0A9159%0A7963%0A9968 => /api/v1/payments/458191******9968
      ref.4789.3061.1786.7408 => ref.478930******7408
      a.4587.5694.7531.5427 => a.458756******5427
      h/4950.7885.9945.6078/4111111111111111 => h/495078******607841**********1111
      4780_7937_5791_5747/4111111111111111 => 478079******574741**********1111
      pan%3A4111.1111.1111.1111 => pan%3A411111******1111
      """)
  void masks_a_card_number_grouped_as_the_card_field_takes_it(String text, String masked) {
    assertThat(Pan.maskForDisplay(unescape(text))).isEqualTo(unescape(masked));
  }

  /** Lists and amounts written with commas and the like are no card number unless grouped as one. */
  @ParameterizedTest
  @ValueSource(strings = {
      "items 101,102,103,104,105",
      "1,234,567,890,123.45",
      "1,2,3,4,5,6,7,8,9,10,11,12,13",
      "ids 1234,5678,9012",
      "Tel 030 123456\n10119 Berlin",
      "at 12:30, 1234 people, 5678 seats",
      "1,4111,1111,1111,1111,1",
      "version 4.1111.1111.1111.1111"})
  void leaves_other_punctuated_numbers_as_they_are(String text) {
    assertThat(Pan.maskForDisplay(text)).isEqualTo(text);
  }

  /**
   * A key before a colon that reads as hex ({@code CC:}, {@code ACC:}) or ends in punctuation
   * ({@code No.:}) starts no IPv6 address unless the number after it is grouped by colons too; and
   * a run that begins or goes on with a list's number, a reference or a count, split from a card
   * grouped by another mark, still holds that card. Each was kept, shown and sent in clear.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      CC:4539.1488.0343.6467              | CC:453914******6467
      ACC:4539.1488.0343.6467             | ACC:453914******6467
      Card No.:4539.1488.0343.6467        | Card No.:453914******6467
      PAN (VISA):4111.1111.1111.1111      | PAN (VISA):411111******1111
      CC:4111_1111_1111_1111              | CC:411111******1111
      1. 4539, 1488, 0343, 6467           | 1. 453914******6467
      1) 4539.1488.0343.6467              | 1) 453914******6467
      ref 12345, 4539.1488.0343.6467      | ref 12345, 453914******6467
      card 4539.1488.0343.6467, 2 chargebacks           | card 453914******6467, 2 chargebacks
      refused 4539_1488_0343_6467, 3 tries              | refused 453914******6467, 3 tries
      1. 4539, 1488, 0343, 6467; 2. none                | 1. 453914******6467; 2. none
      1) 4539.1488.0343.6467; 2) none                   | 1) 453914******6467; 2) none
      1. 4539.1488.0343.6467; 2. none                   | 1. 453914******6467; 2. none
      4539.1488.0343.6467, 5555.5555.5555.4444          | 453914******6467, 555555******4444
      1. 4539.1488.0343.6467; 2. 5555.5555.5555.4444    | 1. 453914******6467; 2. 555555******4444
      4539.1488.0343.6467; 5555.5555.5555.4444; 4111.1111.1111.1111 | 453914******6467; 555555******4444; 411111******1111
      4539.1488.0343.6467, 5555.5555.5555.4444, 4111.1111.1111.1111 | 453914******6467, 555555******4444, 411111******1111
      1) 4539.1488.0343.6467 2) 5555.5555.5555.4444 3) 4111.1111.1111.1111 | 1) 453914******6467 2) 555555******4444 3) 411111******1111
      card 4539.1488.0343.6467... or so                 | card 453914******6467... or so
      card 4539.1488.0343.6467.: no                     | card 453914******6467.: no
      """)
  void a_key_a_list_number_or_a_reference_around_a_grouped_card_does_not_hide_it(String text, String masked) {
    assertThat(Pan.maskLuhnValid(text)).isEqualTo(masked);
    assertThat(Pan.maskForDisplay(text)).isEqualTo(masked);
    assertThat(Pan.holdsLuhnValidCardNumber(text)).isTrue();
  }

  /** Text that is kept (a payment's description) loses a card number copied in with its no-break spaces. */
  @org.junit.jupiter.api.Test
  void kept_text_is_masked_by_the_same_rule() {
    assertThat(Pan.maskLuhnValid("Card 4668\u00a07891\u00a09224\u00a09855, thanks"))
        .isEqualTo("Card 466878******9855, thanks");
    assertThat(Pan.maskLuhnValid("order 4668\u20137891\u20139224\u20139856")).as("Luhn fails: an order number")
        .isEqualTo("order 4668\u20137891\u20139224\u20139856");
  }

  /**
   * A card number typed with an input method that writes full-width digits, or in another
   * script's digits, is the same card number: it is masked as one, shown in ASCII digits. Other
   * such digits are left as they were written.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      card \uff14\uff15\uff13\uff19 \uff11\uff14\uff18\uff18 \uff10\uff13\uff14\uff13 \uff16\uff14\uff16\uff17 ok | card 453914******6467 ok
      \uff14\uff15\uff13\uff19\uff11\uff14\uff18\uff18\uff10\uff13\uff14\uff13\uff16\uff14\uff16\uff17 | 453914******6467
      \u0664\u0665\u0663\u0669\u0661\u0664\u0668\u0668\u0660\u0663\u0664\u0663\u0666\u0664\u0666\u0667 | 453914******6467
      4539 \uff11\uff14\uff18\uff18 0343 6467 | 453914******6467
      \uff14\uff15\uff13\uff19.\uff11\uff14\uff18\uff18.\uff10\uff13\uff14\uff13.\uff16\uff14\uff16\uff17 | 453914******6467
      order \uff11\uff12\uff13 of \uff12\uff10\uff12\uff16 | order \uff11\uff12\uff13 of \uff12\uff10\uff12\uff16
      """)
  void a_card_number_in_other_digits_is_masked_too(String text, String masked) {
    assertThat(Pan.maskForDisplay(unescape(text))).isEqualTo(unescape(masked));
    assertThat(Pan.maskLuhnValid(unescape(text))).isEqualTo(unescape(masked));
    assertThat(Pan.holdsLuhnValidCardNumber(unescape(text))).isEqualTo(!text.equals(masked));
  }

  /** {@code text} with its {@code \\uXXXX}, {@code \\n} and {@code \\r} written out. */
  private static String unescape(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == 'u') {
        out.append((char) Integer.parseInt(text.substring(i + 2, i + 6), 16));
        i += 5;
      } else if (c == '\\' && i + 1 < text.length() && (text.charAt(i + 1) == 'n' || text.charAt(i + 1) == 'r')) {
        out.append(text.charAt(i + 1) == 'n' ? '\n' : '\r');
        i++;
      } else {
        out.append(c);
      }
    }
    return out.toString();
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
      a.4587.5694.7531.5427                 | true
      req.4836,7605,2407,0738               | true
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

  /**
   * A long run of digit groups split by one mark is no card number, and reading it must not
   * overflow the stack: {@code 1111.} 1,500 times (7.5 KB in a path) made the pattern recurse
   * once a group, a request's thread overflowed, and it was answered 500 and broke its connection.
   */
  @ParameterizedTest
  @ValueSource(strings = {"1111.", "1111,", "1111:", "1111_", "1111%2E", "1111 . ", "4111."})
  void a_long_run_of_groups_is_read_without_overflowing_the_stack(String group) {
    String run = group.repeat(20_000) + "1111";
    assertThat(Pan.maskForDisplay(run)).isEqualTo(run);
    assertThat(Pan.maskLuhnValid(run)).isEqualTo(run);
    String card = "card 4111" + group.substring(4) + "1111" + group.substring(4) + "1111" + group.substring(4) + "1111";
    assertThat(Pan.maskForDisplay(run + " " + card)).as("a card after it is still masked")
        .isEqualTo(run + " card 411111******1111");
  }
}
