package io.tollgate.rest.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.in.CheckoutUseCase;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentState;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/**
 * The checkout's forms when the use case behind them fails with an error of ours rather than a
 * refusal: the terminal's call throws after the payment was committed as sent to it, or the
 * database goes away. The customer, who has just typed their card, is sent to the payment's
 * page as after any form (it says the payment is being processed, or its result), and a page of
 * the payment that cannot be read is an HTML page to reload. Both used to reach the API's error
 * mapper and show the customer a raw JSON envelope (500 or 503).
 */
class CheckoutResourceFailureTest {

  private static final String ID = "0123456789abcdef0123456789abcdef";
  private static final String CSRF = "token";

  private final CheckoutUseCase checkout = mock(CheckoutUseCase.class);
  private final CheckoutResource resource = new CheckoutResource(checkout, id -> CSRF, new PageSeal() {
    @Override
    public String seal(String context, String plaintext) {
      return plaintext;
    }

    @Override
    public String open(String context, String sealed) {
      return null;
    }
  });

  private static RuntimeException terminalTimedOut() {
    return new IllegalStateException("the terminal did not answer in time",
        new java.net.SocketTimeoutException("Read timed out"));
  }

  private static RuntimeException databaseAway() {
    return new IllegalStateException("connection lost", new SQLTransientConnectionException("pool timed out"));
  }

  /** The answer after a form of the customer's: to the payment's page, marked to take them back once it is done. */
  private static void assertActedOn(Response answer) {
    assertThat(answer.getStatus()).isEqualTo(303);
    assertThat(answer.getLocation()).isEqualTo(URI.create("/checkout/" + ID));
    NewCookie returning = answer.getCookies().get(CheckoutResource.RETURNING);
    assertThat(returning).as("the result, once known, takes the customer back").isNotNull();
    assertThat(returning.getMaxAge()).isPositive();
  }

  @Test
  void a_card_whose_charge_fails_takes_the_customer_to_the_payment_page() {
    when(checkout.submitCard(eq(ID), any())).thenThrow(terminalTimedOut());

    assertActedOn(resource.submitCard(ID, CSRF, "4000000000000408", "Ann Lee", "12", "2045", "123"));
  }

  /** The payment as the page would read it: a card deposit in {@code state}, its card given with the request. */
  private void standing(PaymentState state) {
    Payment payment = mock(Payment.class);
    when(payment.state()).thenReturn(state);
    when(payment.method()).thenReturn(PaymentMethod.BASIC_CARD);
    when(payment.card()).thenReturn(new CardDetails("400000******0408", "token-1", "Ann Lee", "12", "2045", "VISA",
        "DE"));
    when(checkout.view(ID)).thenReturn(new CheckoutUseCase.CheckoutView(payment, null, false, 0, null, null));
  }

  @Test
  void a_card_that_came_with_the_payment_whose_charge_fails_takes_the_customer_to_the_payment_page() {
    when(checkout.processCardOnFile(ID)).thenThrow(terminalTimedOut());
    standing(PaymentState.PENDING);

    assertActedOn(resource.processCard(ID, CSRF));
  }

  /**
   * A card that came with the payment, whose sending failed before the payment moved (the
   * database refusing writes, say), is answered with a page to reload, not the payment's page:
   * that page sends the card at once, and the browser went round page and failed form as fast
   * as it could, for as long as the failure lasted.
   */
  @Test
  void a_card_that_came_with_the_payment_still_to_be_sent_after_a_failure_is_not_sent_again_at_once() {
    when(checkout.processCardOnFile(ID)).thenThrow(databaseAway());
    standing(PaymentState.CHECKOUT);

    Response answer = resource.processCard(ID, CSRF);

    assertThat(answer.getStatus()).isEqualTo(503);
    assertThat((String) answer.getEntity()).contains("Please reload it in a moment.").doesNotContain("<script");

    when(checkout.view(ID)).thenThrow(databaseAway());
    assertThat(resource.processCard(ID, CSRF).getStatus()).as("nor when the payment cannot be read").isEqualTo(503);
  }

  @Test
  void a_3ds_answer_whose_terminal_call_fails_takes_the_customer_to_the_payment_page() {
    when(checkout.completeChallenge(eq(ID), anyBoolean(), any())).thenThrow(terminalTimedOut());

    assertActedOn(resource.challenge(ID, CSRF, "pass", "1"));
  }

  @Test
  void a_cancel_while_the_database_is_away_takes_the_customer_to_the_payment_page() {
    when(checkout.cancelByCustomer(ID)).thenThrow(databaseAway());

    assertActedOn(resource.cancel(ID, CSRF));
  }

  @Test
  void a_refused_card_while_the_database_is_away_takes_the_customer_to_the_payment_page() {
    when(checkout.submitCard(eq(ID), any()))
        .thenThrow(new DomainException.Invalid(Violation.of("cardNumber", "is not a valid card number", null)));
    when(checkout.view(ID)).thenThrow(databaseAway());

    assertActedOn(resource.submitCard(ID, CSRF, "4000000000000409", "Ann Lee", "12", "2045", "123"));
  }

  @Test
  void a_bank_transfer_whose_start_fails_shows_the_payment_page_as_when_it_opens() {
    when(checkout.startBankTransfer(ID)).thenThrow(terminalTimedOut());

    Response answer = resource.bankTransfer(ID, CSRF);

    assertThat(answer.getStatus()).isEqualTo(303);
    assertThat(answer.getLocation()).isEqualTo(URI.create("/checkout/" + ID));
    assertThat(answer.getCookies()).isEmpty();
  }

  @Test
  void a_payment_page_that_cannot_be_read_is_an_html_page_to_reload_with_the_pages_headers() {
    when(checkout.view(ID)).thenThrow(databaseAway());

    Response page = resource.show(ID, null, null, "1");

    assertThat(page.getStatus()).isEqualTo(503);
    assertThat(page.getMediaType().toString()).startsWith("text/html");
    assertThat((String) page.getEntity()).startsWith("<!DOCTYPE html>").contains("Please reload it in a moment.");
    assertThat(page.getHeaderString("Retry-After")).isEqualTo("5");
    CheckoutResource.MESSAGE_HEADERS.forEach((name, value) -> assertThat(page.getHeaderString(name)).isEqualTo(value));
    assertThat(resource.peek(ID).getStatus()).as("the same for a HEAD").isEqualTo(503);
  }
}
