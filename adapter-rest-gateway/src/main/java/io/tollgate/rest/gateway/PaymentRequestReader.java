package io.tollgate.rest.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tollgate.application.port.in.CardInput;
import io.tollgate.application.port.in.CreatePaymentCommand;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.rest.common.Json;
import java.util.List;

/** Turns a POST /payments body into a command, refusing fields of the wrong JSON type. */
final class PaymentRequestReader {

  private PaymentRequestReader() {}

  static CreatePaymentCommand read(ShopId shop, byte[] body, String idempotencyKey) {
    ObjectNode root = Json.parseObject(body);
    JsonFields f = JsonFields.root(root);
    String paymentType = f.text("paymentType");
    String paymentMethod = f.text("paymentMethod");
    var amount = f.number("amount");
    String currency = f.text("currency");
    String referenceId = f.text("referenceId");
    String description = f.text("description");
    // Empty, these optional strings are as if not sent, as clients that write every field of a
    // structure send them; referenceId and description are kept as sent, empty or not.
    String parentPaymentId = notEmpty(f.text("parentPaymentId"));
    CardInput card = card(f.object("card"));
    Customer customer = customer(f.object("customer"));
    BillingAddress billing = billing(f.object("billingAddress"));
    String returnUrl = notEmpty(f.text("returnUrl"));
    String webhookUrl = notEmpty(f.text("webhookUrl"));
    Boolean preAuth = f.bool("preAuth");
    var additional = f.stringMap("additionalParameters");
    // A charge by recurring token, or a subscription, would otherwise become a deposit waiting on
    // the checkout page for a customer who is not there. startRecurring alone is harmless: the
    // payment is made, and no recurringToken is given back.
    f.unsupported("recurringToken", "recurring payments are not supported; a card paid with before is given again as card.cardToken");
    f.unsupported("subscription", "subscriptions are not supported");
    // a wallet's token would otherwise be dropped, and the customer asked for a card instead
    f.unsupported("googlePay",
        "Google Pay is not supported; send the card, or let the customer enter it on the checkout page");
    f.unsupported("applePay",
        "Apple Pay is not supported; send the card, or let the customer enter it on the checkout page");
    // what could not be read is reported with the other fields' broken rules, all in one answer
    return new CreatePaymentCommand(shop, paymentType, paymentMethod, amount, currency,
        referenceId, description, parentPaymentId, card, customer, billing, returnUrl, webhookUrl,
        preAuth, additional, idempotencyKey, Json.fingerprint(withoutSecurityCode(root)), f.violations());
  }

  private static String notEmpty(String value) {
    return value == null || value.isEmpty() ? null : value;
  }

  /**
   * The body as its idempotency fingerprint sees it: without the card's security code, which is
   * never kept, not even as a digest that anyone holding the key could try its thousand values
   * against. A retry that differs only in it is the same request.
   */
  private static ObjectNode withoutSecurityCode(ObjectNode root) {
    if (!(root.get("card") instanceof ObjectNode card) || !card.has("cardSecurityCode")) {
      return root;
    }
    ObjectNode copy = root.deepCopy();
    ((ObjectNode) copy.get("card")).remove("cardSecurityCode");
    return copy;
  }

  private static CardInput card(JsonFields c) {
    if (c == null) {
      return null;
    }
    // empty, the number or the token is as if not sent: a client that writes both fields sends
    // the one it does not use empty
    return new CardInput(notEmpty(c.secret("cardNumber")), notEmpty(c.text("cardToken")),
        c.text("cardholderName"), c.secret("cardSecurityCode"), c.text("expiryMonth"), c.text("expiryYear"));
  }

  /**
   * Empty, the customer's optional fields whose format would refuse {@code ""} are as if not
   * sent (the reference sets no least length on them, and form-driven integrations send
   * {@code ""} for what they do not know), and so is a blank reference id. Those with a least
   * length there (citizenship country, date of birth, locale) are still refused empty; the
   * free-text ones are kept as sent.
   */
  private static Customer customer(JsonFields c) {
    if (c == null) {
      return null;
    }
    // the customer's history as the merchant counts it: refused when not the integers the
    // reference says they are, as every other field is, but not kept, as nothing uses them
    for (String history : List.of("depositsAmount", "withdrawalsAmount", "depositsCnt", "withdrawalsCnt")) {
      c.longInteger(history);
    }
    // a blank reference names no customer: kept, every guest's payment was one customer of the
    // shop, with the details of whoever paid last beside those of earlier ones
    String referenceId = c.text("referenceId");
    return new Customer(referenceId == null || referenceId.isBlank() ? null : referenceId,
        c.text("citizenshipCountryCode"), c.text("firstName"), c.text("lastName"), c.text("dateOfBirth"),
        notEmpty(c.text("email")), notEmpty(c.text("phone")), c.text("locale"), notEmpty(c.text("ip")),
        c.text("accountNumber"), c.text("accountName"), notEmpty(c.text("accountType")), c.text("bank"),
        c.text("bankCode"), c.text("bankBranch"), c.text("bankBranchCode"), notEmpty(c.text("documentType")),
        c.text("documentNumber"), c.text("routingGroup"), c.bool("kycStatus"), c.bool("paymentInstrumentKycStatus"),
        notEmpty(c.text("dateOfFirstDeposit")));
  }

  private static BillingAddress billing(JsonFields b) {
    if (b == null) {
      return null;
    }
    return new BillingAddress(b.text("addressLine1"), b.text("addressLine2"), b.text("city"),
        b.text("countryCode"), b.text("postalCode"), b.text("state"));
  }
}
