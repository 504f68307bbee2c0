package io.tollgate.rest.merchant;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.in.MerchantQueries;
import io.tollgate.application.port.in.SubmittedItems;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.ParametersCheckedAfterAccess;
import io.tollgate.rest.common.QueryParams;
import io.tollgate.rest.common.Timestamps;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
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
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The full profile's reference lists: BINs, customers, connectors, anti-fraud profiles, rates, banks, shop groups. */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public final class ReferenceDataResource {

  record BinJson(String bin, String cardBrand, String cardType, String issuingCountryCode, String issuingOrganization) {}

  record CustomerJson(long id, long merchantId, String merchantName, long shopId, String shopName, String referenceId,
      String firstName, String lastName, String email, String phone, String dateOfBirth) {}

  /**
   * {@code limits} are the reference's count and volume limits ({@code limitCode}, {@code timeUnit},
   * ...); we keep none, so the list is empty. A connector's amount range is one of its
   * {@code filters}.
   */
  record ConnectorJson(long id, long shopId, String state, String paymentMethod, long terminalId, int priority,
      int weight, String terminalCurrency, Long cascadingErrorCodesWhitelistId, Long cascadingErrorCodesBlacklistId,
      FiltersJson filters, List<Object> limits) {}

  /**
   * The reference's routing filters, of which we have the amount range, in the terminal's
   * currency: {@code amountGte} inclusive, {@code amountLt} exclusive, {@code amountOp} BETWEEN
   * when both are set. No {@code currency}: that filter would say the connector takes payments in
   * one currency only, while routing converts any currency into the terminal's.
   */
  record FiltersJson(String amountOp, BigDecimal amountGte, BigDecimal amountLt) {}

  /**
   * One rule, under the reference's names only: {@code ruleCode}; the country group of a country
   * rule in {@code countryGroupId}; the rule's settings as text in {@code parameters}
   * ({@code groupId=7}, or {@code threshold=3,windowMinutes=60}). A client generated from the
   * reference refuses a field it does not define, so no other is added.
   */
  record RuleJson(long id, String ruleCode, Long countryGroupId, String parameters) {

    static RuleJson of(ReferenceData.AntifraudRule r) {
      String parameters = r.groupId() != null ? "groupId=" + r.groupId()
          : r.threshold() != null ? "threshold=" + r.threshold() + ",windowMinutes=" + r.windowMinutes() : null;
      return new RuleJson(r.id(), r.rule(), r.rule().contains("COUNTRY") ? r.groupId() : null, parameters);
    }
  }

  record ProfileJson(long id, String name, String timeZoneToCheckLimits, List<RuleJson> paymentDataVerification) {}

  record RateJson(String baseCurrency, String quoteCurrency, BigDecimal rate, String lastUpdate) {}

  record BankCodeJson(String countryCode, String bankCode, String bankName) {}

  record BankCodeMappingJson(long id, String countryCode, String bankCode, String apiCode, String apiBankCode) {}

  record ShopRefJson(long id, String name) {}

  record ShopGroupJson(long id, String name, List<ShopRefJson> shops) {}

  private final MerchantQueries queries;

  ReferenceDataResource(MerchantQueries queries) {
    this.queries = queries;
  }

  @GET
  @Path("bins")
  public Envelope bins(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging p = Paging.of(offset, limit);
    return Envelope.page(queries.bins(BasicAuthFilter.user(request), p.offset(), p.limit())
        .map(b -> new BinJson(b.bin(), b.cardBrand(), b.cardType(), b.issuingCountryCode(), b.issuingOrganization())));
  }

  @GET
  @Path("customers")
  public Envelope customers(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @QueryParam("shopId.eq") String shopId, @QueryParam("id.gt") String idGt,
      @Context ContainerRequestContext request) {
    QueryParams params = new QueryParams();
    Paging p = Paging.read(params, offset, limit);
    Long shop = params.id("shopId.eq", shopId);
    Long after = params.id("id.gt", idGt);
    params.validate();
    MerchantUser user = BasicAuthFilter.user(request);
    return Envelope.page(queries.customers(user, shop, after, p.offset(), p.limit())
        .map(c -> new CustomerJson(c.id(), c.merchantId().value(), user.merchantName(), c.shopId(), c.shopName(),
            c.referenceId(), c.firstName(), c.lastName(), c.email(), c.phone(), c.dateOfBirth())));
  }

  @GET
  @Path("connectors")
  public Envelope connectors(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging p = Paging.of(offset, limit);
    return Envelope.page(queries.connectors(BasicAuthFilter.user(request), p.offset(), p.limit())
        .map(ReferenceDataResource::connector));
  }

  static ConnectorJson connector(MerchantQueries.ConnectorListing listing) {
    ReferenceData.Connector c = listing.connector();
    FiltersJson filters = new FiltersJson(
        listing.amountAtLeast() != null && listing.amountBelow() != null ? "BETWEEN" : null,
        listing.amountAtLeast(), listing.amountBelow());
    return new ConnectorJson(c.id(), c.shopId(), c.state(), c.paymentMethod(), c.terminalId(), c.priority(),
        c.weight(), c.terminalCurrency(), c.cascadingWhitelistGroupId(), c.cascadingBlacklistGroupId(), filters,
        List.of());
  }

  @GET
  @Path("antifraud-profiles")
  public Envelope antifraudProfiles(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging p = Paging.of(offset, limit);
    return Envelope.page(queries.antifraudProfiles(BasicAuthFilter.user(request), p.offset(), p.limit())
        .map(a -> new ProfileJson(a.id(), a.name(), a.timeZone(), a.rules().stream()
            .map(RuleJson::of).toList())));
  }

  @GET
  @Path("currency-rates")
  public Envelope currencyRates(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging p = Paging.of(offset, limit);
    return Envelope.page(queries.currencyRates(BasicAuthFilter.user(request), p.offset(), p.limit())
        .map(r -> new RateJson(r.baseCurrency(), r.quoteCurrency(), r.rate(), Timestamps.record(r.lastUpdate()))));
  }

  @GET
  @Path("bank-codes")
  public Envelope bankCodes(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging p = Paging.of(offset, limit);
    return Envelope.page(queries.bankCodes(BasicAuthFilter.user(request), p.offset(), p.limit())
        .map(b -> new BankCodeJson(b.countryCode(), b.bankCode(), b.bankName())));
  }

  @GET
  @Path("bank-code-mappings")
  public Envelope bankCodeMappings(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging p = Paging.of(offset, limit);
    return Envelope.page(queries.bankCodeMappings(BasicAuthFilter.user(request), p.offset(), p.limit())
        .map(m -> new BankCodeMappingJson(m.id(), m.countryCode(), m.bankCode(), m.apiCode(), m.apiBankCode())));
  }

  @GET
  @Path("shop-groups")
  @ParametersCheckedAfterAccess
  public Envelope shopGroups(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    return Envelope.page(queries.shopGroups(BasicAuthFilter.user(request), Paging.request(request, offset, limit))
        .map(ReferenceDataResource::shopGroup));
  }

  @GET
  @Path("shop-groups/{groupId}")
  public Envelope shopGroup(@PathParam("groupId") String groupId, @Context ContainerRequestContext request) {
    long id = MerchantListsResource.positiveId(groupId, "Shop group not found");
    return Envelope.ok(shopGroup(queries.shopGroup(BasicAuthFilter.user(request), id)));
  }

  @POST
  @Path("shop-groups/{groupId}/shops")
  public Response addShops(@PathParam("groupId") String groupId, byte[] body, @Context ContainerRequestContext request) {
    long id = MerchantListsResource.positiveId(groupId, "Shop group not found");
    queries.addShopsToGroup(BasicAuthFilter.user(request), id, shopIds(body, request));
    return Response.status(201).build();
  }

  @DELETE
  @Path("shop-groups/{groupId}/shops")
  public Response removeShops(@PathParam("groupId") String groupId, byte[] body,
      @Context ContainerRequestContext request) {
    long id = MerchantListsResource.positiveId(groupId, "Shop group not found");
    queries.removeShopsFromGroup(BasicAuthFilter.user(request), id, shopIds(body, request));
    return Response.noContent().build();
  }

  /** A group's shops are left out (null) for a user who may not see them. */
  static ShopGroupJson shopGroup(ReferenceData.ShopGroup g) {
    if (g.shopIds() == null) {
      return new ShopGroupJson(g.id(), g.name(), null);
    }
    List<ShopRefJson> shops = new ArrayList<>(g.shopIds().size());
    for (int i = 0; i < g.shopIds().size(); i++) {
      shops.add(new ShopRefJson(g.shopIds().get(i), g.shopNames().get(i)));
    }
    return new ShopGroupJson(g.id(), g.name(), shops);
  }

  /**
   * The request's {@code shops} array. Neither a body without one (a 400) nor items that are no
   * shop id are refused here: the use case answers them, in one 400 with the shops that are not
   * the merchant's, once the group is found to be the user's to edit.
   */
  private static SubmittedItems<Long> shopIds(byte[] body, ContainerRequestContext request) {
    JsonNode array;
    try {
      array = EditBody.read(request, body).get("shops");
    } catch (DomainException.Invalid | WebApplicationException unreadable) {
      return SubmittedItems.unreadable(unreadable);
    }
    if (array == null || !array.isArray() || array.isEmpty()) {
      return SubmittedItems.unreadable(new DomainException.Invalid("Invalid shops", List.of(Violation.of("shops",
          "must be a non-empty array", array == null || array.isNull() ? null : echo(array)))));
    }
    List<Long> ids = new ArrayList<>();
    Map<Integer, String> wrongType = new HashMap<>();
    for (int i = 0; i < array.size(); i++) {
      JsonNode n = array.get(i);
      // canConvertToLong: asLong() of a larger integer keeps its low 64 bits, another shop's id
      if (n.isIntegralNumber() && n.canConvertToLong() && n.asLong() > 0) {
        ids.add(n.asLong());
      } else {
        ids.add(null);
        wrongType.put(i, echo(n));
      }
    }
    return new SubmittedItems<>(ids, wrongType);
  }

  /** A refused value as echoed: short, masked before it is cut so that no cut leaves digits of a card number. */
  private static String echo(JsonNode value) {
    String text = Pan.maskForDisplay(value.toString());
    return text.length() > 200 ? text.substring(0, 200) + "…" : text;
  }
}
