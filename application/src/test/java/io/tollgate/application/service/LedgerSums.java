package io.tollgate.application.service;

import io.tollgate.application.port.out.BalanceRepository.LedgerEntry;
import java.math.BigDecimal;
import java.util.List;

/** What a test's ledger entries add up to. */
final class LedgerSums {

  private LedgerSums() {}

  /** {available, reserved} of the entries in the currency. */
  static BigDecimal[] of(List<LedgerEntry> ledger, String currency) {
    BigDecimal available = BigDecimal.ZERO;
    BigDecimal reserved = BigDecimal.ZERO;
    for (LedgerEntry e : ledger) {
      if (e.currency().code().equals(currency)) {
        available = available.add(e.available());
        reserved = reserved.add(e.reserved());
      }
    }
    return new BigDecimal[] {available, reserved};
  }
}
