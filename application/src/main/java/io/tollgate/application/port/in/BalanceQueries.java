package io.tollgate.application.port.in;

import io.tollgate.application.port.out.BalanceRepository.BalanceAccount;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.shop.ShopId;
import java.util.List;

public interface BalanceQueries {

  /** The shop's balance accounts, each with its stable id (see {@code BalanceRepository#accounts}). */
  List<BalanceAccount> balances(ShopId shop);

  /** What the shop may withdraw now, per currency (positive amounts only). */
  List<Money> availableForWithdrawal(ShopId shop);
}
