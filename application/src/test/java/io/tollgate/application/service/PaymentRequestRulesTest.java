package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.tollgate.application.port.in.CardInput;
import io.tollgate.application.port.in.CreatePaymentCommand;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A card number belongs in the card fields only, where it is kept encrypted: anywhere else it
 * would be stored, answered, sent in webhooks and shown on the checkout page in clear.
 */
class PaymentRequestRulesTest {

  private static final String CARD = "4000000000000408";
  private final PaymentRequestRules rules = new PaymentRequestRules(Currencies.defaults(), java.time.Clock.systemUTC());

  private static CreatePaymentCommand deposit(String description, Customer customer, BillingAddress billing,
      Map<String, String> params) {
    return new CreatePaymentCommand(new ShopId(1), "DEPOSIT", "BASIC_CARD", new BigDecimal("10.00"), "EUR",
        "order-1", description, null, new CardInput(CARD, null, "ANN LEE", "123", "12", "2045"), customer, billing,
        null, null, null, params, null, null);
  }

  /** An expiry year up to 30 years ahead; a past one, of any century, is the issuer's to decline. */
  @Test
  void an_expiry_year_is_taken_up_to_thirty_years_ahead() {
    PaymentRequestRules on25Nov2026 = new PaymentRequestRules(Currencies.defaults(),
        java.time.Clock.fixed(java.time.Instant.parse("2026-11-25T12:00:00Z"), java.time.ZoneOffset.UTC));
    for (String year : new String[] {"1999", "2020", "2026", "2056"}) {
      on25Nov2026.check(withExpiryYear(year));
    }
    for (String year : new String[] {"2057", "9999"}) {
      DomainException.Invalid refused = catchThrowableOfType(
          () -> on25Nov2026.check(withExpiryYear(year)), DomainException.Invalid.class);
      assertThat(refused).as(year).isNotNull();
      assertThat(refused.violations()).extracting(Violation::field).containsExactly("card.expiryYear");
    }
  }

