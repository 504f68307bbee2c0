package io.tollgate.rest.gateway;

import io.tollgate.rest.common.PaymentResultJson;
import io.tollgate.application.port.in.PaymentActionsUseCase;
import io.tollgate.application.port.in.PaymentActionsUseCase.HostToHostCommand;
import io.tollgate.domain.DomainException;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.Json;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.math.BigDecimal;

/** Host-to-host execution, capture, void, approve and reject of one payment. */
@Path("payments")
@Produces(MediaType.APPLICATION_JSON)
public final class PaymentActionsResource {

  private final PaymentActionsUseCase actions;
  private final String publicBaseUrl;

  public PaymentActionsResource(PaymentActionsUseCase actions, String publicBaseUrl) {
    this.actions = actions;
    this.publicBaseUrl = publicBaseUrl.replaceAll("/+$", "");
  }

  @PATCH
  @Path("{id}")
  public Envelope executeHostToHost(@PathParam("id") String id, byte[] body, @Context ContainerRequestContext request) {
    JsonFields f = JsonFields.root(Json.parseObject(requireJson(request, body)));
    HostToHostCommand command = new HostToHostCommand(f.text("customerIp"), f.text("ipCountryCode"),
        f.text("customerUserAgent"), f.integer("browserWindowWidth"), f.integer("browserWindowHeight"),
        f.integer("browserScreenWidth"), f.integer("browserScreenHeight"), f.integer("browserScreenColorDepth"),
        f.text("browserLanguage"), f.bool("browserJavaEnabled"), f.integer("browserTimezoneOffset"));
    throwIfAny(f);
    return answer(actions.executeHostToHost(BearerAuthFilter.shop(request), id, command));
  }

  @POST
  @Path("{id}/capture")
  public Envelope capture(@PathParam("id") String id, byte[] body, @Context ContainerRequestContext request) {
    BigDecimal amount = null;
    if (hasContent(body)) {
      JsonFields f = JsonFields.root(Json.parseObject(requireJson(request, body)));
      amount = f.number("amount");
      throwIfAny(f);
    }
    return answer(actions.capture(BearerAuthFilter.shop(request), id, amount));
  }

  @POST
  @Path("{id}/void")
  public Envelope voidAuthorization(@PathParam("id") String id, @Context ContainerRequestContext request) {
    return answer(actions.voidAuthorization(BearerAuthFilter.shop(request), id));
  }

  @POST
  @Path("{id}/approve")
  public Envelope approve(@PathParam("id") String id, @Context ContainerRequestContext request) {
    return answer(actions.approve(BearerAuthFilter.shop(request), id));
  }

  @POST
  @Path("{id}/reject")
  public Envelope reject(@PathParam("id") String id, byte[] body, @Context ContainerRequestContext request) {
    String reason = null;
    if (hasContent(body)) {
      JsonFields f = JsonFields.root(Json.parseObject(requireJson(request, body)));
      reason = f.text("rejectReason");
      throwIfAny(f);
    }
    return answer(actions.reject(BearerAuthFilter.shop(request), id, reason));
  }

  private Envelope answer(io.tollgate.domain.payment.Payment p) {
    return Envelope.ok(PaymentResultJson.of(p, publicBaseUrl));
  }

  private static boolean hasContent(byte[] body) {
    return body != null && !new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank();
  }

  private static byte[] requireJson(ContainerRequestContext request, byte[] body) {
    if (!BearerAuthFilter.isJson(request.getHeaderString("Content-Type"))) {
      throw new WebApplicationException(415);
    }
    return body;
  }

  private static void throwIfAny(JsonFields f) {
    if (!f.violations().isEmpty()) {
      throw new DomainException.Invalid("Invalid request", f.violations());
    }
  }
}
