package io.tollgate.persistence;

import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

final class JdbiBalanceRepository implements BalanceRepository {

  private final Jdbi jdbi;
  private final Currencies currencies;

  JdbiBalanceRepository(Jdbi jdbi, Currencies currencies) {
    this.jdbi = jdbi;
    this.currencies = currencies;
  }

  @Override
  public void post(LedgerEntry e) {
    jdbi.useTransaction(h -> {
      h.createUpdate("""
              INSERT INTO ledger_entries (shop_id, currency, available, reserved, payment_id, reason, created)
              VALUES (:shop, :currency, :available, :reserved, :payment, :reason, :at)
              """)
          .bind("shop", e.shop().value()).bind("currency", e.currency().code())
          .bind("available", e.available()).bind("reserved", e.reserved())
          .bind("payment", e.payment() == null ? null : e.payment().value())
          .bind("reason", e.reason()).bind("at", e.at()).execute();
      h.createUpdate("""
              INSERT INTO balances (shop_id, currency, available, reserved, updated)
              VALUES (:shop, :currency, :available, :reserved, :at)
              ON CONFLICT (shop_id, currency) DO UPDATE
                  SET available = balances.available + excluded.available,
                      reserved = balances.reserved + excluded.reserved,
                      updated = excluded.updated
              """)
          .bind("shop", e.shop().value()).bind("currency", e.currency().code())
          .bind("available", e.available()).bind("reserved", e.reserved()).bind("at", e.at()).execute();
    });
  }

  @Override
  public ShopBalance lock(ShopId shop, Currency currency) {
    return jdbi.inTransaction(h -> {
      h.createUpdate("""
              INSERT INTO balances (shop_id, currency, updated) VALUES (:shop, :currency, :now)
              ON CONFLICT (shop_id, currency) DO NOTHING
              """)
          .bind("shop", shop.value()).bind("currency", currency.code()).bind("now", Instant.now()).execute();
      return h.createQuery("""
              SELECT available, reserved FROM balances WHERE shop_id = :shop AND currency = :currency FOR UPDATE
              """)
          .bind("shop", shop.value()).bind("currency", currency.code())
          .map((rs, ctx) -> new ShopBalance(shop, currency, rs.getBigDecimal("available").stripTrailingZeros(),
              rs.getBigDecimal("reserved").stripTrailingZeros()))
          .one();
    });
  }

  @Override
  public List<ShopBalance> balances(ShopId shop) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT currency, available, reserved FROM balances WHERE shop_id = :shop ORDER BY currency")
        .bind("shop", shop.value())
        .map((rs, ctx) -> {
          Currency c = currencies.require(rs.getString("currency"));
          return new ShopBalance(shop, c, rs.getBigDecimal("available").setScale(c.scale()),
              rs.getBigDecimal("reserved").setScale(c.scale()));
        })
        .list());
  }
}
