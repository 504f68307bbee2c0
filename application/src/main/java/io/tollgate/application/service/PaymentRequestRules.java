package io.tollgate.application.service;

import io.tollgate.application.port.in.CardInput;
import io.tollgate.application.port.in.CreatePaymentCommand;
import io.tollgate.domain.group.CountryCode;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.group.EmailAddress;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentType;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The field rules of a payment request (limits as in the public API's PaymentRequest), checked
 * all at once. Rules that need stored data (the refund's parent) are checked by the service.
 */
final class PaymentRequestRules {

  static final BigDecimal MAX_AMOUNT = new BigDecimal("1000000000");
  /** The reference's least amount other than a pre-authorization's 0. */
  static final BigDecimal MIN_AMOUNT = new BigDecimal("0.00001");
  private static final Pattern DIGITS_2 = Pattern.compile("^(0[1-9]|1[0-2])$");
  private static final Pattern YEAR_4 = Pattern.compile("^[0-9]{4}$");
  private static final Pattern CVV = Pattern.compile("^[0-9]{3,4}$");
  private static final Pattern CARD_DIGITS = Pattern.compile("^[0-9]{12,19}$");
  /** What may group a card number's digits: anything but a letter or digit. */
  private static final Pattern CARD_GROUPING = Pattern.compile("[^\\p{L}\\p{N}]");
  private static final Pattern LOCALE = Pattern.compile("^[A-Za-z]{2}$");
  /**
   * A phone number as merchants keep it: the reference limits only its length, and the digits
   * come grouped as written ("(020) 7224-3688", "+44 20 7224 3688").
   */
  private static final Pattern PHONE = Pattern.compile("^[0-9 +()./-]{1,18}$");
  private static final Pattern PHONE_PUNCTUATION = Pattern.compile("[^0-9]+");
  private static final int PHONE_DIGITS = 15;
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{(id|referenceId|state|type)}");
  private static final Pattern UNKNOWN_PLACEHOLDER = Pattern.compile("\\{[^{}]{0,40}}");
  private static final Pattern DOCUMENT_TYPE = Pattern.compile("^[A-Z]{2}_[A-Z0-9_]{1,20}$");
  private static final java.util.List<String> ACCOUNT_TYPES = java.util.List.of("SAVINGS", "CHECKING");
  private static final int MAX_ADDITIONAL_PARAMETERS = 50;

  /**
   * The request with every rule passed, in domain types.
   *
   * @param description the description as it is kept: with any card number in it masked
   * @param additionalParameters the parameters as they are kept: with any card number in a value masked
   */
  record Valid(
      PaymentType type,
      PaymentMethod method,
      Money amount,
      PaymentId parentPaymentId,
      String cardDigits,
      CardInput card,
      Customer customer,
      BillingAddress billingAddress,
      boolean preAuth,
      String description,
      Map<String, String> additionalParameters) {

    /** Without the card number, so that a stray log line cannot leak it (as {@link CardInput}'s). */
    @Override
    public String toString() {
      return "Valid[type=" + type + ", method=" + method + ", amount=" + amount + ", parentPaymentId=" + parentPaymentId
          + ", cardDigits=" + (cardDigits == null ? null : "***") + ", card=" + card + ", customer=" + customer
          + ", billingAddress=" + billingAddress + ", preAuth=" + preAuth + ", description=" + description
          + ", additionalParameters=" + additionalParameters + "]";
    }
  }

  /**
   * How far ahead a card's expiry can lie: cards are issued for a few years, so a later year is
   * a typing error, refused alike by the API and the payment page.
   */
  static final int EXPIRY_YEARS_AHEAD = 30;

  private final Currencies currencies;
  private final java.time.Clock clock;

  PaymentRequestRules(Currencies currencies, java.time.Clock clock) {
    this.currencies = currencies;
    this.clock = clock;
  }

  /**
   * Whether a card can expire in {@code year}: no more than {@value #EXPIRY_YEARS_AHEAD} years
   * after {@code now}'s. Any year already past (1999 as much as 2020) is a card that expired,
   * which its issuer declines (4.04, as the contract says) rather than the API refusing it.
   */
  static boolean plausibleExpiryYear(int year, java.time.Clock now) {
    return year <= YearMonth.now(now).getYear() + EXPIRY_YEARS_AHEAD;
  }

  Valid check(CreatePaymentCommand c) {
    Checks checks = new Checks(c.unreadable());

    PaymentType type = null;
    if (checks.required("paymentType", c.paymentType())) {
      type = enumValue(PaymentType.class, c.paymentType());
      if (type == null) {
        checks.add("paymentType", "must be one of DEPOSIT, WITHDRAWAL, REFUND", c.paymentType());
      }
    }

    PaymentMethod method = PaymentMethod.BASIC_CARD;
    if (c.paymentMethod() != null) {
      method = PaymentMethod.find(c.paymentMethod()).orElse(null);
      if (method == null) {
        checks.add("paymentMethod", PaymentMethod.isPublicName(c.paymentMethod())
            ? "payment method not available for this shop"
            : "unknown payment method", c.paymentMethod());
      }
    }

    boolean preAuth = Boolean.TRUE.equals(c.preAuth());
    if (preAuth && type != null && type != PaymentType.DEPOSIT) {
      checks.add("preAuth", "only a DEPOSIT can be a pre-authorization", true);
    }
    if (preAuth && method == PaymentMethod.BANKTRANSFER) {
      checks.add("preAuth", "a bank transfer cannot be a pre-authorization", true);
    }

    Currency currency = null;
    if (checks.required("currency", c.currency())) {
      currency = currencies.find(c.currency()).orElse(null);
      if (currency == null) {
        checks.add("currency", "unknown currency; use an ISO 4217 code or a supported crypto symbol", c.currency());
      }
    }

    Money amount = null;
    BigDecimal raw = c.amount();
    if (raw == null) {
      if (preAuth) {
        raw = BigDecimal.ZERO;
      } else {
        checks.add("amount", "is required", null);
      }
    }
    if (raw != null) {
      if (raw.signum() < 0) {
        checks.add("amount", "must not be negative", raw.toPlainString());
      } else if (raw.signum() == 0 && !preAuth) {
        checks.add("amount", "must be greater than 0 (0 is allowed only for a pre-authorization)", raw.toPlainString());
      } else if (raw.signum() > 0 && raw.compareTo(MIN_AMOUNT) < 0) {
        checks.add("amount", "must be at least " + MIN_AMOUNT.toPlainString(), raw.toPlainString());
      } else if (raw.compareTo(MAX_AMOUNT) > 0) {
        checks.add("amount", "must be at most " + MAX_AMOUNT.toPlainString(), raw.toPlainString());
      } else if (currency != null) {
        if (Money.fitsScale(raw, currency)) {
          amount = new Money(raw, currency);
        } else {
          checks.add("amount", "has more decimals than " + currency.code() + " allows ("
              + currency.scale() + ")", raw.toPlainString());
        }
      }
    }

    checks.maxLength("referenceId", c.referenceId(), 256);
    checks.maxLength("description", c.description(), 512);
    url(checks, "returnUrl", c.returnUrl(), true);
    url(checks, "webhookUrl", c.webhookUrl(), false);

    PaymentId parent = null;
    if (type == PaymentType.REFUND) {
      if (checks.required("parentPaymentId", c.parentPaymentId())) {
        parent = PaymentId.parse(c.parentPaymentId());
        if (parent == null) {
          checks.add("parentPaymentId", "must be the id of a payment (32 hex characters)",
              Checks.abbreviate(c.parentPaymentId()));
        }
      }
      if (c.card() != null) {
        checks.add("card", "a refund goes back to the card of its deposit; do not send a card", null);
      }
    } else if (c.parentPaymentId() != null) {
      checks.add("parentPaymentId", "only a REFUND has a parent payment", Checks.abbreviate(c.parentPaymentId()));
    }

    String digits = card(checks, c.card(), type, method);
    Customer customer = customer(checks, c.customer());
    if (type == PaymentType.WITHDRAWAL && method == PaymentMethod.BANKTRANSFER
        && (customer == null || customer.accountNumber() == null || customer.accountNumber().isBlank())) {
      checks.add("customer.accountNumber", "a bank transfer withdrawal needs the account to pay out to", null);
    }
    BillingAddress billing = billing(checks, c.billingAddress());
    additionalParameters(checks, c.additionalParameters());

    checks.throwIfAny("Invalid payment request");
    // Free text a merchant may well put an order number of 12 digits or more in: a card number
    // in it is masked rather than refused, since one in ten such numbers passes the Luhn check.
    Map<String, String> params = c.additionalParameters();
    if (!params.isEmpty()) {
      Map<String, String> masked = new java.util.LinkedHashMap<>();
      params.forEach((key, value) -> masked.put(key, Pan.maskLuhnValid(value)));
      params = java.util.Collections.unmodifiableMap(masked);
    }
    return new Valid(type, method, amount, parent, digits, c.card(), customer, billing, preAuth,
        Pan.maskLuhnValid(c.description()), params);
  }

  private String card(Checks checks, CardInput card, PaymentType type, PaymentMethod method) {
    if (card == null) {
      if (type == PaymentType.WITHDRAWAL && method == PaymentMethod.BASIC_CARD) {
        checks.add("card", "a card withdrawal needs the card (number or token) to pay out to", null);
      }
      return null;
    }
    if (method == PaymentMethod.BANKTRANSFER) {
      checks.add("card", "a bank transfer takes no card", null);
      return null;
    }
    String digits = null;
    if (card.cardNumber() != null) {
      if (card.cardNumber().length() > 23) {
        checks.add("card.cardNumber", "must be at most 23 characters", null);
      } else {
        // Spaces and punctuation ("4000.0000.0000.0408") may group the digits, as the reference
        // ignores what is not a digit; a letter is a mistyped number, never dropped:
        // "4000OOOO00000408" without its letters is another, shorter card.
        digits = CARD_GROUPING.matcher(card.cardNumber()).replaceAll("");
        if (!CARD_DIGITS.matcher(digits).matches()) {
          checks.add("card.cardNumber", "must be 12 to 19 digits, which spaces or punctuation may group", null);
          digits = null;
        }
      }
      if (card.cardToken() != null) {
        checks.add("card.cardToken", "send either a card number or a card token, not both",
            Pan.maskForDisplay(card.cardToken()));
      }
    } else if (card.cardToken() == null) {
      checks.add("card.cardNumber", "is required (or card.cardToken)", null);
    } else {
      checks.maxLength("card.cardToken", card.cardToken(), 32);
    }
    checks.maxLength("card.cardholderName", card.cardholderName(), 128);
    if (card.cardholderName() != null && holdsCardNumber(card.cardholderName())) {
      // the name is stored and sent in clear: a card number typed into it must not be
      checks.add("card.cardholderName", "must not hold a card number", Pan.maskForDisplay(card.cardholderName()));
    }
    if (card.cardSecurityCode() != null && !CVV.matcher(card.cardSecurityCode()).matches()) {
      checks.add("card.cardSecurityCode", "must be 3 or 4 digits", null);
    }
    // A charge is authorised with the card's expiry; a payout to a card is credited to its
    // number, and payout integrations often have no expiry to send.
    if (card.cardNumber() != null && type != PaymentType.WITHDRAWAL) {
      checks.required("card.expiryMonth", card.expiryMonth());
      checks.required("card.expiryYear", card.expiryYear());
    }
    checks.matches("card.expiryMonth", card.expiryMonth(), DIGITS_2, "must be two digits, 01 to 12");
    checks.matches("card.expiryYear", card.expiryYear(), YEAR_4, "must be four digits");
    if (card.expiryYear() != null && YEAR_4.matcher(card.expiryYear()).matches()) {
      int year = Integer.parseInt(card.expiryYear());
      if (!plausibleExpiryYear(year, clock)) {
        checks.add("card.expiryYear", "is not a plausible card expiry year", card.expiryYear());
      }
    }
    return digits;
  }

  private Customer customer(Checks checks, Customer c) {
    if (c == null) {
      return null;
    }
    checks.maxLength("customer.referenceId", c.referenceId(), 128);
    CountryCode citizenship = checks.valid("customer.citizenshipCountryCode", c.citizenshipCountryCode(), CountryCode::new);
    checks.maxLength("customer.firstName", c.firstName(), 128);
    checks.maxLength("customer.lastName", c.lastName(), 128);
    checks.noCardNumber("customer.firstName", c.firstName());
    checks.noCardNumber("customer.lastName", c.lastName());
    if (c.dateOfBirth() != null) {
      try {
        LocalDate born = LocalDate.parse(c.dateOfBirth());
        // by UTC's today, with a day's grace as for the first deposit: the server's own zone
        // made the same request good on one server and bad on another
        if (born.isAfter(LocalDate.ofInstant(clock.instant(), java.time.ZoneOffset.UTC).plusDays(1))
            || born.getYear() < 1900) {
          checks.add("customer.dateOfBirth", "is not a plausible date of birth", c.dateOfBirth());
        }
      } catch (DateTimeParseException e) {
        checks.add("customer.dateOfBirth", "must be a date in the form YYYY-MM-DD", Checks.abbreviate(c.dateOfBirth()));
      }
    }
    EmailAddress email = null;
    if (c.email() != null) {
      checks.maxLength("customer.email", c.email(), 256);
      checks.noLongCardNumber("customer.email", c.email());
      email = checks.valid("customer.email", c.email(), EmailAddress::new);
    }
    checks.matches("customer.phone", c.phone(), PHONE,
        "must be at most 18 characters: digits, spaces and + ( ) - . /");
    // judged as groups of digits, whatever punctuation parts them: "4000/0000/00000408" is a card;
    // and no phone number has more than 15 digits (E.164), where a card behind a country code,
    // "+14000000000000408", is one that no group of its digits shows
    if (c.phone() != null && Checks.holdsCardShapedNumber(PHONE_PUNCTUATION.matcher(c.phone()).replaceAll(" "))) {
      checks.add("customer.phone", "must not hold a card number (send it in card.cardNumber)",
          Checks.abbreviate(c.phone()));
    } else if (c.phone() != null && PHONE.matcher(c.phone()).matches()
        && PHONE_PUNCTUATION.matcher(c.phone()).replaceAll("").length() > PHONE_DIGITS) {
      // echoed with its digits hidden but the last four, as the card it may be would be
      checks.add("customer.phone", "must have at most " + PHONE_DIGITS + " digits, as a phone number has (E.164)",
          c.phone().substring(0, c.phone().length() - 4).replaceAll("[0-9]", "*")
              + c.phone().substring(c.phone().length() - 4));
    }
    checks.matches("customer.locale", c.locale(), LOCALE, "must be a two-letter language code");
    String ip = checks.clientAddress("customer.ip", c.ip());
    checks.maxLength("customer.accountNumber", c.accountNumber(), 256);
    checks.maxLength("customer.accountName", c.accountName(), 64);
    checks.noCardNumber("customer.accountName", c.accountName());
    if (c.accountType() != null && !ACCOUNT_TYPES.contains(c.accountType())) {
      checks.add("customer.accountType", "must be one of " + ACCOUNT_TYPES, Checks.abbreviate(c.accountType()));
    }
    checks.maxLength("customer.bank", c.bank(), 64);
    checks.noCardNumber("customer.bank", c.bank());
    checks.maxLength("customer.bankCode", c.bankCode(), 64);
    checks.maxLength("customer.bankBranch", c.bankBranch(), 64);
    checks.noCardNumber("customer.bankBranch", c.bankBranch());
    checks.maxLength("customer.bankBranchCode", c.bankBranchCode(), 64);
    checks.matches("customer.documentType", c.documentType(), DOCUMENT_TYPE,
        "must be a document type such as BR_CPF (country code, underscore, type)");
    checks.maxLength("customer.documentNumber", c.documentNumber(), 64);
    checks.maxLength("customer.routingGroup", c.routingGroup(), 64);
    checks.noCardNumber("customer.routingGroup", c.routingGroup());
    if (c.dateOfFirstDeposit() != null) {
      try {
        LocalDate first = LocalDate.parse(c.dateOfFirstDeposit());
        // a day's grace: the merchant's today may be ahead of UTC's
        if (first.isAfter(LocalDate.ofInstant(clock.instant(), java.time.ZoneOffset.UTC).plusDays(1))) {
          checks.add("customer.dateOfFirstDeposit", "is in the future", c.dateOfFirstDeposit());
        }
      } catch (DateTimeParseException e) {
        checks.add("customer.dateOfFirstDeposit", "must be a date in the form YYYY-MM-DD",
            Checks.abbreviate(c.dateOfFirstDeposit()));
      }
    }
    return new Customer(c.referenceId(), citizenship == null ? null : citizenship.value(),
        // the address as the merchant spelled it (checked, trimmed): the fraud screen compares
        // addresses lower-cased, and a merchant matching our answers to its records need not
        c.firstName(), c.lastName(), c.dateOfBirth(), email == null ? null : c.email().strip(),
        c.phone(), c.locale() == null ? null : c.locale().toLowerCase(java.util.Locale.ROOT), ip,
        c.accountNumber(), c.accountName(), c.accountType(), c.bank(), c.bankCode(), c.bankBranch(),
        c.bankBranchCode(), c.documentType(), c.documentNumber(), c.routingGroup(), c.kycStatus(),
        c.paymentInstrumentKycStatus(), c.dateOfFirstDeposit());
  }

  private BillingAddress billing(Checks checks, BillingAddress b) {
    if (b == null) {
      return null;
    }
    checks.maxLength("billingAddress.addressLine1", b.addressLine1(), 300);
    checks.maxLength("billingAddress.addressLine2", b.addressLine2(), 300);
    checks.maxLength("billingAddress.city", b.city(), 50);
    CountryCode country = checks.valid("billingAddress.countryCode", b.countryCode(), CountryCode::new);
    checks.maxLength("billingAddress.postalCode", b.postalCode(), 12);
    checks.maxLength("billingAddress.state", b.state(), 40);
    checks.noCardNumber("billingAddress.addressLine1", b.addressLine1());
    checks.noCardNumber("billingAddress.addressLine2", b.addressLine2());
    checks.noCardNumber("billingAddress.city", b.city());
    checks.noCardNumber("billingAddress.state", b.state());
    return new BillingAddress(b.addressLine1(), b.addressLine2(), b.city(),
        country == null ? null : country.value(), b.postalCode(), b.state());
  }

  private void additionalParameters(Checks checks, Map<String, String> params) {
    if (params.size() > MAX_ADDITIONAL_PARAMETERS) {
      checks.add("additionalParameters", "at most " + MAX_ADDITIONAL_PARAMETERS + " entries", params.size());
    }
    params.forEach((key, value) -> {
      if (key.isEmpty() || Checks.longerThan(key, 64)) {
        checks.add("additionalParameters", "keys must be 1 to 64 characters", Checks.abbreviate(key));
      } else if (Pan.holdsLuhnValidCardNumber(key)) {
        // a key is kept as sent (only values are masked): a card number has no place in one
        checks.add("additionalParameters", "keys must not hold a card number", Checks.abbreviate(key));
      }
      if (value != null && Checks.longerThan(value, 1024)) {
        checks.add("additionalParameters." + Pan.maskForDisplay(key), "must be at most 1024 characters", null);
      }
    });
  }

  /** Whether {@code text} holds what {@link Pan#maskForDisplay} takes for a card number. */
  static boolean holdsCardNumber(String text) {
    return !Pan.maskForDisplay(text).equals(text);
  }

  /**
   * The URLs the policy refuses, as violations (production refuses those that point into
   * private networks, CONTRACT section 6): a webhook URL as it is, a return URL with its
   * placeholders taken out.
   */
  static java.util.List<io.tollgate.domain.Violation> unsafeDestinations(
      io.tollgate.application.port.out.DestinationPolicy destinations,
      String webhookUrl, String returnUrl) {
    java.util.List<io.tollgate.domain.Violation> refused = new java.util.ArrayList<>();
    if (webhookUrl != null) {
      destinations.refusal(webhookUrl).ifPresent(why -> refused.add(
          new io.tollgate.domain.Violation("webhookUrl", "is not allowed: " + why, webhookUrl)));
    }
    if (returnUrl != null) {
      destinations.refusal(withoutPlaceholders(returnUrl)).ifPresent(why -> refused.add(
          new io.tollgate.domain.Violation("returnUrl", "is not allowed: " + why, returnUrl)));
    }
    return refused;
  }

  static String withoutPlaceholders(String url) {
    return PLACEHOLDER.matcher(url).replaceAll("x");
  }

  /** An absolute http(s) URL of at most 512 characters; a returnUrl may hold the placeholders. */
  static void url(Checks checks, String field, String value, boolean placeholders) {
    if (value == null) {
      return;
    }
    if (Checks.longerThan(value, 512)) {
      checks.add(field, "must be at most 512 characters", Checks.abbreviate(value));
      return;
    }
    String candidate = placeholders ? PLACEHOLDER.matcher(value).replaceAll("x") : value;
    java.util.regex.Matcher unknown = UNKNOWN_PLACEHOLDER.matcher(candidate);
    if (placeholders && unknown.find()) {
      // a brace is no URL character: most likely a placeholder misnamed, so name the right ones
      checks.add(field, "holds " + io.tollgate.domain.group.Pan.maskForDisplay(unknown.group())
          + ", which is no placeholder: use {id}, {referenceId}, {state}"
          + " or {type}", value);
      return;
    }
    try {
      URI uri = new URI(candidate);
      String scheme = uri.getScheme();
      if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
          || uri.getHost() == null) {
        checks.add(field, "must be an absolute http or https URL", value);
      }
    } catch (URISyntaxException e) {
      checks.add(field, "is not a valid URL", value);
    }
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String name) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    return null;
  }
}
