package io.tollgate.application.service;

import io.tollgate.application.port.in.MerchantQueries;
import io.tollgate.application.port.in.PageRequest;
import io.tollgate.application.port.in.SubmittedItems;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.BalanceRepository.ShopBalance;
import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.PaymentRepository.OperationWithPayment;
import io.tollgate.application.port.out.PaymentRepository.PaymentWithRefunds;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Currency;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The merchant API's reads, each scoped to the user's merchant and, for a scoped user, its shop group. */
public final class MerchantRecordsService implements MerchantQueries {

  private final PaymentRepository payments;
  private final ReferenceData reference;
  private final ShopRepository shops;
  private final BalanceRepository balances;
  private final Currencies currencies;
  private final String baseCurrency;
  private final ShopScope scope;
  private final java.time.Clock clock;

  /** @param baseCurrency the platform's base currency, in which each payment's {@code baseAmount} is shown */
  public MerchantRecordsService(PaymentRepository payments, ReferenceData reference, ShopRepository shops,
      BalanceRepository balances, Currencies currencies, String baseCurrency, java.time.Clock clock) {
    this.clock = clock;
    this.payments = payments;
    this.reference = reference;
    this.shops = shops;
    this.balances = balances;
    this.currencies = currencies;
    this.baseCurrency = currencies.require(baseCurrency).code();
    this.scope = new ShopScope(shops, reference);
  }

  @Override
  public io.tollgate.application.port.in.TodaysRates currentRates() {
    return new CurrentRates(reference, currencies, baseCurrency);
  }

  @Override
  public Page<PaymentWithRefunds> payments(MerchantUser user, Instant from, Instant before, Long shopGroup, int offset,
      int limit) {
    return payments.listForMerchant(user.merchantId(), from, before, shopGroups(user, shopGroup), offset, limit);
  }

  @Override
  public Page<OperationWithPayment> operations(MerchantUser user, Instant from, Instant before,
      Set<OperationType> operations, Set<PaymentState> states, Long shopGroup, int offset, int limit) {
    return payments.operationsForMerchant(user.merchantId(), from, before, operations, states,
        shopGroups(user, shopGroup), offset, limit);
  }

  /**
   * The shop groups a list keeps to: the user's own (when it is scoped) and the one it filters
   * by. A group the user could not see otherwise is unknown to it, whether it exists or not.
   */
  private Set<Long> shopGroups(MerchantUser user, Long filter) {
    Set<Long> groups = new java.util.TreeSet<>();
    if (user.scoped()) {
      groups.add(user.shopGroupId());
    }
    if (filter != null) {
      if (!reportsOn(user, filter)) {
        throw new DomainException.Invalid("Unknown shop group",
            List.of(Violation.of("shopGroupId.eq", "unknown shop group", filter)));
      }
      groups.add(filter);
    }
    return groups;
  }

  @Override
  public boolean reportsOn(MerchantUser user, long shopGroup) {
    if (visibleShopGroup(user, shopGroup).isEmpty()) {
      return false;
    }
    // a list filtered by a group names the group's shops, which one shop group shows only with
    // SHOP_GROUP_VIEW; a scoped user's own group is its scope, whose shops it reads anyway
    if (!user.scoped()) {
      user.require(Permission.SHOP_GROUP_VIEW);
    }
    return true;
  }

  @Override
  public List<Shop> shops(MerchantUser user) {
    return scope.visibleShops(user);
  }

  @Override
  public List<ReferenceData.Counterparty> counterparties(MerchantUser user, int offset, int limit) {
    return reference.counterparties(user.merchantId(), offset, limit);
  }

  @Override
  public List<ReferenceData.Terminal> terminals(MerchantUser user, int offset, int limit) {
    return reference.terminals(user.merchantId(), offset, limit);
  }

