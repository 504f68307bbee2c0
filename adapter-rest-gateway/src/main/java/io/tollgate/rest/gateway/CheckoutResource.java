package io.tollgate.rest.gateway;

import io.tollgate.application.port.in.CardInput;
import io.tollgate.application.port.in.CheckoutUseCase;
import io.tollgate.application.port.in.CheckoutUseCase.CheckoutView;
import io.tollgate.application.port.in.CheckoutUseCase.Form;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentState;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosted checkout page ({@code /checkout/{id}}): the card form, the simulated 3-D Secure
 * challenge, cancel, and the way back to the merchant. Server-rendered, and whole without script:
 * its two scripts, which its Content-Security-Policy allows by hash and nothing else, show the
 * deadline in the customer's own time zone and send on a card that came with the payment, which
 * a button does as well. Every form carries a CSRF token bound to the payment, and every answer
 * strict security headers. A GET changes nothing but a checkout past its timeout, which it
 * cancels: whoever opens a link first, a person or a preview, charges no card by it.
 */
@Path("")
public final class CheckoutResource {

  private static final Logger LOG = LoggerFactory.getLogger(CheckoutResource.class);

  private final CheckoutUseCase checkout;
  private final UnaryOperator<String> csrfTokens;
  private final PageSeal seal;
  private final CheckoutPage page = new CheckoutPage();
  private final byte[] stylesheet;
  private final String localTimeScript;
  private final String processCardScript;
  private final String contentSecurityPolicy;

  /**
   * @param csrfTokens the CSRF token of a payment id (a keyed digest only the server can make)
   * @param seal seals a refused form into its redirect, under a key every instance shares
   */
  public CheckoutResource(CheckoutUseCase checkout, UnaryOperator<String> csrfTokens, PageSeal seal) {
    this.checkout = checkout;
    this.csrfTokens = csrfTokens;
    this.seal = seal;
    this.stylesheet = resource("checkout/checkout.css");
    this.localTimeScript = new String(resource("checkout/local-time.js"), StandardCharsets.UTF_8);
    this.processCardScript = new String(resource("checkout/process-card.js"), StandardCharsets.UTF_8);
    // no script but these, inline (as the page has them, one request fewer) and allowed by their
    // own hashes: no other script, inline or from anywhere, runs on the page that takes the card
    this.contentSecurityPolicy = "default-src 'none'; script-src '" + sha256(localTimeScript) + "' '"
        + sha256(processCardScript) + "'; "
        + "style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
  }

