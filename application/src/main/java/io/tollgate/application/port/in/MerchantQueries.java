package io.tollgate.application.port.in;

import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository.OperationWithPayment;
import io.tollgate.application.port.out.PaymentRepository.PaymentWithRefunds;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.user.MerchantUser;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * What merchant users read through the merchant API, scoped to their merchant: another
 * merchant's record is a 404, never a 403. A user scoped to a shop group sees of the records
 * kept per shop (payments, operations, shops, balances, customers, connectors, a terminal's
 * balance, webhook logs) only those of the shops in its group at the time of the request; a
 * record of another shop is a 404 as another merchant's is. Counterparties, terminals,
 * anti-fraud profiles and the entry groups (BIN, e-mail, card, country, error code) are the
 * merchant's, not a shop's: a scoped user sees them all.
 */
public interface MerchantQueries {

  /**
   * @param shopGroup only payments of the shops in this shop group of the merchant's (null: no
   *     such filter)
   * @throws io.tollgate.domain.DomainException.Invalid for a shop group that is unknown, another
   *     merchant's, or, for a scoped user, not its own
   */
  Page<PaymentWithRefunds> payments(MerchantUser user, Instant createdFrom, Instant createdBefore, Long shopGroup,
      int offset, int limit);

  /**
   * Whether the user may report on this shop group ({@code shopGroupId.eq}): a group of its
   * merchant's and, for a user scoped to a shop group, its own. The lists check it as well; a
   * resource asks first so that the group is refused with the request's other bad parameters.
   * A group the user may report on needs SHOP_GROUP_VIEW unless it is the user's own scope (the
   * list shows the group's shops): a {@code Forbidden} without it.
   */
  boolean reportsOn(MerchantUser user, long shopGroup);

  /** {@code shopGroup} as for {@link #payments}. */
  Page<OperationWithPayment> operations(MerchantUser user, Instant completedFrom, Instant completedBefore,
      Set<OperationType> operations, Set<PaymentState> paymentStates, Long shopGroup, int offset, int limit);

  /** The merchant's shops the user sees, in id order. */
  List<Shop> shops(MerchantUser user);

  /**
   * Today's rates, read once a pair, for showing the amounts of one answer in another currency,
   * the platform's base currency among them.
   */
  TodaysRates currentRates();

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

  /**
   * Needs SHOP_GROUP_VIEW, as one group does: each listed group shows its shops (403); only then
   * is a bad page a 400. A scoped user sees only its own group.
   */
  Page<ReferenceData.ShopGroup> shopGroups(MerchantUser user, PageRequest page);

  /** Needs SHOP_GROUP_VIEW; for a scoped user any group but its own is a 404. */
  ReferenceData.ShopGroup shopGroup(MerchantUser user, long groupId);

  /**
   * A group the user does not see is a 404; then it needs SHOP_GROUP_EDIT (403), and a user
   * scoped to a shop group may not change any group's shops (403): it would widen what it sees.
   * Only then is the body looked at: unreadable, or any item not a shop id of the merchant's, is
   * a 400 (listing every bad item). All or nothing.
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