  /**
   * What the shops routed to the terminal hold in its currencies: the ledger is kept per shop,
   * so a terminal's balance is the sum over the shops whose connectors use it.
   */
  @Override
  public TerminalBalance terminalBalance(MerchantUser user, long terminalId) {
    ReferenceData.Terminal terminal = reference.terminal(terminalId)
        .filter(t -> t.merchantId().equals(user.merchantId()))
        .orElseThrow(() -> new DomainException.NotFound("Terminal not found"));
    if (!terminal.supports("BALANCE")) {
      throw new DomainException.NotFound("The terminal's API does not report balances");
    }
    Map<Long, Set<String>> currenciesByShop = new LinkedHashMap<>();
    for (int offset = 0; ; offset += 1000) {
      Page<ReferenceData.Connector> page = reference.connectors(user.merchantId(), offset, 1000);
      page.items().stream().filter(c -> c.terminalId() == terminalId).forEach(c ->
          currenciesByShop.computeIfAbsent(c.shopId(), k -> new java.util.HashSet<>()).add(c.terminalCurrency()));
      if (!page.hasMore()) {
        break;
      }
    }
    Map<Currency, BigDecimal[]> sums = new LinkedHashMap<>();
    for (Shop shop : scope.visibleShops(user)) {
      Set<String> currencies = currenciesByShop.get(shop.id().value());
      if (currencies == null) {
        continue;
      }
      for (ShopBalance b : balances.balances(shop.id())) {
        if (currencies.contains(b.currency().code())) {
          BigDecimal[] sum = sums.computeIfAbsent(b.currency(), c -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
          sum[0] = sum[0].add(b.available());
          sum[1] = sum[1].add(b.reserved());
        }
      }
    }
    List<Money> available = new ArrayList<>();
    List<Money> reserved = new ArrayList<>();
    sums.forEach((currency, sum) -> {
      available.add(new Money(sum[0].setScale(currency.scale(), java.math.RoundingMode.UNNECESSARY), currency));
      reserved.add(new Money(sum[1].setScale(currency.scale(), java.math.RoundingMode.UNNECESSARY), currency));
    });
    return new TerminalBalance(available, reserved);
  }

  @Override
  public Page<ReferenceData.BinRecord> bins(MerchantUser user, int offset, int limit) {
    return reference.bins(offset, limit);
  }

  @Override
  public Page<ReferenceData.CustomerRecord> customers(MerchantUser user, Long shopId, Long idAfter, int offset,
      int limit) {
    return reference.customers(user.merchantId(), shopId, user.shopGroupId(), idAfter, offset, limit);
  }

  @Override
  public Page<ConnectorListing> connectors(MerchantUser user, int offset, int limit) {
    Page<ReferenceData.Connector> page = user.scoped()
        ? reference.connectors(user.merchantId(), user.shopGroupId(), offset, limit)
        : reference.connectors(user.merchantId(), offset, limit);
    return page.map(c -> new ConnectorListing(c, Routing.amountAtLeast(c, currencies),
        Routing.amountBelow(c, currencies)));
  }

  @Override
  public Page<ReferenceData.AntifraudProfile> antifraudProfiles(MerchantUser user, int offset, int limit) {
    return reference.antifraudProfiles(user.merchantId(), offset, limit);
  }

  @Override
  public Page<ReferenceData.CurrencyRate> currencyRates(MerchantUser user, int offset, int limit) {
    return reference.currencyRates(offset, limit);
  }

  @Override
  public Page<ReferenceData.BankCode> bankCodes(MerchantUser user, int offset, int limit) {
    return reference.bankCodes(offset, limit);
  }

  @Override
  public Page<ReferenceData.BankCodeMapping> bankCodeMappings(MerchantUser user, int offset, int limit) {
    return reference.bankCodeMappings(offset, limit);
  }

  @Override
  public Page<ReferenceData.ShopGroup> shopGroups(MerchantUser user, PageRequest page) {
    // Any user reads the list (CONTRACT section 1: the spec names no permission for it), but
    // its shops only with SHOP_GROUP_VIEW, which one shop group needs (CONTRACT section 7): the
    // list does not hand out what the single group withholds.
    page.requireValid();
    Page<ReferenceData.ShopGroup> groups;
    if (user.scoped()) {
      List<ReferenceData.ShopGroup> own = page.offset() == 0
          ? visibleShopGroup(user, user.shopGroupId()).stream().toList() : List.of();
      groups = new Page<>(own, false);
    } else {
      groups = reference.shopGroups(user.merchantId(), page.offset(), page.limit());
    }
    return user.may(Permission.SHOP_GROUP_VIEW) ? groups
        : groups.map(g -> new ReferenceData.ShopGroup(g.id(), g.merchantId(), g.name(), null, null));
  }

  @Override
  public ReferenceData.ShopGroup shopGroup(MerchantUser user, long groupId) {
    ReferenceData.ShopGroup group = ownedShopGroup(user, groupId);
    user.require(Permission.SHOP_GROUP_VIEW);
    return group;
  }

  @Override
  public void addShopsToGroup(MerchantUser user, long groupId, SubmittedItems<Long> shopIds) {
    ReferenceData.ShopGroup group = ownedShopGroup(user, groupId);
    user.require(Permission.SHOP_GROUP_EDIT);
    refuseScoped(user);
    reference.addShopsToGroup(group.id(), ownShops(user, shopIds), user.email(), clock.instant());
  }

  @Override
  public void removeShopsFromGroup(MerchantUser user, long groupId, SubmittedItems<Long> shopIds) {
    ReferenceData.ShopGroup group = ownedShopGroup(user, groupId);
    user.require(Permission.SHOP_GROUP_EDIT);
    refuseScoped(user);
    reference.removeShopsFromGroup(group.id(), ownShops(user, shopIds), user.email(), clock.instant());
  }

  /** Whatever its permissions: a scoped user changing a group's shops would change what it sees. */
  private static void refuseScoped(MerchantUser user) {
    if (user.scoped()) {
      throw new DomainException.Forbidden("A user scoped to a shop group may not change the shops of shop groups");
    }
  }

  private ReferenceData.ShopGroup ownedShopGroup(MerchantUser user, long groupId) {
    return visibleShopGroup(user, groupId).orElseThrow(() -> new DomainException.NotFound("Shop group not found"));
  }

  /** A group of the user's merchant; for a scoped user, only its own. */
  private java.util.Optional<ReferenceData.ShopGroup> visibleShopGroup(MerchantUser user, long groupId) {
    if (user.scoped() && groupId != user.shopGroupId()) {
      return java.util.Optional.empty();
    }
    return reference.shopGroup(groupId).filter(g -> g.merchantId().equals(user.merchantId()));
  }

  private List<Long> ownShops(MerchantUser user, SubmittedItems<Long> submitted) {
    submitted.requireReadable();
    Set<Long> own = shops.shopsOf(user.merchantId()).stream().map(s -> s.id().value()).collect(Collectors.toSet());
    List<Long> shopIds = submitted.items();
    List<Violation> problems = new ArrayList<>();
    for (int i = 0; i < shopIds.size(); i++) {
      if (submitted.wrongType().containsKey(i)) {
        problems.add(Violation.of("shops[" + i + "]", "must be a shop id (a positive integer)",
            submitted.wrongType().get(i)));
      } else if (!own.contains(shopIds.get(i))) {
        problems.add(Violation.of("shops[" + i + "]", "is not a shop of this merchant", shopIds.get(i)));
      }
    }
    if (!problems.isEmpty()) {
      throw new DomainException.Invalid("Invalid shops", problems);
    }
    return shopIds.stream().distinct().toList();
  }
}
