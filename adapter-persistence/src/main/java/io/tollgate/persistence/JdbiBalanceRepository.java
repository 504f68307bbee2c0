package io.tollgate.persistence;

import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

final class JdbiBalanceRepository implements BalanceRepository {

  private final Jdbi jdbi;
  private final Currencies currencies;

  JdbiBalanceRepository(Jdbi jdbi, Currencies currencies) {
    this.jdbi = jdbi;
    this.currencies = currencies;
  }

  /** Slots a balance is spread over; see V8__balance_slots.sql. */
  static final int SLOTS = 32;

  /**
   * Whether an entry spreads over the slots: only those that purely add to the available
   * balance (completed deposits, the hot path). Everything that takes money away uses slot 0.
   *
   * <p>A spreading entry takes the first slot row above 0 that no other transaction holds
   * ({@code FOR UPDATE SKIP LOCKED}), so a completed deposit never waits for another one's
   * commit to be flushed: with random slots, one final step in five waited 5-13 ms in S1. Only
   * when every existing slot row is held does it fall back to a random slot (see
   * {@link #slotFor}), which adds a row while fewer than {@link #SLOTS} exist.
   */
  static boolean spreads(LedgerEntry e) {
    return e.available().signum() >= 0 && e.reserved().signum() == 0;
  }

  /** The slot an entry goes to when it does not spread, or no free slot row was found. */
  static int slotFor(LedgerEntry e) {
    return spreads(e) ? 1 + java.util.concurrent.ThreadLocalRandom.current().nextInt(SLOTS - 1) : 0;
  }

  @Override
  public ShopBalance lock(ShopId shop, Currency currency) {
    return jdbi.inTransaction(h -> {
      h.createUpdate("""
              INSERT INTO balances (shop_id, currency, slot, updated) VALUES (:shop, :currency, 0, :now)
              ON CONFLICT (shop_id, currency, slot) DO NOTHING
              """)
          .bind("shop", shop.value()).bind("currency", currency.code()).bind("now", Instant.now()).execute();
      return lockRows(h, shop, currency);
    });
  }

  @Override
  public ShopBalance lockHeld(ShopId shop, Currency currency) {
    return jdbi.inTransaction(h -> lockRows(h, shop, currency));
  }

  /**
   * Every slot row of the shop's balance in the currency, locked in slot order, and their sum (zero for none).
   * Slot 0 is written with the first slot row of a shop and currency (V45__balance_slot_zero_first.sql), so a
   * transaction that sees any slot sees slot 0 and locks it first: two lockers queue there, the second then
   * reads what the first wrote to slot 0, and neither holds a slot above 0 while waiting for slot 0.
   */
  private static ShopBalance lockRows(Handle h, ShopId shop, Currency currency) {
    return h.createQuery("""
            SELECT available, reserved FROM balances WHERE shop_id = :shop AND currency = :currency
            ORDER BY slot FOR UPDATE
            """)
        .bind("shop", shop.value()).bind("currency", currency.code())
        .map((rs, ctx) -> new java.math.BigDecimal[] {rs.getBigDecimal("available"), rs.getBigDecimal("reserved")})
        .list().stream()
        .reduce((a, b) -> new java.math.BigDecimal[] {a[0].add(b[0]), a[1].add(b[1])})
        .map(sum -> new ShopBalance(shop, currency, sum[0].stripTrailingZeros(), sum[1].stripTrailingZeros()))
        .orElse(new ShopBalance(shop, currency, java.math.BigDecimal.ZERO, java.math.BigDecimal.ZERO));
  }

  /** The shop's transfer lock, keyed by a 64-bit hash of its name seeded with the shop, as a card's lock is. */
  private static final String LOCK_TRANSFERS =
      "SELECT 1 FROM pg_advisory_xact_lock(hashtextextended('tollgate: balance transfers', :shop))";

  @Override
  public void lockTransfers(ShopId shop) {
    jdbi.useTransaction(h -> lockTransfers(h, shop.value()));
  }

  private static void lockTransfers(Handle h, long shop) {
    h.createQuery(LOCK_TRANSFERS).bind("shop", shop).mapTo(Integer.class).one();
  }

  /**
   * Writes a payout's transfer in the transaction of its step: the shop's transfer lock first,
   * then each balance moved, in the order of the currency codes (slot 0, as everything that
   * takes money away), then the two entries, release before hold.
   */
  static void transfer(Handle h, Transfer transfer) {
    lockTransfers(h, transfer.hold().shop().value());
    List<LedgerEntry> byCurrency = java.util.stream.Stream.of(transfer.release(), transfer.hold())
        .sorted(java.util.Comparator.comparing(e -> e.currency().code())).toList();
    for (LedgerEntry e : byCurrency) {
      h.createUpdate("""
              INSERT INTO balances (shop_id, currency, slot, available, reserved, updated)
              VALUES (:shop, :currency, 0, :available, :reserved, :at)
              ON CONFLICT (shop_id, currency, slot) DO UPDATE
                  SET available = balances.available + excluded.available,
                      reserved = balances.reserved + excluded.reserved,
                      updated = excluded.updated
              """)
          .bind("shop", e.shop().value()).bind("currency", e.currency().code()).bind("available", e.available())
          .bind("reserved", e.reserved()).bind("at", e.at()).execute();
    }
    for (LedgerEntry e : List.of(transfer.release(), transfer.hold())) {
      h.createUpdate("""
              INSERT INTO ledger_entries (shop_id, currency, available, reserved, payment_id, reason, created)
              VALUES (:shop, :currency, :available, :reserved, :payment, :reason, :at)
              """)
          .bind("shop", e.shop().value()).bind("currency", e.currency().code()).bind("available", e.available())
          .bind("reserved", e.reserved()).bind("payment", e.payment().value()).bind("reason", e.reason())
          .bind("at", e.at()).execute();
    }
  }

  @Override
  public List<ShopBalance> balances(ShopId shop) {
    return jdbi.withHandle(h -> h.createQuery(
            """
            SELECT currency, sum(available) AS available, sum(reserved) AS reserved FROM balances
            WHERE shop_id = :shop GROUP BY currency ORDER BY currency
            """)
        .bind("shop", shop.value())
        .map((rs, ctx) -> {
          Currency c = currencies.require(rs.getString("currency"));
          return new ShopBalance(shop, c, rs.getBigDecimal("available").setScale(c.scale()),
              rs.getBigDecimal("reserved").setScale(c.scale()));
        })
        .list());
  }

  /** The accounts are opened by the first balance row of their currency (V17__balance_accounts.sql). */
  @Override
  public List<BalanceAccount> accounts(ShopId shop) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT a.id, a.currency, a.account_type,
                   sum(CASE a.account_type WHEN 'AVAILABLE' THEN b.available ELSE b.reserved END) AS amount
              FROM balance_accounts a
              JOIN balances b ON b.shop_id = a.shop_id AND b.currency = a.currency
             WHERE a.shop_id = :shop
             GROUP BY a.id, a.currency, a.account_type
             ORDER BY a.currency, a.account_type
            """)
        .bind("shop", shop.value())
        .map((rs, ctx) -> {
          Currency c = currencies.require(rs.getString("currency"));
          return new BalanceAccount(rs.getLong("id"), shop, AccountType.valueOf(rs.getString("account_type")),
              new Money(rs.getBigDecimal("amount").setScale(c.scale()), c));
        })
        .list());
  }
}
