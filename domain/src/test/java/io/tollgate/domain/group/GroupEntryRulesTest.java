package io.tollgate.domain.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class GroupEntryRulesTest {

  @ParameterizedTest
  @ValueSource(strings = {"400000", "4000000", "40000000"})
  void accepts_bins_of_six_to_eight_digits(String bin) {
    assertThat(new Bin(bin).value()).isEqualTo(bin);
  }

  @ParameterizedTest
  @ValueSource(strings = {"40000", "400000000", "12345a", " 400000", "４００００００"})
  void refuses_bins_that_are_not_six_to_eight_ascii_digits(String bin) {
    assertThatThrownBy(() -> new Bin(bin)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("6 to 8");
  }

  @ParameterizedTest
  @ValueSource(strings = {"400000******0002", "555500XXXXXX0008", "4000001*0002", "40000000*0002", "400000*0002",
      "400000X0002", "40000000****0002"})
  void accepts_masked_cards_with_six_to_eight_leading_and_four_trailing_digits(String masked) {
    MaskedCardNumber m = new MaskedCardNumber(masked);
    assertThat(m.bin()).isEqualTo(masked.substring(0, 6));
    assertThat(m.last4()).isEqualTo(masked.substring(masked.length() - 4));
  }

  @ParameterizedTest
  @ValueSource(strings = {"40000******0002", "400000******002", "4000000000000002", "400000**XX**0002",
      "400000------0002", "******0002", "40000000000000**0002", "400000**************0002",
      "400000000*0002", "40000000000*0002", "400000000000*0408"})
  void refuses_masked_cards_without_the_leading_or_trailing_digits_or_a_proper_mask_or_over_19_characters(String masked) {
    assertThatThrownBy(() -> new MaskedCardNumber(masked)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void a_masked_entry_matches_cards_of_any_length_with_its_leading_and_trailing_digits() {
    String key = new MaskedCardNumber("411111***1111").key();

    assertThat(MaskedCardNumber.keysOf("4111111111111111")).contains(key);
    assertThat(MaskedCardNumber.keysOf("4111110000000001111")).as("19 digits").contains(key);
    assertThat(MaskedCardNumber.keysOf("411111001111")).as("12 digits").contains(key);
    assertThat(MaskedCardNumber.keysOf("4111111111111112")).as("other last 4").doesNotContain(key);
    assertThat(MaskedCardNumber.keysOf("4111121111111111")).as("other BIN").doesNotContain(key);
    assertThat(new MaskedCardNumber("411111******1111").key()).as("the mask's length does not matter").isEqualTo(key);
    assertThat(new MaskedCardNumber("411111XXXXXXXXX1111").key()).isEqualTo(key);
  }

  @Test
  void a_masked_entry_keeps_every_leading_digit_it_was_given() {
    MaskedCardNumber eight = new MaskedCardNumber("40000012****0408");

    assertThat(eight.leadingDigits()).isEqualTo("40000012");
    assertThat(MaskedCardNumber.keysOf("4000001234560408")).contains(eight.key());
    assertThat(MaskedCardNumber.keysOf("4000000000000408")).as("same 6-digit BIN, other 8 digits")
        .doesNotContain(eight.key());
    // an entry stored with more leading digits before they were capped at 8 still matches
    assertThat(MaskedCardNumber.keysOf("4000000000000002")).contains("40000000000*0002");
    assertThat(MaskedCardNumber.keysOf("4000000000100002")).doesNotContain("40000000000*0002");
  }

  @Test
  void a_masked_entry_is_listed_as_given_with_an_x_mask_shown_as_stars() {
    assertThat(new MaskedCardNumber("411111***1111").display()).isEqualTo("411111***1111");
    assertThat(new MaskedCardNumber("550000XXXXXX5559").display()).isEqualTo("550000******5559");
    assertThat(new MaskedCardNumber("40000012****0408").display()).isEqualTo("40000012****0408");
  }

  @Test
  void a_mask_stands_for_at_least_one_digit() {
    // 8 leading and 4 trailing digits of a 12-digit card leave nothing for the mask
    assertThat(MaskedCardNumber.keysOf("400000120408")).containsExactly("400000*0408", "4000001*0408");
  }

  @Test
  void checks_card_numbers_with_luhn() {
    assertThat(Pan.luhnValid("4242424242424242")).isTrue();
    assertThat(Pan.luhnValid("4000000000000002")).isTrue();
    assertThat(Pan.luhnValid("5555000000000008")).isTrue();
    assertThat(Pan.luhnValid("4242424242424241")).isFalse();
    assertThat(new Pan("4000 0000 0000 0002").digits()).isEqualTo("4000000000000002");
    assertThatThrownBy(() -> new Pan("4242424242424241")).hasMessageContaining("Luhn");
    assertThatThrownBy(() -> new Pan("42424242")).hasMessageContaining("12 to 19");
  }

  @Test
  void a_card_number_never_shows_in_clear_by_accident() {
    Pan pan = new Pan("4000000000000002");
    assertThat(pan.toString()).isEqualTo("400000******0002").doesNotContain("4000000000000002");
    assertThat(Pan.maskForDisplay("card 4000 0000 0000 0002 and 4242424242424242"))
        .isEqualTo("card 400000******0002 and 424242******4242");
    assertThat(Pan.maskForDisplay("order 12345")).isEqualTo("order 12345");
  }

  @Test
  void emails_must_have_one_at_sign_and_a_real_domain_and_are_kept_lower_case() {
    assertThat(new EmailAddress("Ann.Lee+shop@Example.COM").value()).isEqualTo("ann.lee+shop@example.com");
    assertThat(new EmailAddress("ivan@example.xn--p1ai").value()).as("an IDN top-level domain, as the DNS has it")
        .isEqualTo("ivan@example.xn--p1ai");
    assertThat(new EmailAddress("Ivan@Пример.РФ").value()).as("and in Unicode").isEqualTo("ivan@пример.рф");
    assertThat(new EmailAddress("kim@bücher.de").value()).isEqualTo("kim@bücher.de");
    for (String bad : List.of("ann.example.com", "ann@@example.com", "ann@example", "@example.com",
        "ann@-example.com", "ann lee@example.com", "ann@example.c", "ann..lee@example.com", "ann@example.xn--",
        "ann@example.1a", "ann@exa mple.com", "ann@" + "a".repeat(250) + ".com")) {
      assertThatThrownBy(() -> new EmailAddress(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  /**
   * Every spelling of one address has one key: what a blacklist matches by, so that a customer
   * cannot pass it by writing the domain another way. The value stays as written.
   */
  @Test
  void an_email_written_another_way_has_the_same_key() {
    assertThat(new EmailAddress("Ivan@Пример.РФ").key()).isEqualTo("ivan@xn--e1afmkfd.xn--p1ai")
        .isEqualTo(new EmailAddress("ivan@xn--e1afmkfd.xn--p1ai").key())
        .isEqualTo(new EmailAddress("IVAN@XN--E1AFMKFD.XN--P1AI").key());
    assertThat(new EmailAddress("Ivan@Пример.РФ").value()).isEqualTo("ivan@пример.рф");
    // escapes, so that characters one cannot see or tell from a dot are seen here
    for (String spelling : List.of("fraud@exa\u00ADmple.com", "fraud@exa\u200Bmple.com", "fraud@example\u3002com",
        "fraud@\uFF45\uFF58ample.com", "Fraud@EXAMPLE.com", " fraud@example.com ")) {
      assertThat(new EmailAddress(spelling).key()).as(spelling).isEqualTo("fraud@example.com");
    }
    assertThat(new EmailAddress("kim@straße.de").key()).isEqualTo("kim@strasse.de");
    assertThat(new EmailAddress("kim@bücher.de").key()).isEqualTo(new EmailAddress("kim@xn--bcher-kva.de").key());
    assertThat(new EmailAddress("fraud@example.com").key()).as("another address is another key")
        .isNotEqualTo(new EmailAddress("fraud@example.org").key())
        .isNotEqualTo(new EmailAddress("fraud2@example.com").key());
  }

  /**
   * A domain as the DNS has it names the address its Unicode spelling names, also where the key
   * maps a character of it to others ('ß' to "ss"): a list that holds one spelling holds both. A
   * label that only looks like the DNS form, encoding nothing or more than one label, keeps its
   * key as written.
   */
  @Test
  void an_email_s_dns_spelling_has_the_key_of_its_unicode_spelling() {
    assertThat(new EmailAddress("kim@xn--strae-oqa.de").key()).isEqualTo(new EmailAddress("kim@straße.de").key())
        .isEqualTo(new EmailAddress("KIM@XN--STRAE-OQA.DE").key());
    assertThat(new EmailAddress("kim@xn--ab-m1t.de").key()).as("a zero-width joiner, dropped")
        .isEqualTo(new EmailAddress("kim@ab.de").key());
    assertThat(new EmailAddress("kim@xn--zz.de").key()).as("no punycode").isEqualTo("kim@xn--zz.de");
    assertThat(new EmailAddress("kim@xn--ab-r13a.de").key()).as("an ideographic full stop: two labels")
        .isEqualTo("kim@xn--ab-r13a.de");
  }

  @Test
  void countries_are_assigned_alpha_2_codes_in_either_case_kept_upper_case() {
    assertThat(new CountryCode("us").value()).isEqualTo("US");
    assertThat(new CountryCode("De").value()).isEqualTo("DE");
    assertThat(new CountryCode("xk").value()).as("Kosovo, user-assigned but in use").isEqualTo("XK");
    assertThat(new CountryCode("UK").value()).as("reserved for the United Kingdom, kept as GB").isEqualTo("GB");
    assertThat(new CountryCode("uk").value()).isEqualTo("GB");
    for (String bad : List.of("XX", "usa", "U", "1A", "")) {
      assertThatThrownBy(() -> new CountryCode(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void error_codes_are_one_digit_a_dot_and_two_digits() {
    assertThat(new ErrorCodeEntry("4.02").known()).isPresent();
    assertThat(new ErrorCodeEntry("9.99").known()).isEmpty();
    for (String bad : List.of("1.4", "10.01", "4,02", "4.002", "a.bc")) {
      assertThatThrownBy(() -> new ErrorCodeEntry(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @ParameterizedTest
  @NullAndEmptySource
  void an_empty_or_missing_array_is_refused(List<String> raw) {
    GroupEntries.Parsed<Bin> parsed = GroupEntries.parse(raw, Bin::new);
    assertThat(parsed.isValid()).isFalse();
    assertThat(parsed.violations()).singleElement()
        .satisfies(v -> assertThat(v.message()).isEqualTo("must be a non-empty array"));
  }

  @Test
  void every_bad_entry_is_reported_with_its_position() {
    GroupEntries.Parsed<Bin> parsed = GroupEntries.parse(
        Arrays.asList("400000", "12345", "400000", "abcdef", null, "555500"), Bin::new);
    assertThat(parsed.isValid()).isFalse();
    assertThat(parsed.violations()).extracting(GroupEntries.EntryViolation::index).containsExactly(1, 3, 4);
    assertThat(parsed.entries()).extracting(Bin::value).containsExactly("400000", "555500");
  }

  @Test
  void refused_card_numbers_are_echoed_masked() {
    GroupEntries.Parsed<Pan> parsed = GroupEntries.parse(List.of("4242424242424241"), Pan::new, Pan::maskForDisplay);
    assertThat(parsed.violations().get(0).rejectedValue()).isEqualTo("424242******4241");
  }
}