  /**
   * A date of birth up to tomorrow by UTC's calendar is taken (the customer's today may be
   * ahead of UTC's), whatever the server's time zone: it used to be the server's today, so the
   * same request was good on a server in Auckland and refused on one in New York.
   */
  @Test
  void a_date_of_birth_is_judged_by_utc_with_a_day_s_grace_not_by_the_server_s_zone() {
    java.util.TimeZone zone = java.util.TimeZone.getDefault();
    try {
      java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("America/New_York"));
      PaymentRequestRules lateOn27Nov = new PaymentRequestRules(Currencies.defaults(),
          java.time.Clock.fixed(java.time.Instant.parse("2026-11-27T23:30:00Z"), java.time.ZoneOffset.UTC));
      lateOn27Nov.check(deposit(null, bornOn("2026-11-28"), null, Map.of()));
      DomainException.Invalid refused = catchThrowableOfType(
          () -> lateOn27Nov.check(deposit(null, bornOn("2026-11-29"), null, Map.of())), DomainException.Invalid.class);
      assertThat(refused).isNotNull();
      assertThat(refused.violations()).extracting(Violation::field).containsExactly("customer.dateOfBirth");
    } finally {
      java.util.TimeZone.setDefault(zone);
    }
  }

  private static Customer bornOn(String date) {
    return new Customer("c-1", null, null, null, date, null, null, null, null);
  }

  /**
   * A card number is its digits, which spaces or punctuation may group (the reference ignores
   * what is not a digit): a letter, or a digit of another script, is a mistyped number,
   * refused, never dropped to leave a shorter number to charge.
   */
  @Test
  void a_card_number_with_a_letter_is_refused_and_its_grouping_ignored() {
    for (String grouped : new String[] {"4000 0000 0000 0408", "4000-0000-0000-0408", "400000000000",
        "4000.0000.0000.0408", "4000/0000/0000/0408", "4000000000000408\t", " 4000000000000408 "}) {
      assertThat(rules.check(withCardNumber(grouped)).cardDigits()).as(grouped)
          .isEqualTo(grouped.replaceAll("[^0-9]", ""));
    }
    for (String mistyped : new String[] {"4000OOOO00000408", "40000000000004O8", "abc4000000000000408",
        "4000000000000408x", "\u0664000000000000408", "40000000000"}) {
      DomainException.Invalid refused = catchThrowableOfType(
          () -> rules.check(withCardNumber(mistyped)), DomainException.Invalid.class);
      assertThat(refused).as(mistyped).isNotNull();
      assertThat(refused.violations()).extracting(Violation::field).containsExactly("card.cardNumber");
    }
  }

  private static CreatePaymentCommand withCardNumber(String number) {
    return new CreatePaymentCommand(new ShopId(1), "DEPOSIT", "BASIC_CARD", new BigDecimal("10.00"), "EUR",
        "order-1", null, null, new CardInput(number, null, "ANN LEE", "123", "12", "2045"), null, null,
        null, null, null, Map.of(), null, null);
  }

  private static CreatePaymentCommand withExpiryYear(String year) {
    return new CreatePaymentCommand(new ShopId(1), "DEPOSIT", "BASIC_CARD", new BigDecimal("10.00"), "EUR",
        "order-1", null, null, new CardInput(CARD, null, "ANN LEE", "123", "12", year), null, null,
        null, null, null, Map.of(), null, null);
  }

  private static CreatePaymentCommand withReturnUrl(String returnUrl) {
    return new CreatePaymentCommand(new ShopId(1), "DEPOSIT", "BASIC_CARD", new BigDecimal("10.00"), "EUR",
        "order-1", null, null, new CardInput(CARD, null, "ANN LEE", "123", "12", "2045"), null, null,
        returnUrl, null, null, Map.of(), null, null);
  }

  /** A returnUrl may hold the four placeholders; a misnamed one is refused with the right names. */
  @Test
  void a_return_url_placeholder_that_does_not_exist_is_refused_naming_those_that_do() {
    String allFour = "https://shop.example/done/{id}?ref={referenceId}&s={state}&t={type}";
    assertThatCode(() -> rules.check(withReturnUrl(allFour))).doesNotThrowAnyException();
    DomainException.Invalid refused = catchThrowableOfType(
        () -> rules.check(withReturnUrl("https://shop.example/done/{paymentId}")), DomainException.Invalid.class);
    assertThat(refused.violations()).singleElement().satisfies(v -> {
      assertThat(v.field()).isEqualTo("returnUrl");
      assertThat(v.message()).isEqualTo(
          "holds {paymentId}, which is no placeholder: use {id}, {referenceId}, {state} or {type}");
    });
  }

  @Test
  void a_card_number_in_a_name_or_an_address_is_refused_with_every_such_field_listed_and_masked() {
    Customer customer = new Customer("c-1", null, "Ann " + CARD, "Lee", null, null, null, null, null,
        null, "4000 0000 0000 0408", null, "Bank " + CARD, null, null, null, null, null);
    BillingAddress billing = new BillingAddress("Main Street 1 " + CARD, null, "Berlin", "DE", "10115", null);

    DomainException.Invalid refused = catchThrowableOfType(
        () -> rules.check(deposit(null, customer, billing, Map.of())), DomainException.Invalid.class);

    assertThat(refused.violations()).extracting(Violation::field).containsExactlyInAnyOrder(
        "customer.firstName", "customer.accountName", "customer.bank", "billingAddress.addressLine1");
    assertThat(refused.violations()).allSatisfy(v -> {
      assertThat(v.message()).contains("must not hold a card number");
      assertThat(String.valueOf(v.rejectedValue())).doesNotContain(CARD).doesNotContain("0000 0000");
    });
  }

  /** Typed with a Japanese input method, a card number comes in full-width digits: it is one all the same. */
  @Test
  void a_card_number_in_full_width_digits_is_refused_and_echoed_masked() {
    String fullWidth = "\uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 "
        + "\uff11\uff11\uff11\uff11";
    Customer customer = new Customer("c-1", null, "Ann " + fullWidth, "Lee", null, null, null, null, null,
        null, null, null, null, null, null, null, null, null);

    DomainException.Invalid refused = catchThrowableOfType(
        () -> rules.check(deposit(null, customer, null, Map.of())), DomainException.Invalid.class);
    assertThat(refused.violations()).singleElement().satisfies(v -> {
      assertThat(v.field()).isEqualTo("customer.firstName");
      assertThat(v.message()).contains("must not hold a card number");
      assertThat(String.valueOf(v.rejectedValue())).isEqualTo("Ann 411111******1111");
    });
  }

  /**
   * A phone number or an e-mail address of 16 digits or more that passes the Luhn check is a
   * card number (E.164 numbers have at most 15 digits), and so is a Luhn-valid parameter key;
   * shorter numbers stay, one in ten of which pass the check.
   */
  @Test
  void a_card_number_as_a_phone_number_an_e_mail_address_or_a_parameter_key_is_refused() {
    Customer card = new Customer("c-1", null, null, null, null, CARD + "@example.com", CARD, null, null);
    DomainException.Invalid refused = catchThrowableOfType(
        () -> rules.check(deposit(null, card, null, Map.of(CARD, "v"))), DomainException.Invalid.class);
    assertThat(refused.violations()).extracting(Violation::field)
        .containsExactlyInAnyOrder("customer.email", "customer.phone", "additionalParameters");
    assertThat(refused.violations()).allSatisfy(v -> assertThat(String.valueOf(v.rejectedValue())).doesNotContain(CARD));

    for (String shorter : new String[] {"378282246310005", "30569309025904"}) { // American Express, Diners Club
      Customer card15 = new Customer("c-1", null, null, null, null, shorter + "@example.com", shorter, null, null);
      DomainException.Invalid refusedToo = catchThrowableOfType(
          () -> rules.check(deposit(null, card15, null, Map.of())), DomainException.Invalid.class);
      assertThat(refusedToo.violations()).as(shorter).extracting(Violation::field)
          .containsExactlyInAnyOrder("customer.email", "customer.phone");
    }

    // a card number beside other digits: an e-mail domain's, a digit after a space
    for (String[] hidden : new String[][] {{"30569309025904@mail2.com", "30569309025904 1"},
        {"a36148900647913@web1.de", "1 30569309025904"}}) {
      Customer beside = new Customer("c-1", null, null, null, null, hidden[0], hidden[1], null, null);
      DomainException.Invalid refusedBeside = catchThrowableOfType(
          () -> rules.check(deposit(null, beside, null, Map.of())), DomainException.Invalid.class);
      assertThat(refusedBeside.violations()).as(hidden[0]).extracting(Violation::field)
          .containsExactlyInAnyOrder("customer.email", "customer.phone");
    }

    // grouped as an e-mail address's local part allows, by dots, plus signs or underscores
    for (String grouped : new String[] {"4000.0000.0000.0408@example.com", "4000+0000+0000+0408@example.com",
        "4000_0000_0000_0408@example.com"}) {
      Customer dotted = new Customer("c-1", null, null, null, null, grouped, null, null, null);
      DomainException.Invalid refusedGrouped = catchThrowableOfType(
          () -> rules.check(deposit(null, dotted, null, Map.of())), DomainException.Invalid.class);
      assertThat(refusedGrouped).as(grouped).isNotNull();
      assertThat(refusedGrouped.violations()).as(grouped).extracting(Violation::field)
          .containsExactly("customer.email");
    }

    // 13 digits passing the Luhn check: a phone number as they come
    Customer phone = new Customer("c-1", null, null, null, null, "4930123456786@example.com", "493012345678 6", null, null);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> rules.check(deposit(null, phone, null, Map.of()))))
        .isNull();
  }

  @Test
  void numbers_that_fail_the_luhn_check_are_names_and_addresses_like_any_other() {
    Customer customer = new Customer("c-1", null, "Ann", "Lee", null, null, null, null, null,
        null, null, null, "Bank 4000000000000409", null, null, null, null, null);
    BillingAddress billing = new BillingAddress("Unit 123456789012", null, "Berlin", "DE", "10115", null);

    assertThat(rules.check(deposit(null, customer, billing, Map.of())).customer().bank())
        .isEqualTo("Bank 4000000000000409");
  }

  @Test
  void a_card_number_in_the_description_or_an_additional_parameter_is_kept_masked_and_the_rest_as_sent() {
    PaymentRequestRules.Valid valid = rules.check(deposit("Card " + CARD + ", order 2026112500012345",
        null, null, Map.of("note", "paid with 5555 0000 0000 0107", "order", "4000000000000409")));

    assertThat(valid.description()).isEqualTo("Card 400000******0408, order 2026112500012345");
    assertThat(valid.additionalParameters())
        .containsEntry("note", "paid with 555500******0107")
        .containsEntry("order", "4000000000000409");
  }

  /** As JSON Schema's maxLength counts, which a client validating against the documents does. */
  @Test
  void lengths_are_counted_in_characters_so_an_emoji_is_one() {
    String emoji = "\uD83D\uDE00";
    PaymentRequestRules.Valid valid = rules.check(deposit(emoji.repeat(512), null, null, Map.of("note", "𠮷".repeat(1024))));
    assertThat(valid.description()).hasSize(1024);

    DomainException.Invalid refused = catchThrowableOfType(
        () -> rules.check(deposit(emoji.repeat(513), null, null, Map.of())), DomainException.Invalid.class);
    assertThat(refused.violations()).extracting(Violation::field).containsExactly("description");
  }

  /** As the host-to-host request's customerIp is: an address, which the fraud screen compares. */
  @Test
  void the_customers_ip_is_an_address() {
    for (String ip : new String[] {"203.0.113.9", "2001:db8::1"}) {
      Customer customer = new Customer("c-1", null, null, null, null, null, null, null, ip);
      assertThat(rules.check(deposit(null, customer, null, Map.of())).customer().ip()).isEqualTo(ip);
    }
    Customer named = new Customer("c-1", null, null, null, null, null, null, null, "not-an-ip");
    DomainException.Invalid refused = catchThrowableOfType(
        () -> rules.check(deposit(null, named, null, Map.of())), DomainException.Invalid.class);
    assertThat(refused.violations()).extracting(Violation::field).containsExactly("customer.ip");
  }

  @Test
  void the_checked_request_never_shows_its_card_number() {
    PaymentRequestRules.Valid valid = rules.check(deposit(null, null, null, Map.of()));

    assertThat(valid.cardDigits()).isEqualTo(CARD);
    assertThat(valid.toString()).doesNotContain(CARD).doesNotContain("123\"").contains("cardDigits=***");
  }
}
