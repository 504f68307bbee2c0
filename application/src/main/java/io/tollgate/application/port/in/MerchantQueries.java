package io.tollgate.application.port.in;

import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository.OperationWithPayment;
import io.tollgate.application.port.out.PaymentRepository.PaymentWithRefunds;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.user.MerchantUser;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * What merchant users read through the merchant API, scoped to their merchant: another
 * merchant's record is a 404, never a 403.
 */
public interface MerchantQueries {

  Page<PaymentWithRefunds> payments(MerchantUser user, Instant createdFrom, Instant createdBefore, int offset,
      int limit);

  Page<OperationWithPayment> operations(MerchantUser user, Instant completedFrom, Instant completedBefore,
      Set<OperationType> operations, Set<PaymentState> paymentStates, int offset, int limit);

  List<ReferenceData.Counterparty> counterparties(MerchantUser user, int offset, int limit);

  List<ReferenceData.Terminal> terminals(MerchantUser user, int offset, int limit);

  /** 404 for another merchant's terminal or one whose API has no BALANCE. */
  TerminalBalance terminalBalance(MerchantUser user, long terminalId);

  Page<ReferenceData.BinRecord> bins(MerchantUser user, int offset, int limit);

  Page<ReferenceData.CustomerRecord> customers(MerchantUser user, Long shopId, Long idAfter, int offset, int limit);

  Page<ConnectorListing> connectors(MerchantUser user, int offset, int limit);

  Page<ReferenceData.AntifraudProfile> antifraudProfiles(MerchantUser user, int offset, int limit);

  Page<ReferenceData.CurrencyRate> currencyRates(MerchantUser user, int offset, int limit);

  Page<ReferenceData.BankCode> bankCodes(MerchantUser user, int offset, int limit);

  Page<ReferenceData.BankCodeMapping> bankCodeMappings(MerchantUser user, int offset, int limit);

  /** Needs SHOP_GROUP_VIEW, as one group does: each listed group shows its shops. */
  Page<ReferenceData.ShopGroup> shopGroups(MerchantUser user, int offset, int limit);

  /** Needs SHOP_GROUP_VIEW. */
  ReferenceData.ShopGroup shopGroup(MerchantUser user, long groupId);

  /**
   * Needs SHOP_GROUP_EDIT; every item must be a shop id of the merchant's (else a 400 listing
   * every bad item), all or nothing.
   */
  void addShopsToGroup(MerchantUser user, long groupId, SubmittedItems<Long> shopIds);

  /** As {@link #addShopsToGroup}. */
  void removeShopsFromGroup(MerchantUser user, long groupId, SubmittedItems<Long> shopIds);

  record TerminalBalance(List<Money> available, List<Money> reserved) {}

  /**
   * A connector and the amounts routing sends through it, in the connector's currency, as a
   * half-open range: at least {@code amountAtLeast}, below {@code amountBelow}; null where the
   * connector sets no bound.
   */
  record ConnectorListing(ReferenceData.Connector connector, BigDecimal amountAtLeast, BigDecimal amountBelow) {}
}
