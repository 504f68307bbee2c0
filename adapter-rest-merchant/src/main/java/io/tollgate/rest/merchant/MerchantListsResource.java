package io.tollgate.rest.merchant;

import io.tollgate.application.port.in.MerchantQueries;
import io.tollgate.application.port.in.ProvisioningUseCase;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.Violation;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.ParametersCheckedAfterAccess;
import io.tollgate.rest.common.QueryParams;
import io.tollgate.rest.common.Timestamps;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The core lists every deployment offers: payments, operations, counterparties, terminals. */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public final class MerchantListsResource {

  record CounterpartyJson(long id, String name, String affiliateId, String affiliateName, String uniqueCode,
      String registrationDate, String createdAt, List<String> counterpartyTypes) {}

  record TerminalJson(long id, String name, String state, long merchantId, String merchantName, String providerName,
      String apiCode, String apiName, String createdAt, List<String> apiTypes) {}

  record AmountJson(String currency, BigDecimal amount) {}

  record TerminalBalanceJson(List<AmountJson> available, List<AmountJson> reserved) {}

  private final MerchantQueries queries;
  private final ProvisioningUseCase shops;
  private final Clock clock;

  MerchantListsResource(MerchantQueries queries, ProvisioningUseCase shops, Clock clock) {
    this.queries = queries;
    this.shops = shops;
    this.clock = clock;
  }

  /**
   * Our extension of the payments and operations lists ("group reporting"): only the records of
   * the shops in this shop group of the merchant's; an unknown group, or one a scoped user does
   * not see, is a 400.
   */
  static final String SHOP_GROUP = "shopGroupId.eq";

  /**
   * The {@code shopGroupId.eq} filter, or null. A group the user may not report on is one more
   * bad parameter of the request: listed with the others, and refused even when another filter
   * already means that nothing matches.
   */
  private Long shopGroup(QueryParams params, MerchantUser user, String raw) {
    Long group = params.id(SHOP_GROUP, raw);
    if (group != null && !queries.reportsOn(user, group)) {
      params.add(Violation.of(SHOP_GROUP, "unknown shop group", group));
    }
    return group;
  }

  private Map<Long, String> shopNames(MerchantUser user) {
    return shops.shopsOf(user.merchantId()).stream().collect(Collectors.toMap(s -> s.id().value(), Shop::name));
  }

  private Instant startOfToday() {
    return LocalDate.now(clock.withZone(ZoneOffset.UTC)).atStartOfDay().toInstant(ZoneOffset.UTC);
  }

  @GET
  @Path("payments")
  @ParametersCheckedAfterAccess
  public Envelope payments(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @QueryParam("created.gte") String createdGte, @QueryParam("created.lt") String createdLt,
      @QueryParam(SHOP_GROUP) String shopGroupEq, @Context ContainerRequestContext request) {
    // a parameter sent twice is one more bad parameter, listed after the permission's 403
    QueryParams params = QueryParams.of(request);
    Paging paging = Paging.read(params, offset, limit);
    Instant from = QueryParams.given(createdGte) == null ? startOfToday() : params.dateTime("created.gte", createdGte);
    Instant before = params.dateTime("created.lt", createdLt);
    MerchantUser user = BasicAuthFilter.user(request);
    Long shopGroup = shopGroup(params, user, shopGroupEq);
    params.validate();
    List<Shop> shopList = shops.shopsOf(user.merchantId());
    Map<Long, Shop> shopsById = shopList.stream().collect(Collectors.toMap(s -> s.id().value(), s -> s));
    Map<Long, String> names = shopList.stream().collect(Collectors.toMap(s -> s.id().value(), Shop::name));
    var rates = queries.currentRates();
    return Envelope.page(queries.payments(user, from, before, shopGroup, paging.offset(), paging.limit())
        .map(p -> {
          Shop shop = shopsById.get(p.payment().shopId().value());
          String base = shop == null ? null : shop.baseCurrency();
          return MerchantPaymentJson.payment(p, user.merchantId().value(), user.merchantName(), names,
              rates.toBaseCurrency(p.payment().amount()), rates.convert(p.payment().amount(), base));
        }));
  }

  @GET
  @Path("operations")
  @ParametersCheckedAfterAccess
  public Envelope operations(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @QueryParam("completed.gte") String completedGte, @QueryParam("completed.lt") String completedLt,
      @QueryParam("operation.in") String operationIn, @QueryParam("paymentState.in") String stateIn,
      @QueryParam(SHOP_GROUP) String shopGroupEq, @Context ContainerRequestContext request) {
    // a parameter sent twice is one more bad parameter, listed after the permission's 403
    QueryParams params = QueryParams.of(request);
    Paging paging = Paging.read(params, offset, limit);
    Instant from = QueryParams.given(completedGte) == null ? startOfToday()
        : params.dateTime("completed.gte", completedGte);
    Instant before = params.dateTime("completed.lt", completedLt);
    Set<OperationType> operations = names(params, "operation.in", operationIn, OperationType.class);
    Set<PaymentState> states = names(params, "paymentState.in", stateIn, PaymentState.class, REFERENCE_ONLY_STATES);
    MerchantUser user = BasicAuthFilter.user(request);
    Long shopGroup = shopGroup(params, user, shopGroupEq);
    params.validate();
    if (QueryParams.given(stateIn) != null && states.isEmpty()) {
      // only states of the reference this gateway never puts a payment in: nothing matches
      return Envelope.page(new io.tollgate.application.port.out.Page<>(java.util.List.of(), false));
    }
    Map<Long, String> names = shopNames(user);
    var rates = queries.currentRates();
    return Envelope.page(queries.operations(user, from, before, operations, states, shopGroup, paging.offset(),
        paging.limit())
        .map(o -> MerchantPaymentJson.operation(o, user.merchantId().value(), user.merchantName(), names,
            rates.toBaseCurrency(o.payment().amount()))));
  }

  /**
   * Payment states the reference lists that no payment of this gateway is ever in: a filter may
   * name them (and matches nothing by them) rather than be refused as unknown.
   */
  static final Set<String> REFERENCE_ONLY_STATES = Set.of("FRAUD_DETECTION", "PRE_PROCESSING", "INPUT_REQUIRED",
      "AWAITING_CONFIRMATION", "CASCADING_CONFIRMATION", "CASCADING_CONTINUE", "AWAITING_REDIRECT", "AWAITING_RETURN",
      "AWAITING_PRE_PROCESSING_RETURN", "RECONCILIATION", "AWAITING_WEBHOOK", "ERROR", "OPENED");

  /**
   * A comma-separated list of enum names, none when it is not sent or sent empty; an empty or
   * unknown name in the list is a violation.
   */
  static <E extends Enum<E>> Set<E> names(QueryParams params, String field, String raw, Class<E> type) {
    return names(params, field, raw, type, Set.of());
  }

  /** The distinct unknown names a 400 quotes one by one; any more are only counted. */
  static final int LISTED_UNKNOWN_NAMES = 10;

  /**
   * As {@link #names}, also accepting (and adding nothing for) the names in {@code alsoKnown}.
   * Each unknown name is quoted once, as its violation's rejected value, and only the first
   * {@link #LISTED_UNKNOWN_NAMES} of them: a list of thousands of names must not be answered
   * with a 400 of megabytes.
   */
  static <E extends Enum<E>> Set<E> names(QueryParams params, String field, String raw, Class<E> type,
      Set<String> alsoKnown) {
    Set<E> result = EnumSet.noneOf(type);
    if (QueryParams.given(raw) == null) {
      return result;
    }
    Set<String> unknown = new LinkedHashSet<>();
    for (String part : raw.split(",", -1)) {
      String name = part.strip();
      E match = null;
      for (E e : type.getEnumConstants()) {
        if (e.name().equals(name)) {
          match = e;
        }
      }
      if (match != null) {
        result.add(match);
      } else if (!alsoKnown.contains(name)) {
        unknown.add(name);
      }
    }
    if (unknown.isEmpty()) {
      return result;
    }
    // every name that is accepted, ours and those only the reference has, in one list
    Set<String> accepted = new LinkedHashSet<>();
    Arrays.stream(type.getEnumConstants()).map(Enum::name).forEach(accepted::add);
    alsoKnown.stream().sorted().forEach(accepted::add);
    String expected = "; expected one of " + String.join(", ", accepted);
    // A card number pasted in, maybe grouped by the very commas that split the list
    // (4111,1111,1111,1111): no name of it is quoted back, each part too short to be masked alone.
    if (!Pan.maskForDisplay(raw).equals(raw)) {
      params.add(Violation.of(field, "unknown name" + expected, raw));
      return result;
    }
    int listed = 0;
    for (String name : unknown) {
      if (listed++ == LISTED_UNKNOWN_NAMES) {
        int more = unknown.size() - LISTED_UNKNOWN_NAMES;
        params.add(Violation.of(field, "and " + more + " more unknown name" + (more == 1 ? "" : "s"), null));
        break;
      }
      // cut short, a longer run of digits could end in what looks like a card number
      String quoted = Pan.maskForDisplay(abbreviated(name));
      params.add(Violation.of(field, "unknown name '" + quoted + "'" + expected, quoted));
    }
    return result;
  }

  /** A name as a 400 quotes it: its first 64 characters, then "…" when there are more. */
  private static String abbreviated(String name) {
    return name.codePointCount(0, name.length()) <= 64 ? name
        : name.substring(0, name.offsetByCodePoints(0, 64)) + "…";
  }

  @GET
  @Path("counterparties")
  public Envelope counterparties(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging paging = Paging.of(offset, limit);
    return Envelope.list(queries.counterparties(BasicAuthFilter.user(request), paging.offset(), paging.limit()).stream()
        .map(c -> new CounterpartyJson(c.id(), c.name(), c.affiliateId(), c.affiliateName(), c.uniqueCode(),
            c.registrationDate() == null ? null : c.registrationDate().toString(), Timestamps.record(c.created()),
            c.types()))
        .toList());
  }

  @GET
  @Path("terminals")
  public Envelope terminals(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging paging = Paging.of(offset, limit);
    MerchantUser user = BasicAuthFilter.user(request);
    return Envelope.list(queries.terminals(user, paging.offset(), paging.limit()).stream()
        .map(t -> terminal(t, user)).toList());
  }

  static TerminalJson terminal(ReferenceData.Terminal t, MerchantUser user) {
    return new TerminalJson(t.id(), t.name(), t.state(), t.merchantId().value(), user.merchantName(),
        t.providerName(), t.apiCode(), t.apiName(), Timestamps.record(t.created()), t.apiTypes());
  }

  @GET
  @Path("terminals/{terminalId}/balance")
  public Envelope terminalBalance(@PathParam("terminalId") String terminalId, @Context ContainerRequestContext request) {
    long id = positiveId(terminalId, "Terminal not found");
    MerchantQueries.TerminalBalance b = queries.terminalBalance(BasicAuthFilter.user(request), id);
    // A currency with nothing in it is left out: the reference's amounts are at least 0.00001,
    // and a client generated from it refuses a 0. A deficit is still shown.
    Function<List<io.tollgate.domain.money.Money>, List<AmountJson>> json = l -> l.stream()
        .filter(m -> m.amount().signum() != 0).map(m -> new AmountJson(m.currency().code(), m.amount())).toList();
    return Envelope.ok(new TerminalBalanceJson(json.apply(b.available()), json.apply(b.reserved())));
  }

  static long positiveId(String raw, String notFound) {
    try {
      // ASCII digits only: Long.parseLong also reads other scripts' digits
      long id = QueryParams.isAsciiInteger(raw) ? Long.parseLong(raw) : 0;
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // falls through
    }
    throw new DomainException.NotFound(notFound);
  }
}
