package io.tollgate.rest.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tollgate.application.port.in.IdempotentActionUseCase;
import io.tollgate.application.port.in.PaymentActionsUseCase;
import io.tollgate.application.port.in.PaymentActionsUseCase.HostToHostCommand;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.Json;
import io.tollgate.rest.common.PaymentResultJson;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.util.function.Function;
import java.util.function.Supplier;

/** Host-to-host execution, capture, void, approve and reject of one payment. */
@Path("payments")
@Produces(MediaType.APPLICATION_JSON)
public final class PaymentActionsResource {

  private final PaymentActionsUseCase actions;
  private final IdempotentActionUseCase idempotency;
  private final Function<ShopId, String> shopNames;
  private final String publicBaseUrl;

  public PaymentActionsResource(PaymentActionsUseCase actions,
      IdempotentActionUseCase idempotency, Function<ShopId, String> shopNames, String publicBaseUrl) {
    this.actions = actions;
    this.idempotency = idempotency;
    this.shopNames = shopNames;
    this.publicBaseUrl = publicBaseUrl.replaceAll("/+$", "");
  }

  /**
   * Host-to-host execution. {@code Idempotency-Key} is our extension here (the contract names it
   * on POSTs): a client that lost the answer retries with the key and gets the first answer
   * again instead of a 409 for a deposit no longer in CHECKOUT.
   */
  @PATCH
  @Path("{id}")
  public Response executeHostToHost(@PathParam("id") String id, byte[] body, @HeaderParam("Idempotency-Key") String key,
      @Context ContainerRequestContext request) {
    ObjectNode json = Json.parseObject(requireJson(request, body));
    JsonFields f = JsonFields.root(json);
    HostToHostCommand command = new HostToHostCommand(f.text("customerIp"), f.text("ipCountryCode"),
        f.text("customerUserAgent"), f.integer("browserWindowWidth"), f.integer("browserWindowHeight"),
        f.integer("browserScreenWidth"), f.integer("browserScreenHeight"), f.integer("browserScreenColorDepth"),
        f.text("browserLanguage"), f.bool("browserJavaEnabled"), f.integer("browserTimezoneOffset"));
    throwIfAny(f);
    ShopId shop = BearerAuthFilter.shop(request);
    return once(shop, key, "PATCH /payments/" + id, id, json, () -> actions.executeHostToHost(shop, id, command));
  }

  @POST
  @Path("{id}/capture")
  public Response capture(@PathParam("id") String id, byte[] body, @HeaderParam("Idempotency-Key") String key,
      @Context ContainerRequestContext request) {
    BigDecimal amount = null;
    String currency = null;
    ObjectNode json = null;
    if (hasContent(body)) {
      json = Json.parseObject(requireJson(request, body));
      JsonFields f = JsonFields.root(json);
      amount = f.number("amount");
      currency = f.text("currency");
      throwIfAny(f);
    }
    BigDecimal captured = amount;
    String in = currency;
    ShopId shop = BearerAuthFilter.shop(request);
    return once(shop, key, "POST /payments/" + id + "/capture", id, json, () -> actions.capture(shop, id, captured, in));
  }

  /**
   * Void and approve have no body in the reference, so what one comes with them is not read: a
   * client's {@code []}, or {@code {}} sent as a form, acts as no body, and is no part of an
   * {@code Idempotency-Key}'s request. Only a body declared JSON that is malformed is refused (a
   * 400, as on every POST), since a broken client sent it.
   */
  @POST
  @Path("{id}/void")
  public Response voidAuthorization(@PathParam("id") String id, byte[] body,
      @HeaderParam("Idempotency-Key") String key, @Context ContainerRequestContext request) {
    unread(request, body);
    ShopId shop = BearerAuthFilter.shop(request);
    return once(shop, key, "POST /payments/" + id + "/void", id, null, () -> actions.voidAuthorization(shop, id));
  }

  @POST
  @Path("{id}/approve")
  public Response approve(@PathParam("id") String id, byte[] body, @HeaderParam("Idempotency-Key") String key,
      @Context ContainerRequestContext request) {
    unread(request, body);
    ShopId shop = BearerAuthFilter.shop(request);
    return once(shop, key, "POST /payments/" + id + "/approve", id, null, () -> actions.approve(shop, id));
  }

  @POST
  @Path("{id}/reject")
  public Response reject(@PathParam("id") String id, byte[] body, @HeaderParam("Idempotency-Key") String key,
      @Context ContainerRequestContext request) {
    String reason = null;
    ObjectNode json = null;
    if (hasContent(body)) {
      json = Json.parseObject(requireJson(request, body));
      JsonFields f = JsonFields.root(json);
      reason = f.text("rejectReason");
      throwIfAny(f);
    }
    String why = reason;
    ShopId shop = BearerAuthFilter.shop(request);
    return once(shop, key, "POST /payments/" + id + "/reject", id, json, () -> actions.reject(shop, id, why));
  }

  /**
   * The action, run once per {@code Idempotency-Key} when one is given; a replay says so in a
   * header. {@code action} is the request's method and path, told apart by the key's record
   * together with the body.
   */
  private Response once(ShopId shop, String key, String action, String paymentId, ObjectNode body,
      Supplier<Payment> run) {
    if (key == null) {
      return Response.ok(answer(run.get())).build();
    }
    String request = action + " " + (body == null ? "" : Json.fingerprint(body));
    var result = idempotency.once(shop, key, request, paymentId, run);
    Response.ResponseBuilder ok = Response.ok(answer(result.payment()));
    if (result.replayed()) {
      ok.header("Idempotent-Replayed", "true");
    }
    return ok.build();
  }

  private Envelope answer(Payment p) {
    return Envelope.ok(PaymentResultJson.of(p, publicBaseUrl, shopNames.apply(p.shopId())));
  }

  /** A body no field is read from (void's, approve's): refused only as malformed JSON. */
  private static void unread(ContainerRequestContext request, byte[] body) {
    if (hasContent(body) && BearerAuthFilter.isJson(request.getHeaderString("Content-Type"))) {
      Json.requireWellFormed(body);
    }
  }

  /**
   * Whether an optional body says anything: none, blank, and a JSON {@code null} (what a client
   * generated from the API's description sends for a body it was given no value for) do not.
   */
  private static boolean hasContent(byte[] body) {
    if (body == null) {
      return false;
    }
    String text = new String(body, java.nio.charset.StandardCharsets.UTF_8).strip();
    return !text.isEmpty() && !text.equals("null");
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
