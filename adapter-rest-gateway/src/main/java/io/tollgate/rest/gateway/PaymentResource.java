package io.tollgate.rest.gateway;

import io.tollgate.rest.common.PaymentResultJson;
import io.tollgate.application.port.in.CreatePaymentUseCase;
import io.tollgate.application.port.in.CreatePaymentUseCase.CreatedPayment;
import io.tollgate.application.port.in.ListPaymentsQuery;
import io.tollgate.application.port.in.PaymentQueries;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.QueryParams;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

/** {@code /api/v1/payments}: create, read and list a shop's payments. */
@Path("payments")
@Produces(MediaType.APPLICATION_JSON)
public final class PaymentResource {

  private final CreatePaymentUseCase createPayment;
  private final PaymentQueries queries;
  private final Function<ShopId, String> shopNames;
  private final String publicBaseUrl;
  private final Clock clock;

  public PaymentResource(CreatePaymentUseCase createPayment, PaymentQueries queries,
      Function<ShopId, String> shopNames, String publicBaseUrl, Clock clock) {
    this.createPayment = createPayment;
    this.queries = queries;
    this.shopNames = shopNames;
    this.publicBaseUrl = publicBaseUrl.replaceAll("/+$", "");
    this.clock = clock;
  }

  @POST
  public Response create(byte[] body, @HeaderParam("Idempotency-Key") String idempotencyKey,
      @Context ContainerRequestContext request) {
    if (!BearerAuthFilter.isJson(request.getHeaderString("Content-Type"))) {
      throw new WebApplicationException(415);
    }
    ShopId shop = BearerAuthFilter.shop(request);
    CreatedPayment created = createPayment.create(PaymentRequestReader.read(shop, body, idempotencyKey));
    Response.ResponseBuilder answer =
        Response.ok(Envelope.ok(PaymentResultJson.of(created.payment(), publicBaseUrl, shopNames.apply(shop))));
    if (created.replayed()) {
      answer.header("Idempotent-Replayed", "true");
    }
    return answer.build();
  }

  @GET
  public Envelope list(
      @QueryParam("offset") String offset,
      @QueryParam("limit") String limit,
      @QueryParam("created.gte") String createdGte,
      @QueryParam("created.lt") String createdLt,
      @QueryParam("updated.gte") String updatedGte,
      @QueryParam("updated.lt") String updatedLt,
      @QueryParam("referenceId.eq") String referenceId,
      @Context ContainerRequestContext request) {
    ShopId shop = BearerAuthFilter.shop(request);
    QueryParams params = new QueryParams();
    int from = params.integer("offset", offset, 0, ListPaymentsQuery.MAX_OFFSET, 0);
    int size = params.integer("limit", limit, 1, ListPaymentsQuery.MAX_LIMIT, ListPaymentsQuery.DEFAULT_LIMIT);
    Instant createdFrom = params.dateTime("created.gte", createdGte);
    Instant createdBefore = params.dateTime("created.lt", createdLt);
    Instant updatedFrom = params.dateTime("updated.gte", updatedGte);
    Instant updatedBefore = params.dateTime("updated.lt", updatedLt);
    String reference = params.text("referenceId.eq", referenceId, 256);
    params.validate();
    if (createdFrom == null) {
      createdFrom = clock.instant().minus(Duration.ofHours(24));
    }
    var page = queries.list(new ListPaymentsQuery(shop, from, size, createdFrom, createdBefore,
        updatedFrom, updatedBefore, reference));
    String shopName = shopNames.apply(shop);
    return Envelope.page(page.map(p -> PaymentResultJson.of(p, publicBaseUrl, shopName).asListEntry()));
  }

  @GET
  @Path("{id}")
  public Envelope get(@PathParam("id") String id, @Context ContainerRequestContext request) {
    ShopId shop = BearerAuthFilter.shop(request);
    return Envelope.ok(PaymentResultJson.of(queries.get(shop, id), publicBaseUrl, shopNames.apply(shop)));
  }

  @GET
  @Path("{id}/operations")
  public Envelope operations(@PathParam("id") String id, @Context ContainerRequestContext request) {
    return Envelope.list(queries.operations(BearerAuthFilter.shop(request), id).stream()
        .map(PaymentResultJson.OperationJson::of).toList());
  }
}
