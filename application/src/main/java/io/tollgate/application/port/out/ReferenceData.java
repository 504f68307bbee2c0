package io.tollgate.application.port.out;

import io.tollgate.domain.shop.MerchantId;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * The records around payments that operators provision and merchants read: BINs, currency
 * rates, bank codes and their mappings, counterparties, terminals, connectors, anti-fraud
 * profiles, shop groups and customers. Lists are ordered by their key; a page asks for one
 * more row than it shows to tell whether more exist.
 */
public interface ReferenceData {

  record BinRecord(String bin, String cardBrand, String cardType, String issuingCountryCode,
      String issuingOrganization) {}

  record CurrencyRate(String baseCurrency, String quoteCurrency, BigDecimal rate, Instant lastUpdate) {}

  record BankCode(String countryCode, String bankCode, String bankName) {}

  record BankCodeMapping(long id, String countryCode, String bankCode, String apiCode, String apiBankCode) {}

  record Counterparty(long id, MerchantId merchantId, String name, String affiliateId, String affiliateName,
      String uniqueCode, LocalDate registrationDate, List<String> types, Instant created) {}

  /** A merchant's account at an acquirer. {@code apiTypes}: DEPOSIT, WITHDRAWAL, REFUND, BALANCE. */
  record Terminal(long id, MerchantId merchantId, String name, String state, String providerName, String apiCode,
      String apiName, List<String> apiTypes, Instant created) {

    public boolean supports(String apiType) {
      return apiTypes.contains(apiType);
    }
  }

  /**
   * A shop's route to a terminal. {@code terminalName} and {@code terminalApiTypes} are the
   * terminal's, read with the connector (null in a connector to be created).
   */
  record Connector(long id, long shopId, long terminalId, String terminalName, String state, String paymentMethod,
      String terminalCurrency, int priority, int weight, BigDecimal minAmount, BigDecimal maxAmount,
      Long cascadingWhitelistGroupId, Long cascadingBlacklistGroupId, List<String> terminalApiTypes) {

    /** Whether its terminal's API takes payments of this type ({@link Terminal#supports}). */
    public boolean takes(io.tollgate.domain.payment.PaymentType type) {
      return terminalApiTypes != null && terminalApiTypes.contains(type.name());
    }
  }

  /** One rule of an anti-fraud profile: a rule name, and the group or thresholds it uses. */
  record AntifraudRule(long id, String rule, Long groupId, Integer threshold, Integer windowMinutes) {}

  record AntifraudProfile(long id, MerchantId merchantId, String name, String timeZone, List<AntifraudRule> rules) {}

  /** A shop group and its member shops (by id, with their names), in id order. */
  record ShopGroup(long id, MerchantId merchantId, String name, List<Long> shopIds, List<String> shopNames) {}

  record CustomerRecord(long id, MerchantId merchantId, long shopId, String shopName, String referenceId,
      String firstName, String lastName, String email, String phone, String dateOfBirth) {}

  // Reading

  Page<BinRecord> bins(int offset, int limit);

  Optional<BinRecord> bin(String cardNumberOrBin);

  Page<CurrencyRate> currencyRates(int offset, int limit);

  Optional<CurrencyRate> currencyRate(String base, String quote);

  Page<BankCode> bankCodes(int offset, int limit);

  Page<BankCodeMapping> bankCodeMappings(int offset, int limit);

  List<Counterparty> counterparties(MerchantId merchant, int offset, int limit);

  List<Terminal> terminals(MerchantId merchant, int offset, int limit);

  Optional<Terminal> terminal(long id);

  /** The merchant's terminal named exactly {@code name}, if any. */
  Optional<Terminal> terminal(MerchantId merchant, String name);

  Page<Connector> connectors(MerchantId merchant, int offset, int limit);

  /** As {@link #connectors(MerchantId, int, int)}, only those of the shops in the shop group now. */
  Page<Connector> connectors(MerchantId merchant, long shopGroup, int offset, int limit);

  /** A shop's active connectors (the connector and its terminal both ACTIVE), by priority. */
  List<Connector> connectorsOf(long shopId);

  /** Every connector of the shop, whatever its state, by priority and then id. */
  List<Connector> allConnectorsOf(long shopId);

  /**
   * Sets the connector's state ({@code ACTIVE} routes to it, {@code INACTIVE} does not); routing
   * reads it again at once in this instance, within seconds in others.
   *
   * @return the connector as it is now; empty when there is none of that id
   */
  Optional<Connector> setConnectorState(long connectorId, String state);

  /**
   * Whether the shop has any connector, active or not. Only a shop with none at all is sent to
   * the default terminal; one whose connectors are all inactive is declined instead.
   */
  boolean hasConnectors(long shopId);

  Page<AntifraudProfile> antifraudProfiles(MerchantId merchant, int offset, int limit);

  Optional<AntifraudProfile> antifraudProfile(long id);

  /** The profile attached to the shop, if any. */
  Optional<AntifraudProfile> antifraudProfileOfShop(long shopId);

  Page<ShopGroup> shopGroups(MerchantId merchant, int offset, int limit);

  Optional<ShopGroup> shopGroup(long id);

  /**
   * @param shopId null: of every shop
   * @param shopGroup null: of every shop; else only customers of the shops in that group now
   */
  Page<CustomerRecord> customers(MerchantId merchant, Long shopId, Long shopGroup, Long idAfter, int offset, int limit);

  // Writing (operators, imports, payments)

  void upsertBin(BinRecord bin);

  void upsertCurrencyRate(CurrencyRate rate);

  void upsertBankCode(BankCode code);

  void upsertBankCodeMapping(BankCodeMapping mapping);

  /**
   * Creates the counterparty, or updates the merchant's counterparty of its unique code (of its
   * name, when it has none); answers its id.
   */
  long createCounterparty(Counterparty counterparty);

  /**
   * @throws io.tollgate.domain.DomainException.Conflict when a terminal of the merchant has the
   *     name already, whatever its case: a merchant's terminal names are unique
   */
  long createTerminal(Terminal terminal);

  /**
   * Replaces the terminal's API types, which routing reads with every connector to it.
   *
   * @return false when there is no such terminal
   */
  boolean setTerminalApiTypes(long terminalId, List<String> apiTypes);

  long createConnector(Connector connector, Instant now);

  long createAntifraudProfile(MerchantId merchant, String name, String timeZone, Instant now);

  long addAntifraudRule(long profileId, AntifraudRule rule);

  void attachAntifraudProfile(long shopId, Long profileId);

  long createShopGroup(MerchantId merchant, String name, Instant now);

  /** Adds the shops, and keeps those that were not members yet as an edit by {@code editedBy}. */
  void addShopsToGroup(long groupId, List<Long> shopIds, String editedBy, Instant now);

  /** Removes the shops, and keeps those that were members as an edit by {@code editedBy}. */
  void removeShopsFromGroup(long groupId, List<Long> shopIds, String editedBy, Instant now);
}
