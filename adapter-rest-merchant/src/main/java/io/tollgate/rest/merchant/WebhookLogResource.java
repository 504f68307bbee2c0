package io.tollgate.rest.merchant;

import io.tollgate.application.port.in.WebhookLogUseCase;
import io.tollgate.application.port.out.WebhookOutbox.Attempt;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.ParametersCheckedAfterAccess;
import io.tollgate.rest.common.Timestamps;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Our extension of the merchant API: a payment's webhook delivery log, and resending its
 * latest event.
 */
@Path("payments/{id}/webhooks")
@Produces(MediaType.APPLICATION_JSON)
public final class WebhookLogResource {

  /**
   * One delivery attempt.
   *
   * @param status the event's status after this attempt: DELIVERED, PENDING (a retry is due) or FAILED
   */
  record AttemptJson(String webhookId, String paymentState, int attempt, String url, String started,
      long durationMs, Integer statusCode, String error, String status) {

    static AttemptJson of(Attempt a) {
      return new AttemptJson(a.eventId(), a.paymentState().name(), a.number(), a.url(),
          Timestamps.record(a.started()), a.duration().toMillis(), a.statusCode(), a.error(), a.eventStatus().name());
    }
  }

  private final WebhookLogUseCase webhooks;

  WebhookLogResource(WebhookLogUseCase webhooks) {
    this.webhooks = webhooks;
  }

  /** A page of the attempts, newest first: paged as the other lists are, a bad page a 400 only for a visible payment. */
  @GET
  @ParametersCheckedAfterAccess
  public Envelope attempts(@PathParam("id") String id, @QueryParam("offset") String offset,
      @QueryParam("limit") String limit, @Context ContainerRequestContext request) {
    MerchantUser user = BasicAuthFilter.user(request);
    return Envelope.page(webhooks.attempts(user, paymentId(id), Paging.request(request, offset, limit))
        .map(AttemptJson::of));
  }

  @POST
  @Path("resend")
  public Response resend(@PathParam("id") String id, @Context ContainerRequestContext request) {
    webhooks.resend(BasicAuthFilter.user(request), paymentId(id));
    return Response.accepted().build();
  }

  private static PaymentId paymentId(String id) {
    PaymentId parsed = PaymentId.parse(id);
    if (parsed == null) {
      throw new DomainException.NotFound("Payment not found");
    }
    return parsed;
  }
}
