package io.tollgate.application.port.out;

import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * A ledger per shop and currency: every movement is an entry, and the balance row is their
 * running sum, written by {@link PaymentRepository} in the same statement as the state change
 * that caused it (see {@link PaymentRepository.Effects}).
 */
public interface BalanceRepository {

  /** The shop's balance in the currency, locked until the transaction ends (zero if none yet). */
  ShopBalance lock(ShopId shop, Currency currency);

  /**
   * As {@link #lock}, without adding a row for a currency the shop has none in (zero then): for a
   * check of a currency that may not be used in the end, which would otherwise open the shop's
   * accounts in it for good and count it as a currency in use.
   */
  ShopBalance lockHeld(ShopId shop, Currency currency);

  /**
   * Takes the shop's lock for moving what a payout holds from one currency to another, until the
   * transaction ends. Every transaction that locks or writes balances of two of the shop's
   * currencies takes it before the first of them, so that two such transactions never each hold
   * one currency while waiting for the other's; one that touches a single currency needs none.
   */
  void lockTransfers(ShopId shop);

  List<ShopBalance> balances(ShopId shop);

  /**
   * The shop's balance accounts, by currency and then type: for each currency it has held money
   * in, what it may pay out ({@code AVAILABLE}) and what pending withdrawals and refunds hold
   * back ({@code WITHDRAWAL}). An account's id is its own for good: a new currency opens
   * accounts with new ids and never renumbers the others, and no id ever names another account.
   */
  List<BalanceAccount> accounts(ShopId shop);

  /**
   * @param available change of what the shop may pay out
   * @param reserved change of what pending withdrawals and refunds hold back
   */
  record LedgerEntry(ShopId shop, Currency currency, BigDecimal available, BigDecimal reserved,
      PaymentId payment, String reason, Instant at) {}

  /**
   * What a payout holds, moved when routing changes the amount or currency it is paid in: what
   * it held is given back to the available balance ({@code release}) and what it is paid in is
   * held instead ({@code hold}), in one write with the payment's step.
   */
  record Transfer(LedgerEntry release, LedgerEntry hold) {}

  record ShopBalance(ShopId shop, Currency currency, BigDecimal available, BigDecimal reserved) {}

  /** One balance account of a shop, and what it holds. */
  record BalanceAccount(long id, ShopId shop, AccountType type, Money balance) {}

  enum AccountType {
    /** What the shop may pay out. */
    AVAILABLE,
    /** What pending withdrawals and refunds hold back. */
    WITHDRAWAL
  }
}