  private byte[] resource(String name) {
    try (InputStream in = getClass().getResourceAsStream(name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A script's hash source for a Content-Security-Policy: the digest of its text as the page has it. */
  static String sha256(String script) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(script.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + java.util.Base64.getEncoder().encodeToString(digest);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @GET
  @Path("assets/checkout.css")
  @Produces("text/css")
  public Response stylesheet() {
    return Response.ok(stylesheet).header("Cache-Control", "public, max-age=3600")
        .header("X-Content-Type-Options", "nosniff").build();
  }

  @GET
  @Path("assets/favicon.svg")
  @Produces("image/svg+xml")
  public Response favicon() {
    return Response.ok(FAVICON).header("Cache-Control", "public, max-age=86400")
        .header("X-Content-Type-Options", "nosniff").build();
  }

  /** A padlock: the page's icon, so that a browser asks for no {@code /favicon.ico} the server has not got. */
  private static final byte[] FAVICON = ("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
      + "<rect x=\"3\" y=\"7\" width=\"10\" height=\"8\" rx=\"1.5\" fill=\"#1d4ed8\"/>"
      + "<path d=\"M5 7V5a3 3 0 0 1 6 0v2\" fill=\"none\" stroke=\"#1d4ed8\" stroke-width=\"1.6\"/></svg>")
      .getBytes(StandardCharsets.UTF_8);

  @GET
  @Path("{id}")
  @Produces(MediaType.TEXT_HTML)
  public Response show(@PathParam("id") String id, @QueryParam("form") String form,
      @QueryParam("looked") String looked, @CookieParam(RETURNING) String returning) {
    // back to the merchant at once only from the customer's first view of the result after a
    // page of the payment in flight, or a form of theirs; a result opened again, by Back from the
    // merchant's page above all, shows itself and the way back
    boolean returnNow = returning != null;
    CheckoutView view;
    try {
      view = checkout.view(id);
    } catch (DomainException.NotFound e) {
      return notFound();
    } catch (RuntimeException e) {
      LOG.error("the checkout page of payment {} could not be read", id, e);
      return unavailable();
    }
    // a card that came with the request (StS mode) is not charged here but by the form this
    // page's script sends at once (see processCard)
    RefusedForm again = form == null ? null : RefusedForm.open(seal, id, form);
    if (again == null || again.keptUntil() <= System.currentTimeMillis() || !awaitingCard(view.payment())) {
      again = null;
    }
    Response page = again != null
        ? render(view, again.errors(), again.values(), again.message(), 200, false, false)
        : render(view, Map.of(), Map.of(), null, 200, returnNow, looked != null);
    if (!view.payment().state().notifiesMerchant()) {
      // the customer is on the page of a payment in flight: its result takes them back
      return Response.fromResponse(page).cookie(returning(id, RETURNING_SECONDS)).build();
    }
    if (returning != null) {
      // used up: the result has been shown once
      return Response.fromResponse(page).cookie(returning(id, 0)).build();
    }
    return page;
  }

  /**
   * A card form the checks refused: its errors and what may be shown again (never the card
   * number or security code). The refused POST is answered with a redirect to the form's page,
   * not with the page itself, so that neither a reload nor the back button sends the card again
   * (or asks the customer whether to); the form rides in that redirect, sealed for its payment
   * under the deployment's key, so that whichever instance the page's request reaches shows it,
   * and nobody can read it from the address or make one up.
   *
   * @param keptUntil when (epoch milliseconds) a reload stops showing it and shows a fresh form
   */
  record RefusedForm(Map<String, String> errors, Map<String, String> values, String message, long keptUntil) {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
        new com.fasterxml.jackson.databind.ObjectMapper();

    String sealFor(PageSeal seal, String paymentId) {
      try {
        return seal.seal(context(paymentId), JSON.writeValueAsString(this));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The form sealed for this payment; null for anything else. */
    static RefusedForm open(PageSeal seal, String paymentId, String sealed) {
      String json = sealed.length() > MAX_SEALED_FORM ? null : seal.open(context(paymentId), sealed);
      if (json == null) {
        return null;
      }
      try {
        return JSON.readValue(json, RefusedForm.class);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        return null;
      }
    }

    private static String context(String paymentId) {
      return "checkout-form:" + paymentId;
    }
  }

  /** How long a refused form is shown by its page: reloading the page after that shows a fresh form. */
  private static final java.time.Duration REFUSED_FORM_KEPT = java.time.Duration.ofMinutes(10);

  /**
   * The longest sealed form sent in a redirect. The form's page shows only what a browser's
   * form sends (the fields' own lengths bound it); past this (a form made by hand) the page is
   * answered directly instead.
   */
  private static final int MAX_SEALED_FORM = 4_000;

  /** What of a refused form's field is shown again: nothing longer than the page's field takes. */
  private static String shownAgain(String value, int maxLength) {
    return value == null || value.length() > maxLength ? "" : value;
  }

  /**
   * A HEAD (a link checker, a preview, a prefetch) answers the headers alone, without rendering
   * the page as Jersey would by {@link #show}; like a GET it charges nothing. (Like any view, it
   * cancels a checkout past its timeout, as the expiry job would.)
   */
  @HEAD
  @Path("{id}")
  @Produces(MediaType.TEXT_HTML)
  public Response peek(@PathParam("id") String id) {
    try {
      checkout.view(id);
    } catch (DomainException.NotFound e) {
      return notFound();
    } catch (RuntimeException e) {
      LOG.error("the checkout page of payment {} could not be read", id, e);
      return unavailable();
    }
    return Response.ok().type(MediaType.TEXT_HTML_TYPE.withCharset("utf-8")).header("Cache-Control", "no-store")
        .header("X-Content-Type-Options", "nosniff").build();
  }

  @POST
  @Path("{id}")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  @Produces(MediaType.TEXT_HTML)
  public Response submitCard(@PathParam("id") String id, @FormParam("csrf") String csrf,
      @FormParam("cardNumber") String cardNumber, @FormParam("cardholderName") String holder,
      @FormParam("expiryMonth") String month, @FormParam("expiryYear") String year,
      @FormParam("cardSecurityCode") String cvv) {
    if (!validCsrf(id, csrf)) {
      return forbidden();
    }
    return whereItStands(id, "card form", () -> acted(id), () -> {
      try {
        checkout.submitCard(id, new CardInput(cardNumber, null, holder, cvv, month(month), year(year)));
      } catch (DomainException.Invalid invalid) {
        CheckoutView now = checkout.view(id);
        if (!awaitingCard(now.payment())) {
          // a form sent again from another tab or the back button, after the payment moved on:
          // where it stands, not a card error over a result page
          return movedOn(now, Form.CARD);
        }
        Map<String, String> errors = new HashMap<>();
        for (Violation v : invalid.violations()) {
          errors.putIfAbsent(v.field(), v.message());
        }
        Map<String, String> values = new HashMap<>();
        // the name is filled in again, unless it holds a card number, which is never echoed
        values.put("cardholderName",
            holder == null || !io.tollgate.domain.group.Pan.maskForDisplay(holder).equals(holder)
                ? "" : shownAgain(holder, 128));
        values.put("expiryMonth", shownAgain(month, 2));
        values.put("expiryYear", shownAgain(year, 4));
        String sealed = new RefusedForm(errors, values, invalid.getMessage(),
            System.currentTimeMillis() + REFUSED_FORM_KEPT.toMillis()).sealFor(seal, id);
        if (sealed.length() > MAX_SEALED_FORM) {
          return render(now, errors, values, invalid.getMessage(), 422, false, false);
        }
        return Response.seeOther(URI.create("/checkout/" + id + "?form=" + sealed)).header("Cache-Control", "no-store")
            .build();
      } catch (DomainException.NotFound e) {
        return notFound();
      } catch (DomainException.Conflict alreadyMoved) {
        // A second submit of the same form, or one from another tab: show where the payment stands.
        return movedOn(id, Form.CARD);
      }
      return acted(id);
    });
  }

  /**
   * The card that came with the payment (StS mode) sent to be charged: the form its page's
   * script sends as soon as the page is shown, so that a browser goes straight on to the result
   * or the 3-D Secure challenge, as if the page had not been there. The charge waits for this
   * POST, never the page's GET, which a link preview, a mail scanner, a security proxy or a
   * prefetch may send before the customer does, and which must neither charge the card nor use up
   * the customer's way back to the merchant. Answered as the card form is.
   */
  @POST
  @Path("{id}/process")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  @Produces(MediaType.TEXT_HTML)
  public Response processCard(@PathParam("id") String id, @FormParam("csrf") String csrf) {
    if (!validCsrf(id, csrf)) {
      return forbidden();
    }
    return whereItStands(id, "card on file form", () -> cardOnFileFailed(id), () -> {
      try {
        checkout.processCardOnFile(id);
      } catch (DomainException.NotFound e) {
        return notFound();
      } catch (DomainException.Conflict alreadyMoved) {
        // sent again (the button pressed while the script's POST was on its way, another tab of
        // the page, a form sent long after): where the payment stands, charged once
        return movedOn(id, Form.CARD);
      }
      return acted(id);
    });
  }

  @POST
  @Path("{id}/bank-transfer")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  @Produces(MediaType.TEXT_HTML)
  public Response bankTransfer(@PathParam("id") String id, @FormParam("csrf") String csrf) {
    if (!validCsrf(id, csrf)) {
      return forbidden();
    }
    return whereItStands(id, "bank transfer form", () -> seeOther(id), () -> {
      try {
        checkout.startBankTransfer(id);
      } catch (DomainException.NotFound e) {
        return notFound();
      } catch (DomainException.Conflict alreadyMoved) {
        // asked twice, the first request opened the transfer; or from a tab left open, perhaps
        // after the transfer arrived: where it stands, not the merchant's page
        return movedOn(id, Form.BANK_TRANSFER);
      }
      return seeOther(id);
    });
  }

  @POST
  @Path("{id}/3ds")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  @Produces(MediaType.TEXT_HTML)
  public Response challenge(@PathParam("id") String id, @FormParam("csrf") String csrf,
      @FormParam("result") String result, @FormParam("attempt") String attempt) {
    if (!validCsrf(id, csrf)) {
      return forbidden();
    }
    return whereItStands(id, "3-D Secure form", () -> acted(id), () -> {
      try {
        // the form names the challenge it answers: one sent again after a cascade answers no other
        checkout.completeChallenge(id, "pass".equals(result), attempt == null || !attempt.matches("[1-9][0-9]{0,3}")
            ? null : Integer.valueOf(attempt));
      } catch (DomainException.NotFound e) {
        return notFound();
      } catch (DomainException.Conflict alreadyMoved) {
        // answered twice: the first answer stands
        return movedOn(id, Form.CHALLENGE);
      }
      return acted(id);
    });
  }

  /**
   * The bank transfer's "has it arrived?": a form, so that looking counts as the customer's act
   * however long they have waited, and the result, once there, takes them back to the merchant.
   */
  @POST
  @Path("{id}/check")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  @Produces(MediaType.TEXT_HTML)
  public Response check(@PathParam("id") String id, @FormParam("csrf") String csrf) {
    if (!validCsrf(id, csrf)) {
      return forbidden();
    }
    return Response.seeOther(URI.create("/checkout/" + id + "?looked=1")).cookie(returning(id, RETURNING_SECONDS))
        .header("Cache-Control", "no-store").build();
  }

  @POST
  @Path("{id}/cancel")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  @Produces(MediaType.TEXT_HTML)
  public Response cancel(@PathParam("id") String id, @FormParam("csrf") String csrf) {
    if (!validCsrf(id, csrf)) {
      return forbidden();
    }
    return whereItStands(id, "cancel form", () -> acted(id), () -> {
      try {
        checkout.cancelByCustomer(id);
      } catch (DomainException.NotFound e) {
        return notFound();
      } catch (DomainException.Conflict alreadyMoved) {
        // already final: show it
        return movedOn(id, Form.CANCEL);
      }
      return acted(id);
    });
  }

  /**
   * A form of the customer's answered by {@code answer}, or, when that fails with an error of ours
   * rather than a refusal (the terminal's call threw after the payment was committed as sent to
   * it, the database went away), by {@code standing}: the payment's page, as after the form. It
   * says where the payment stands, being processed or its result (or, when even that cannot be
   * read, that it cannot be shown now, to reload), instead of an API's JSON error in the
   * browser of a customer who has just typed their card. The error is logged for the operator.
   */
  private static Response whereItStands(String id, String form, Supplier<Response> standing,
      Supplier<Response> answer) {
    try {
      return answer.get();
    } catch (RuntimeException e) {
      LOG.error("the checkout page's {} of payment {} failed; the customer is sent to the payment's page", form, id, e);
      return standing.get();
    }
  }

  /**
   * After the card that came with the payment failed to be sent: the payment's page, unless the
   * payment is still waiting for it (or cannot be read), whose page would send the form again at
   * once and, with the database refusing writes, again and again, as fast as the browser goes: a
   * page to reload in a moment instead, with no script.
   */
  private Response cardOnFileFailed(String id) {
    try {
      if (!cardOnFile(checkout.view(id).payment())) {
        return acted(id);
      }
    } catch (RuntimeException e) {
      LOG.debug("payment {} could not be read after its card failed to be sent", id, e);
    }
    return unavailable();
  }

  private Response render(CheckoutView view, Map<String, String> errors, Map<String, String> values,
      String formError, int status, boolean returnNow, boolean looked) {
    Payment p = view.payment();
    String returnUrl = p.returnUrl() != null ? p.returnUrl() : view.shop().returnUrl();
    boolean done = p.state().notifiesMerchant();
    Map<String, Object> scope = new LinkedHashMap<>();
    scope.put("shopName", view.shop().name());
    // What the customer was asked to pay stays in front of them; once a terminal in another
    // currency takes the payment, what their card is charged is shown beside it.
    scope.put("amount", forReading(p.customerAmount() != null ? p.customerAmount() : p.amount()));
    if (p.customerAmount() != null && !p.customerAmount().currency().equals(p.amount().currency())) {
      scope.put("chargedAs", forReading(p.amount()));
    }
    scope.put("description", p.description());
    scope.put("csrf", csrfTokens.apply(p.id().value()));
    scope.put("paymentId", p.id().value());
    scope.put("formError", formError);
    String base = "/checkout/" + p.id().value();
    boolean awaitingCard = awaitingCard(p);
    boolean cardOnFile = cardOnFile(p);
    // only a deposit whose terminal asked for a challenge: not one being charged at this moment
    boolean awaitingChallenge = p.state() == PaymentState.PENDING && p.method() == PaymentMethod.BASIC_CARD
        && !view.unanswered() && view.challengeAttempt() > 0;
    boolean choosingTransfer = p.state() == PaymentState.CHECKOUT && p.method() == PaymentMethod.BANKTRANSFER;
    boolean awaitingTransfer = p.state() == PaymentState.PENDING && p.method() == PaymentMethod.BANKTRANSFER;
    if (cardOnFile) {
      // what a browser shows for a moment, and a customer without script reads
      scope.put("title", "Processing your payment");
      Map<String, String> process = new HashMap<>(Map.of("action", base + "/process"));
      String masked = p.card().maskedNumber();
      if (masked != null && masked.matches(".*[0-9]{4}")) {
        process.put("lastDigits", masked.substring(masked.length() - 4));
      }
      scope.put("cardOnFile", process);
      scope.put("processCardScript", processCardScript);
    } else if (awaitingCard) {
      scope.put("title", "Pay by card");
      scope.put("cardForm", cardForm(base, errors, values));
      if (!errors.isEmpty()) {
        // the page's title says so, and the summary links each field to fix
        scope.put("titlePrefix", "Error: ");
        java.util.List<Map<String, String>> summary = new java.util.ArrayList<>();
        for (String[] field : CHECKED) {
          String message = errors.get(field[0]);
          if (message != null) {
            summary.add(Map.of("field", field[2], "label", field[1], "message", message));
          }
        }
        scope.put("errorSummary", summary);
        scope.put("hasErrorSummary", !summary.isEmpty());
      }
    } else if (awaitingChallenge) {
      scope.put("title", "Confirm with your bank");
      scope.put("challenge", Map.of("action", base + "/3ds", "attempt", view.challengeAttempt()));
    } else if (choosingTransfer) {
      scope.put("title", "Pay by bank transfer");
      scope.put("transferStart", Map.of("action", base + "/bank-transfer"));
    } else if (awaitingTransfer) {
      scope.put("title", "Waiting for your transfer");
      java.util.List<Map<String, String>> rows = new java.util.ArrayList<>();
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("bankName", "Bank");
      labels.put("accountHolder", "Account holder");
      labels.put("iban", "IBAN");
      labels.put("bic", "BIC");
      labels.put("paymentReference", "Payment reference");
      labels.forEach((key, label) -> {
        String value = p.externalRefs().get(key);
        if (value != null) {
          // an IBAN in groups of four, as banks print it and customers type it
          rows.add(Map.of("label", label, "value", key.equals("iban") ? value.replaceAll("(.{4})(?!$)", "$1 ") : value,
              "key", key));
        }
      });
      // the bank expects what the terminal asked for, in its currency
      // No reloading by itself: a page that reloads under a customer copying the IBAN, or
      // reading it with a screen reader, loses their place (WCAG 2.2.1); they look again when
      // they have paid (a form: looking is theirs to do, however long after), and are taken back
      // to the merchant once it has arrived, or told it has not yet.
      scope.put("transferDetails", Map.of("rows", rows, "checkAction", base + "/check", "notYet", looked,
          "amount", forReading(p.amount())));
    } else if (done) {
      scope.put("title", "Payment " + p.state().name().toLowerCase(java.util.Locale.ROOT));
      scope.put("result", Map.of(
          "resultClass", p.state() == PaymentState.COMPLETED || p.state() == PaymentState.AUTHORIZED ? "ok" : "failed",
          "resultText", resultText(p),
          "explanation", explanation(p),
          "errorText", errorText(p)));
      if (returnUrl != null) {
        // Back to the merchant by a plain navigation from a page of ours, not at the end of the
        // redirects that follow a form: the browser holds each of those to the page's
        // form-action, and a merchant's return page may itself redirect anywhere.
        scope.put("returnTo", fillPlaceholders(returnUrl, p));
        scope.put("returnNow", returnNow);
      }
    } else if (view.unanswered()) {
      scope.put("title", "Payment in progress");
      scope.put("message", "Your card payment is being processed. Check again in a moment to see its result.");
      // a plain look at the page (the customer's mark from their form still takes them back)
      scope.put("checkAgain", base);
    } else {
      scope.put("title", "Payment in progress");
      scope.put("message", "This payment is being completed by " + view.shop().name()
          + ". You can close this page.");
    }
    if (awaitingCard || cardOnFile || awaitingChallenge || choosingTransfer) {
      if (view.payBy() != null) {
        scope.put("payBy", timeToPay(Instant.now(), view.payBy()));
        scope.put("localTimeScript", localTimeScript);
      }
      scope.put("cancellable", true);
      scope.put("cancelAction", base + "/cancel");
      // it promises the way back only where there is one: without a return URL the customer
      // stays on the result page
      scope.put("cancelLabel", returnUrl != null ? "Cancel and return to " + view.shop().name() : "Cancel payment");
    }
    return Response.status(status)
        .type(MediaType.TEXT_HTML_TYPE.withCharset("utf-8"))
        .entity(page.render(scope))
        .header("Content-Security-Policy", contentSecurityPolicy)
        .header("Cache-Control", "no-store")
        .header("X-Content-Type-Options", "nosniff")
        .header("X-Frame-Options", "DENY")
        .header("Referrer-Policy", "no-referrer")
        .build();
  }

  /** A card deposit whose customer is to type their card into the page's form. */
  private static boolean awaitingCard(Payment p) {
    return p.state() == PaymentState.CHECKOUT && p.method() == PaymentMethod.BASIC_CARD && !hasCard(p);
  }

  /** A card deposit whose card came with the request (StS mode), to be sent to be charged by {@link #processCard}. */
  private static boolean cardOnFile(Payment p) {
    return p.state() == PaymentState.CHECKOUT && p.method() == PaymentMethod.BASIC_CARD && hasCard(p);
  }

  private static boolean hasCard(Payment p) {
    return p.card() != null && p.card().cardToken() != null;
  }

  /**
   * What the card form's checks may find wrong, in the order the customer fills the form in: the
   * field a violation names, its label in the error summary, and the input that summary links to.
   */
  private static final String[][] CHECKED = {{"cardNumber", "Card number", "cardNumber"},
      {"cardholderName", "Name on card", "cardholderName"}, {"expiryMonth", "Expiry month", "expiryMonth"},
      {"expiryYear", "Expiry year", "expiryYear"}, {"expiryDate", "Expiry date", "expiryMonth"},
      {"cardSecurityCode", "Security code", "cardSecurityCode"}};

  /** The card form's inputs. */
  private static final String[] INPUTS =
      {"cardNumber", "cardholderName", "expiryMonth", "expiryYear", "cardSecurityCode"};

  /** The inputs a date already past marks: the month and year, together. */
  private static final java.util.Set<String> DATE_INPUTS = java.util.Set.of("expiryMonth", "expiryYear");

  /** The inputs a refused form never fills in again. */
  private static final java.util.List<String> NOT_SHOWN_AGAIN = java.util.List.of("cardNumber", "cardSecurityCode");

  /**
   * The card form: for each input whether it is invalid, what describes it, and whether it has
   * the focus, which goes to the first input to fix, so that a keyboard or screen reader user
   * lands where the work is. A refused form never shows the card number or security code again:
   * where they were not what was wrong, a note says why they are empty, as a hint (described,
   * not invalid, not in the summary), so that neither the focus nor a screen reader's first
   * announcement goes to a field with nothing wrong.
   */
  private static Map<String, Object> cardForm(String action, Map<String, String> errors, Map<String, String> values) {
    String focus = null;
    for (String[] field : CHECKED) {
      if (errors.containsKey(field[0])) {
        focus = field[2];
        break;
      }
    }
    Map<String, Object> state = new HashMap<>();
    Map<String, Boolean> reenter = new HashMap<>();
    for (String input : INPUTS) {
      java.util.List<String> describedBy = new java.util.ArrayList<>();
      if (errors.containsKey(input)) {
        describedBy.add(input + "-error");
      }
      if (DATE_INPUTS.contains(input) && errors.containsKey("expiryDate")) {
        describedBy.add("expiryDate-error");
      }
      boolean invalid = !describedBy.isEmpty();
      if (!errors.isEmpty() && NOT_SHOWN_AGAIN.contains(input) && !invalid) {
        reenter.put(input, true);
        describedBy.add(input + "-hint");
      }
      Map<String, Object> attributes = new HashMap<>(Map.of("invalid", invalid, "focus", input.equals(focus)));
      if (!describedBy.isEmpty()) {
        attributes.put("describedBy", String.join(" ", describedBy));
      }
      state.put(input, attributes);
    }
    return Map.of("action", action, "errors", errors, "values", values, "state", state, "reenter", reenter,
        "reenterNote", "For your security, please enter it again");
  }

  /** A month as customers type it: {@code 1} is {@code 01}. */
  static String month(String raw) {
    String m = strip(raw);
    return m != null && m.matches("[1-9]") ? "0" + m : m;
  }

  /** A year as cards print it: {@code 45} is {@code 2045}. */
  static String year(String raw) {
    String y = strip(raw);
    return y != null && y.matches("[0-9]{2}") ? "20" + y : y;
  }

  /**
   * An amount for a customer to read: thousands grouped ({@code 1,234,567.89 EUR}), and a crypto
   * amount without the zeros its eight decimals pad it with ({@code 12.50 USDT}, not
   * {@code 12.50000000}); at least the two decimals of a price.
   */
  static String forReading(io.tollgate.domain.money.Money money) {
    java.math.BigDecimal amount = money.amount();
    int scale = money.currency().scale();
    if (scale > 3) {
      // a crypto currency's: what the amount needs, at least a price's two (a dinar's three fils,
      // 1.250 BHD, are always written)
      scale = Math.max(2, amount.stripTrailingZeros().scale());
    }
    java.text.DecimalFormat format = new java.text.DecimalFormat("#,##0",
        java.text.DecimalFormatSymbols.getInstance(java.util.Locale.ROOT));
    format.setMinimumFractionDigits(scale);
    format.setMaximumFractionDigits(scale);
    format.setRoundingMode(java.math.RoundingMode.UNNECESSARY);
    return format.format(amount) + " " + money.currency().code();
  }

  private static String resultText(Payment p) {
    if (p.state() == PaymentState.CANCELLED
        && p.errorCode() == ErrorCode.E1_04_CANCELLED_BY_TIMEOUT) {
      return "The time to pay ran out, so the payment was cancelled.";
    }
    return resultText(p.state());
  }

  /**
   * The reason shown under a result: the error's code and message, except the anti-fraud
   * screen's (6.xx), which would tell whoever holds a stolen card which of the shop's lists
   * stopped it.
   */
  private static String errorText(Payment p) {
    if (p.errorCode() == null || p.errorCode() == ErrorCode.E1_04_CANCELLED_BY_TIMEOUT
        || p.errorCode().code().startsWith("6.")) {
      return "";
    }
    return p.errorCode().describe();
  }

  /**
   * What the result means for the customer, in plain words, above the code: whose answer it was
   * and that no money was taken. A decline takes none, nor does a cancel before any charge; a
   * cancel of a card held (an authorization voided) released the hold, and says only what it is.
   */
  private static String explanation(Payment p) {
    ErrorCode error = p.errorCode();
    String code = error == null ? "" : error.code();
    if (p.state() == PaymentState.CANCELLED) {
      if (error == ErrorCode.E1_04_CANCELLED_BY_TIMEOUT) {
        return "No money was taken.";
      }
      return error == ErrorCode.E2_00_CANCELLED_BY_CUSTOMER
          ? "The payment was cancelled. No money was taken." : "The payment was cancelled.";
    }
    if (p.state() != PaymentState.DECLINED) {
      return "";
    }
    if (code.startsWith("4.")) {
      return "Your bank declined the payment. No money was taken.";
    }
    if (code.startsWith("5.")) {
      return "Your bank could not confirm the payment. No money was taken.";
    }
    if (code.startsWith("6.")) {
      // the shop's own screen: not why (see errorText), but what the customer can do
      return "The payment was not accepted. No money was taken. Please pay with another card, or contact the shop.";
    }
    if (code.startsWith("7.")) {
      return "The payment was not accepted. No money was taken.";
    }
    return "The payment could not be made. No money was taken.";
  }

  /**
   * How long the customer has to pay, and until when, as their clock reads it: both to the
   * minute, the time in UTC (the server knows no customer's zone), with the date once it is not
   * today's. The minutes say it at a glance; the time stays true however long the page is left
   * open. The sentence comes in three parts, {@code before}, {@code time} and {@code after}, so
   * that the page can mark the time up with its instant ({@code datetime}), for its script to
   * write again in the customer's own zone; without script, the UTC time stays.
   */
  static Map<String, String> timeToPay(Instant now, Instant payBy) {
    ZonedDateTime from = now.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
    ZonedDateTime by = payBy.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
    long minutes = ChronoUnit.MINUTES.between(from, by);
    String time = by.format(DateTimeFormatter.ofPattern("HH:mm", java.util.Locale.ROOT)) + " UTC";
    if (!by.toLocalDate().equals(from.toLocalDate())) {
      time += by.format(DateTimeFormatter.ofPattern(" 'on' d MMMM", java.util.Locale.ENGLISH));
    }
    String datetime = DateTimeFormatter.ISO_INSTANT.format(by);
    if (minutes < 1) {
      return Map.of("before", "Please pay now: the time to pay ends at ", "time", time, "datetime", datetime,
          "after", ".");
    }
    return Map.of("before", "Please pay within " + span(minutes) + " (by ", "time", time, "datetime", datetime,
        "after", ").");
  }

  /** A number of minutes as people say it: {@code 30 minutes}, {@code 1 hour 30 minutes}, {@code 2 days}. */
  private static String span(long minutes) {
    if (minutes < 60) {
      return count(minutes, "minute");
    }
    if (minutes < 48 * 60) {
      return count(minutes / 60, "hour") + (minutes % 60 == 0 ? "" : " " + count(minutes % 60, "minute"));
    }
    return count(minutes / (24 * 60), "day");
  }

  private static String count(long n, String unit) {
    return n + " " + unit + (n == 1 ? "" : "s");
  }

  private static String resultText(PaymentState state) {
    return switch (state) {
      case COMPLETED -> "Thank you: your payment is complete.";
      case AUTHORIZED -> "Thank you: your payment is authorized.";
      case DECLINED -> "Your payment was declined.";
      case CANCELLED -> "Your payment was cancelled.";
      default -> "Your payment is in progress.";
    };
  }

  static String fillPlaceholders(String template, Payment p) {
    return template
        .replace("{id}", encode(p.id().value()))
        .replace("{referenceId}", encode(p.referenceId() == null ? "" : p.referenceId()))
        .replace("{state}", encode(p.state().name()))
        .replace("{type}", encode(p.type().name()));
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private boolean validCsrf(String id, String token) {
    if (token == null || !io.tollgate.domain.payment.PaymentId.isWellFormed(id)) {
      return false;
    }
    return MessageDigest.isEqual(csrfTokens.apply(id).getBytes(StandardCharsets.US_ASCII),
        token.getBytes(StandardCharsets.US_ASCII));
  }

  private static Response seeOther(String id) {
    return Response.seeOther(URI.create("/checkout/" + id)).header("Cache-Control", "no-store").build();
  }

  /**
   * The cookie that marks the customer's next view of the page as following a page of the
   * payment in flight, or a form of theirs: once the payment is done, that view takes them back
   * to the merchant, and uses it up. The browser keeps the result page in its history, so Back
   * from the merchant's page comes to it again; without the cookie it then shows the result and
   * the way back, instead of sending the customer on at once, which made the first press of Back
   * seem to do nothing. (A script could take the page out of the history, but the page works
   * without script, and its scripts only show the deadline and send on a card that came with the
   * payment.) It holds no secret: one made by hand only sends its maker to the merchant.
   */
  static final String RETURNING = "tollgate_returning";

  /**
   * How long the mark lasts unused: the page that follows a form may say the payment is still
   * being processed and ask for a reload in a moment, and a bank transfer's customer looks again
   * once they have sent it from their bank.
   */
  private static final int RETURNING_SECONDS = 1800;

  /** The page after a form of the customer's: once the payment is done, it returns them to the merchant. */
  private static Response acted(String id) {
    return Response.seeOther(URI.create("/checkout/" + id)).cookie(returning(id, RETURNING_SECONDS))
        .header("Cache-Control", "no-store").build();
  }

  /**
   * How soon after the payment moved on a form that found it so counts as a second press of the
   * button that moved it (a double click), and goes on as the first did.
   */
  private static final java.time.Duration SAME_PRESS = java.time.Duration.ofSeconds(5);

  private Response movedOn(String id, Form form) {
    try {
      return movedOn(checkout.view(id), form);
    } catch (DomainException.NotFound e) {
      return notFound();
    }
  }

  /**
   * The page after {@code form} found the payment already moved on. A second press of the button
   * that moved it goes on as the first did; a form from another tab, or sent long after, shows
   * where the payment stands and takes the customer nowhere: a Cancel pressed in a stale tab must
   * not land them on the merchant's page for a payment made, however soon after it was made.
   */
  private static Response movedOn(CheckoutView view, Form form) {
    Payment p = view.payment();
    String id = p.id().value();
    if (view.movedBy() == form
        && java.time.Duration.between(p.updated(), java.time.Instant.now()).compareTo(SAME_PRESS) < 0) {
      return acted(id);
    }
    return Response.seeOther(URI.create("/checkout/" + id)).cookie(returning(id, 0))
        .header("Cache-Control", "no-store").build();
  }

  private static jakarta.ws.rs.core.NewCookie returning(String id, int maxAgeSeconds) {
    return new jakarta.ws.rs.core.NewCookie.Builder(RETURNING).value("1").path("/checkout/" + id)
        .maxAge(maxAgeSeconds).httpOnly(true).sameSite(jakarta.ws.rs.core.NewCookie.SameSite.LAX).build();
  }

  private static Response notFound() {
    return plain(404, "Payment not found", "This payment does not exist or its link is wrong.");
  }

  /**
   * The page's answer when the payment cannot be read (the database is away): a page of the
   * checkout's to reload in a moment, never an API's JSON error.
   */
  private static Response unavailable() {
    return Response.fromResponse(plain(503, "Please try again in a moment",
        "This payment page cannot be shown right now. Please reload it in a moment.")).header("Retry-After", "5")
        .build();
  }

  private static Response forbidden() {
    return plain(403, "Form expired", "Please reload the payment page and try again.");
  }

  private static Response plain(int status, String title, String text) {
    Response.ResponseBuilder answer = Response.status(status).type(MediaType.TEXT_HTML_TYPE.withCharset("utf-8"))
        .entity(messagePage(title, text));
    MESSAGE_HEADERS.forEach(answer::header);
    return answer.build();
  }

  /**
   * A page of a title and a line of text in the checkout's style, for an answer that is no
   * payment's page; both are HTML as given.
   */
  static String messagePage(String title, String text) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" + title + "</title>"
        + "<link rel=\"stylesheet\" href=\"/checkout/assets/checkout.css\"></head><body><main class=\"card\">"
        + "<h1>" + title + "</h1><p>" + text + "</p></main></body></html>";
  }

  /** The headers a {@link #messagePage} is served with, besides its content type. */
  static final Map<String, String> MESSAGE_HEADERS = Map.of(
      "Content-Security-Policy", "default-src 'none'; style-src 'self'; frame-ancestors 'none'",
      "Cache-Control", "no-store",
      "X-Content-Type-Options", "nosniff");

  private static String strip(String s) {
    return s == null ? null : s.strip();
  }
}
