package io.tollgate.rest.merchant;

import io.tollgate.application.port.in.BalanceQueries;
import io.tollgate.application.port.in.MerchantQueries;
import io.tollgate.application.port.out.BalanceRepository.BalanceAccount;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.rest.common.Envelope;
import io.tollgate.rest.common.Timestamps;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The merchant's shops and their balances (lists without {@code hasMore}); for a user scoped to
 * a shop group, only the shops in its group.
 */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public final class MerchantRecordsResource {

  /**
   * {@code checkoutTimeout} in whole minutes, as the reference has it: a part of a minute counts
   * as one. A shop has one name, which is also the name it is displayed by. The operator's
   * settings the reference has no field for (the withdrawal balance check, approval of
   * withdrawals) are shown by {@code shop list}, not here: a client generated from the
   * reference refuses a field it does not define. A password in the webhook URL's user part is
   * shown as {@code ***}, as in the delivery log: every user of the merchant reads the shops.
   */
  record ShopJson(long id, String name, String displayName, String state, long merchantId, String merchantName,
      String webhookUrl, String returnUrl, String baseCurrency, long checkoutTimeout, Long antiFraudProfileId,
      String createdAt) {

    static ShopJson of(Shop s, String merchantName) {
      long seconds = s.checkoutTimeout().toSeconds();
      return new ShopJson(s.id().value(), s.name(), s.name(), "ACTIVE", s.merchantId().value(), merchantName,
          Shop.withoutPassword(s.webhookUrl()), s.returnUrl(), s.baseCurrency(), (seconds + 59) / 60,
          s.antifraudProfileId(), Timestamps.record(s.created()));
    }
  }

  /** {@code id}: the balance account's own, stable for good (never a position in this list). */
  record BalanceJson(long id, String accountType, String name, String currency, BigDecimal amount) {}

  record WithdrawableJson(long shopId, String shopName, String currency, BigDecimal amount) {}

  private final MerchantQueries shops;
  private final BalanceQueries balances;

  MerchantRecordsResource(MerchantQueries shops, BalanceQueries balances) {
    this.shops = shops;
    this.balances = balances;
  }

  @GET
  @Path("shops")
  public Envelope shops(@QueryParam("offset") String offset, @QueryParam("limit") String limit,
      @Context ContainerRequestContext request) {
    Paging paging = Paging.of(offset, limit);
    var user = BasicAuthFilter.user(request);
    List<Shop> all = shops.shops(user);
    return Envelope.list(all.stream().skip(paging.offset()).limit(paging.limit())
        .map(s -> ShopJson.of(s, user.merchantName())).toList());
  }

  @GET
  @Path("balances")
  public Envelope balances(@Context ContainerRequestContext request) {
    MerchantUser user = BasicAuthFilter.user(request);
    List<BalanceJson> result = new ArrayList<>();
    for (Shop shop : shops.shops(user)) {
      for (BalanceAccount account : balances.balances(shop.id())) {
        String code = account.balance().currency().code();
        String name = switch (account.type()) {
          case AVAILABLE -> shop.name() + " available " + code;
          case WITHDRAWAL -> shop.name() + " held for pending withdrawals and refunds " + code;
        };
        result.add(new BalanceJson(account.id(), account.type().name(), name, code, account.balance().amount()));
      }
    }
    return Envelope.list(result);
  }

  @GET
  @Path("available-withdrawal-balances")
  public Envelope availableForWithdrawal(@Context ContainerRequestContext request) {
    MerchantUser user = BasicAuthFilter.user(request);
    List<WithdrawableJson> result = new ArrayList<>();
    for (Shop shop : shops.shops(user)) {
      balances.availableForWithdrawal(shop.id()).forEach(m ->
          result.add(new WithdrawableJson(shop.id().value(), shop.name(), m.currency().code(), m.amount())));
    }
    return Envelope.list(result);
  }
}
