package io.tollgate.application.port.in;

import io.tollgate.application.port.out.BalanceRepository.ShopBalance;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.shop.ShopId;
import java.util.List;

public interface BalanceQueries {

  List<ShopBalance> balances(ShopId shop);

  /** What the shop may withdraw now, per currency (positive amounts only). */
  List<Money> availableForWithdrawal(ShopId shop);
}
