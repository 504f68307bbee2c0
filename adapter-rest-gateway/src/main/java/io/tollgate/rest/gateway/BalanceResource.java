package io.tollgate.rest.gateway;

import io.tollgate.application.port.in.BalanceQueries;
import io.tollgate.application.port.out.BalanceRepository.BalanceAccount;
import io.tollgate.rest.common.Envelope;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/** The shop's balances: {@code /balances} (switchable per deployment) and what it may withdraw. */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public final class BalanceResource {

  /** {@code id}: the balance account's own, stable for good (never a position in this list). */
  record BalanceJson(long id, String accountType, String name, String currency, BigDecimal amount) {}

  record CurrencyAmountJson(String currency, BigDecimal amount) {}

  private final BalanceQueries balances;
  private final boolean balancesEnabled;

  public BalanceResource(BalanceQueries balances, boolean balancesEnabled) {
    this.balances = balances;
    this.balancesEnabled = balancesEnabled;
  }

  @GET
  @Path("balances")
  public Envelope balances(@Context ContainerRequestContext request) {
    if (!balancesEnabled) {
      throw new NotFoundException();
    }
    List<BalanceJson> result = new ArrayList<>();
    for (BalanceAccount account : balances.balances(BearerAuthFilter.shop(request))) {
      String code = account.balance().currency().code();
      String name = switch (account.type()) {
        case AVAILABLE -> "Available " + code;
        case WITHDRAWAL -> "Held for pending withdrawals and refunds " + code;
      };
      result.add(new BalanceJson(account.id(), account.type().name(), name, code, account.balance().amount()));
    }
    return Envelope.list(result);
  }

  @GET
  @Path("available-withdrawal-balances")
  public Envelope availableForWithdrawal(@Context ContainerRequestContext request) {
    return Envelope.list(balances.availableForWithdrawal(BearerAuthFilter.shop(request)).stream()
        .map(m -> new CurrencyAmountJson(m.currency().code(), m.amount())).toList());
  }
}
