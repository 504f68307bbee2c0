package io.tollgate.persistence;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.MerchantId;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

final class JdbiReferenceData implements ReferenceData {

  private static final RowMapper<BinRecord> BIN = (rs, ctx) -> new BinRecord(rs.getString("bin"),
      rs.getString("card_brand"), rs.getString("card_type"), rs.getString("issuing_country"),
      rs.getString("issuing_organization"));

  private static final RowMapper<CurrencyRate> RATE = (rs, ctx) -> new CurrencyRate(rs.getString("base_currency"),
      rs.getString("quote_currency"), rs.getBigDecimal("rate").stripTrailingZeros(),
      rs.getTimestamp("last_update").toInstant());

  private static final RowMapper<Terminal> TERMINAL = (rs, ctx) -> new Terminal(rs.getLong("id"),
      new MerchantId(rs.getLong("merchant_id")), rs.getString("name"), rs.getString("state"),
      rs.getString("provider_name"), rs.getString("api_code"), rs.getString("api_name"),
      strings(rs.getArray("api_types")), rs.getTimestamp("created").toInstant());

  private static final String CONNECTOR_COLUMNS = """
      c.id, c.shop_id, c.terminal_id, t.name AS terminal_name, c.state, c.payment_method, c.terminal_currency,
      c.priority, c.weight, c.min_amount, c.max_amount, c.cascading_whitelist_group_id, c.cascading_blacklist_group_id,
      t.api_types AS terminal_api_types
      """;

  private static final RowMapper<Connector> CONNECTOR = (rs, ctx) -> new Connector(rs.getLong("id"),
      rs.getLong("shop_id"), rs.getLong("terminal_id"), rs.getString("terminal_name"), rs.getString("state"),
      rs.getString("payment_method"), rs.getString("terminal_currency"), rs.getInt("priority"), rs.getInt("weight"),
      plain(rs.getBigDecimal("min_amount")), plain(rs.getBigDecimal("max_amount")),
      (Long) rs.getObject("cascading_whitelist_group_id"), (Long) rs.getObject("cascading_blacklist_group_id"),
      strings(rs.getArray("terminal_api_types")));

  private final Jdbi jdbi;

  /** Told of each shop whose row is changed here, for the shop store to forget what it kept of it. */
  private final java.util.function.LongConsumer shopChanged;

  JdbiReferenceData(Jdbi jdbi, java.util.function.LongConsumer shopChanged) {
    this.jdbi = jdbi;
    this.shopChanged = shopChanged;
  }

  private static java.math.BigDecimal plain(java.math.BigDecimal d) {
    return d == null ? null : d.stripTrailingZeros();
  }

  private static List<String> strings(Array array) throws SQLException {
    return array == null ? List.of() : List.of((String[]) array.getArray());
  }

  private static <T> Page<T> page(List<T> rows, int limit) {
    boolean more = rows.size() > limit;
    return new Page<>(more ? rows.subList(0, limit) : rows, more);
  }

  private <T> List<T> query(String sql, RowMapper<T> mapper, Object... namedValues) {
    return jdbi.withHandle(h -> {
      var q = h.createQuery(sql);
      for (int i = 0; i < namedValues.length; i += 2) {
        q.bind((String) namedValues[i], namedValues[i + 1]);
      }
      return q.map(mapper).list();
    });
  }

  @Override
  public Page<BinRecord> bins(int offset, int limit) {
    return page(query("SELECT * FROM bins ORDER BY bin LIMIT :limit OFFSET :offset", BIN,
        "limit", limit + 1, "offset", offset), limit);
  }

  /** BIN data changes only by import: an import from another process is seen within a minute. */
  private final Cache<String, Optional<BinRecord>> binsByPrefix = cache(java.time.Duration.ofMinutes(1));

  @Override
  public Optional<BinRecord> bin(String digits) {
    if (digits == null || digits.length() < 6) {
      return Optional.empty();
    }
    // keyed by the first eight digits at most: a card number never enters the cache
    return binsByPrefix.get(digits.substring(0, Math.min(8, digits.length())), this::loadBin);
  }

  private Optional<BinRecord> loadBin(String digits) {
    List<String> prefixes = new ArrayList<>();
    for (int n = digits.length(); n >= 6; n--) {
      prefixes.add(digits.substring(0, n));
    }
    return query("SELECT * FROM bins WHERE bin = ANY(:prefixes) ORDER BY length(bin) DESC LIMIT 1", BIN,
        "prefixes", prefixes.toArray(String[]::new)).stream().findFirst();
  }

  @Override
  public Page<CurrencyRate> currencyRates(int offset, int limit) {
    return page(query("SELECT * FROM currency_rates ORDER BY base_currency, quote_currency LIMIT :limit OFFSET :offset",
        RATE, "limit", limit + 1, "offset", offset), limit);
  }

  @Override
  public Optional<CurrencyRate> currencyRate(String base, String quote) {
    return query("SELECT * FROM currency_rates WHERE base_currency = :b AND quote_currency = :q", RATE,
        "b", base, "q", quote).stream().findFirst();
  }

  @Override
  public Page<BankCode> bankCodes(int offset, int limit) {
    return page(query("SELECT * FROM bank_codes ORDER BY country_code, bank_code LIMIT :limit OFFSET :offset",
        (rs, ctx) -> new BankCode(rs.getString("country_code"), rs.getString("bank_code"), rs.getString("bank_name")),
        "limit", limit + 1, "offset", offset), limit);
  }

  @Override
  public Page<BankCodeMapping> bankCodeMappings(int offset, int limit) {
    return page(query("SELECT * FROM bank_code_mappings ORDER BY id LIMIT :limit OFFSET :offset",
        (rs, ctx) -> new BankCodeMapping(rs.getLong("id"), rs.getString("country_code"), rs.getString("bank_code"),
            rs.getString("api_code"), rs.getString("api_bank_code")),
        "limit", limit + 1, "offset", offset), limit);
  }

  @Override
  public List<Counterparty> counterparties(MerchantId merchant, int offset, int limit) {
    return query("SELECT * FROM counterparties WHERE merchant_id = :m ORDER BY id LIMIT :limit OFFSET :offset",
        (rs, ctx) -> new Counterparty(rs.getLong("id"), new MerchantId(rs.getLong("merchant_id")), rs.getString("name"),
            rs.getString("affiliate_id"), rs.getString("affiliate_name"), rs.getString("unique_code"),
            rs.getObject("registration_date", java.time.LocalDate.class), strings(rs.getArray("types")),
            rs.getTimestamp("created").toInstant()),
        "m", merchant.value(), "limit", limit, "offset", offset);
  }

  @Override
  public List<Terminal> terminals(MerchantId merchant, int offset, int limit) {
    return query("SELECT * FROM terminals WHERE merchant_id = :m ORDER BY id LIMIT :limit OFFSET :offset", TERMINAL,
        "m", merchant.value(), "limit", limit, "offset", offset);
  }

  @Override
  public Optional<Terminal> terminal(long id) {
    return query("SELECT * FROM terminals WHERE id = :id", TERMINAL, "id", id).stream().findFirst();
  }

  @Override
  public Optional<Terminal> terminal(MerchantId merchant, String name) {
    return query("SELECT * FROM terminals WHERE merchant_id = :m AND name = :name", TERMINAL,
        "m", merchant.value(), "name", name).stream().findFirst();
  }

  @Override
  public Page<Connector> connectors(MerchantId merchant, int offset, int limit) {
    return page(query("SELECT " + CONNECTOR_COLUMNS + """
         FROM connectors c JOIN terminals t ON t.id = c.terminal_id JOIN shops s ON s.id = c.shop_id
        WHERE s.merchant_id = :m ORDER BY c.id LIMIT :limit OFFSET :offset
        """, CONNECTOR, "m", merchant.value(), "limit", limit + 1, "offset", offset), limit);
  }

  @Override
  public Page<Connector> connectors(MerchantId merchant, long shopGroup, int offset, int limit) {
    return page(query("SELECT " + CONNECTOR_COLUMNS + """
         FROM connectors c JOIN terminals t ON t.id = c.terminal_id JOIN shops s ON s.id = c.shop_id
        WHERE s.merchant_id = :m
          AND c.shop_id IN (SELECT g.shop_id FROM shop_group_members g WHERE g.group_id = :group)
        ORDER BY c.id LIMIT :limit OFFSET :offset
        """, CONNECTOR, "m", merchant.value(), "group", shopGroup, "limit", limit + 1, "offset", offset), limit);
  }

  /** How long another instance's edit of connectors or anti-fraud profiles may go unseen here. */
  static final java.time.Duration ROUTING_CACHE = java.time.Duration.ofSeconds(5);

  /** A shop's active connectors, and whether it has any connector at all. */
  private record ShopConnectors(List<Connector> active, boolean any) {}

  private final KeptRows<Long, ShopConnectors> connectorsByShop = new KeptRows<>(ROUTING_CACHE, 10_000);
  private final KeptRows<Long, Optional<AntifraudProfile>> profileByShop = new KeptRows<>(ROUTING_CACHE, 10_000);

  /**
   * Rarely edited rows read on every payment, kept {@code ttl}: edits through this process
   * drop them at once, edits from elsewhere (another instance, the command line on a shared
   * database) are seen within {@code ttl}.
   */
  private static <K, V> Cache<K, V> cache(java.time.Duration ttl) {
    return Caffeine.newBuilder().expireAfterWrite(ttl).maximumSize(10_000).build();
  }

  /**
   * Has the connectors and anti-fraud profiles kept read again once the change made through
   * {@code h} is visible: after its commit, or at once outside a transaction. Dropped before
   * the write, they could be read again by a payment routed in between, and kept as they were.
   */
  private void routingChanged(Handle h) {
    Runnable forget = () -> {
      connectorsByShop.changed();
      profileByShop.changed();
    };
    if (h.isInTransaction()) {
      h.afterCommit(forget::run);
    } else {
      forget.run();
    }
  }

  @Override
  public List<Connector> connectorsOf(long shopId) {
    return connectorsByShop.get(shopId, this::loadConnectorsOf).active();
  }

  @Override
  public List<Connector> allConnectorsOf(long shopId) {
    return query("SELECT " + CONNECTOR_COLUMNS + " FROM connectors c JOIN terminals t ON t.id = c.terminal_id"
        + " WHERE c.shop_id = :shop ORDER BY c.priority, c.id", CONNECTOR, "shop", shopId);
  }

  @Override
  public Optional<Connector> setConnectorState(long connectorId, String state) {
    return jdbi.withHandle(h -> {
      int updated = h.createUpdate("UPDATE connectors SET state = :state WHERE id = :id")
          .bind("state", state).bind("id", connectorId).execute();
      if (updated == 0) {
        return Optional.<Connector>empty();
      }
      routingChanged(h);
      return h.createQuery("SELECT " + CONNECTOR_COLUMNS + " FROM connectors c JOIN terminals t ON t.id = c.terminal_id"
          + " WHERE c.id = :id").bind("id", connectorId).map(CONNECTOR).findOne();
    });
  }

  @Override
  public boolean hasConnectors(long shopId) {
    return connectorsByShop.get(shopId, this::loadConnectorsOf).any();
  }

  private record ConnectorRow(Connector connector, boolean routable) {}

  /** One query for both: every connector of the shop, the inactive ones only counted. */
  private ShopConnectors loadConnectorsOf(long shopId) {
    List<ConnectorRow> rows = query("SELECT " + CONNECTOR_COLUMNS + """
         , c.state = 'ACTIVE' AND t.state = 'ACTIVE' AS routable
         FROM connectors c JOIN terminals t ON t.id = c.terminal_id
        WHERE c.shop_id = :shop
        ORDER BY c.priority, c.id
        """, (rs, ctx) -> new ConnectorRow(CONNECTOR.map(rs, ctx), rs.getBoolean("routable")), "shop", shopId);
    return new ShopConnectors(rows.stream().filter(ConnectorRow::routable).map(ConnectorRow::connector).toList(),
        !rows.isEmpty());
  }

  private AntifraudProfile profile(Handle h, ResultSet rs) throws SQLException {
    long id = rs.getLong("id");
    List<AntifraudRule> rules = h.createQuery("SELECT * FROM antifraud_rules WHERE profile_id = :p ORDER BY id")
        .bind("p", id)
        .map((r, c) -> new AntifraudRule(r.getLong("id"), r.getString("rule"), (Long) r.getObject("group_id"),
            (Integer) r.getObject("threshold"), (Integer) r.getObject("window_minutes")))
        .list();
    return new AntifraudProfile(id, new MerchantId(rs.getLong("merchant_id")), rs.getString("name"),
        rs.getString("time_zone"), rules);
  }

  @Override
  public Page<AntifraudProfile> antifraudProfiles(MerchantId merchant, int offset, int limit) {
    return page(jdbi.withHandle(h -> h.createQuery(
            "SELECT * FROM antifraud_profiles WHERE merchant_id = :m ORDER BY id LIMIT :limit OFFSET :offset")
        .bind("m", merchant.value()).bind("limit", limit + 1).bind("offset", offset)
        .map((rs, ctx) -> profile(h, rs)).list()), limit);
  }

  @Override
  public Optional<AntifraudProfile> antifraudProfile(long id) {
    return jdbi.withHandle(h -> h.createQuery("SELECT * FROM antifraud_profiles WHERE id = :id").bind("id", id)
        .map((rs, ctx) -> profile(h, rs)).findOne());
  }

  @Override
  public Optional<AntifraudProfile> antifraudProfileOfShop(long shopId) {
    return profileByShop.get(shopId, this::loadAntifraudProfileOfShop);
  }

  private Optional<AntifraudProfile> loadAntifraudProfileOfShop(long shopId) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT a.* FROM antifraud_profiles a JOIN shops s ON s.antifraud_profile_id = a.id WHERE s.id = :shop")
        .bind("shop", shopId).map((rs, ctx) -> profile(h, rs)).findOne());
  }

  private static final RowMapper<ShopGroup> SHOP_GROUP = (rs, ctx) -> new ShopGroup(rs.getLong("id"),
      new MerchantId(rs.getLong("merchant_id")), rs.getString("name"),
      Arrays.stream((Long[]) rs.getArray("shop_ids").getArray()).toList(),
      Arrays.stream((String[]) rs.getArray("shop_names").getArray()).toList());

  private static final String SHOP_GROUP_SELECT = """
      SELECT g.id, g.merchant_id, g.name,
             coalesce(array_agg(m.shop_id ORDER BY m.shop_id) FILTER (WHERE m.shop_id IS NOT NULL), '{}') AS shop_ids,
             coalesce(array_agg(s.name ORDER BY m.shop_id) FILTER (WHERE m.shop_id IS NOT NULL), '{}') AS shop_names
      FROM shop_groups g LEFT JOIN shop_group_members m ON m.group_id = g.id LEFT JOIN shops s ON s.id = m.shop_id
      """;

  @Override
  public Page<ShopGroup> shopGroups(MerchantId merchant, int offset, int limit) {
    return page(query(SHOP_GROUP_SELECT + " WHERE g.merchant_id = :m GROUP BY g.id ORDER BY g.id LIMIT :limit OFFSET :offset",
        SHOP_GROUP, "m", merchant.value(), "limit", limit + 1, "offset", offset), limit);
  }

  @Override
  public Optional<ShopGroup> shopGroup(long id) {
    return query(SHOP_GROUP_SELECT + " WHERE g.id = :id GROUP BY g.id", SHOP_GROUP, "id", id).stream().findFirst();
  }

  @Override
  public Page<CustomerRecord> customers(MerchantId merchant, Long shopId, Long shopGroup, Long idAfter, int offset,
      int limit) {
    return page(query("""
        SELECT c.*, s.name AS shop_name FROM customers c JOIN shops s ON s.id = c.shop_id
        WHERE c.merchant_id = :m AND (CAST(:shop AS bigint) IS NULL OR c.shop_id = :shop)
          AND (CAST(:group AS bigint) IS NULL
            OR c.shop_id IN (SELECT g.shop_id FROM shop_group_members g WHERE g.group_id = :group))
          AND c.id > coalesce(CAST(:after AS bigint), 0)
        ORDER BY c.id LIMIT :limit OFFSET :offset
        """, (rs, ctx) -> new CustomerRecord(rs.getLong("id"), new MerchantId(rs.getLong("merchant_id")),
            rs.getLong("shop_id"), rs.getString("shop_name"), rs.getString("reference_id"), rs.getString("first_name"),
            rs.getString("last_name"), rs.getString("email"), rs.getString("phone"), rs.getString("date_of_birth")),
        "m", merchant.value(), "shop", shopId, "group", shopGroup, "after", idAfter, "limit", limit + 1, "offset", offset), limit);
  }

  @Override
  public void upsertBin(BinRecord b) {
    binsByPrefix.invalidateAll();
    jdbi.useHandle(h -> h.createUpdate("""
            INSERT INTO bins (bin, card_brand, card_type, issuing_country, issuing_organization)
            VALUES (:bin, :brand, :type, :country, :org)
            ON CONFLICT (bin) DO UPDATE SET card_brand = excluded.card_brand, card_type = excluded.card_type,
                issuing_country = excluded.issuing_country, issuing_organization = excluded.issuing_organization
            """)
        .bind("bin", b.bin()).bind("brand", b.cardBrand()).bind("type", b.cardType())
        .bind("country", b.issuingCountryCode()).bind("org", b.issuingOrganization()).execute());
  }

  @Override
  public void upsertCurrencyRate(CurrencyRate r) {
    jdbi.useHandle(h -> h.createUpdate("""
            INSERT INTO currency_rates (base_currency, quote_currency, rate, last_update) VALUES (:b, :q, :rate, :at)
            ON CONFLICT (base_currency, quote_currency) DO UPDATE SET rate = excluded.rate, last_update = excluded.last_update
            """)
        .bind("b", r.baseCurrency()).bind("q", r.quoteCurrency()).bind("rate", r.rate()).bind("at", r.lastUpdate())
        .execute());
  }

  @Override
  public void upsertBankCode(BankCode c) {
    jdbi.useHandle(h -> h.createUpdate("""
            INSERT INTO bank_codes (country_code, bank_code, bank_name) VALUES (:c, :code, :name)
            ON CONFLICT (country_code, bank_code) DO UPDATE SET bank_name = excluded.bank_name
            """).bind("c", c.countryCode()).bind("code", c.bankCode()).bind("name", c.bankName()).execute());
  }

  @Override
  public void upsertBankCodeMapping(BankCodeMapping m) {
    jdbi.useHandle(h -> h.createUpdate("""
            INSERT INTO bank_code_mappings (country_code, bank_code, api_code, api_bank_code) VALUES (:c, :code, :api, :apiCode)
            ON CONFLICT (country_code, bank_code, api_code) DO UPDATE SET api_bank_code = excluded.api_bank_code
            """).bind("c", m.countryCode()).bind("code", m.bankCode()).bind("api", m.apiCode())
        .bind("apiCode", m.apiBankCode()).execute());
  }

  @Override
  public long createCounterparty(Counterparty c) {
    // the same counterparty imported again (by its unique code, or by its name without one) is updated
    String key = c.uniqueCode() != null ? "(merchant_id, unique_code) WHERE unique_code IS NOT NULL"
        : "(merchant_id, name) WHERE unique_code IS NULL";
    return jdbi.withHandle(h -> h.createQuery("""
            INSERT INTO counterparties (merchant_id, name, affiliate_id, affiliate_name, unique_code, registration_date,
                types, created)
            VALUES (:m, :name, :aid, :aname, :code, :reg, :types, :created)
            ON CONFLICT <key> DO UPDATE SET name = excluded.name, affiliate_id = excluded.affiliate_id,
                affiliate_name = excluded.affiliate_name, registration_date = excluded.registration_date,
                types = excluded.types
            RETURNING id
            """.replace("<key>", key))
        .bind("m", c.merchantId().value()).bind("name", c.name()).bind("aid", c.affiliateId())
        .bind("aname", c.affiliateName()).bind("code", c.uniqueCode()).bind("reg", c.registrationDate())
        .bind("types", c.types().toArray(String[]::new)).bind("created", c.created()).mapTo(Long.class).one());
  }

  @Override
  public long createTerminal(Terminal t) {
    return jdbi.withHandle(h -> {
      long id = h.createQuery("""
              INSERT INTO terminals (merchant_id, name, state, provider_name, api_code, api_name, api_types, created)
              VALUES (:m, :name, :state, :provider, :code, :api, :types, :created)
              ON CONFLICT (merchant_id, lower(name)) DO NOTHING
              RETURNING id
              """)
          .bind("m", t.merchantId().value()).bind("name", t.name()).bind("state", t.state())
          .bind("provider", t.providerName()).bind("code", t.apiCode()).bind("api", t.apiName())
          .bind("types", t.apiTypes().toArray(String[]::new)).bind("created", t.created()).mapTo(Long.class).findOne()
          .orElseThrow(() -> nameTaken(h, t));
      routingChanged(h);
      return id;
    });
  }

  private static DomainException.Conflict nameTaken(Handle h, Terminal t) {
    Terminal taken = h.createQuery("SELECT * FROM terminals WHERE merchant_id = :m AND lower(name) = lower(:name)")
        .bind("m", t.merchantId().value()).bind("name", t.name()).map(TERMINAL).one();
    return new DomainException.Conflict("terminal_name_taken", "Terminal " + taken.id() + " of merchant "
        + t.merchantId().value() + " is named '" + taken.name() + "' already: a merchant's terminals need names"
        + " that differ in more than case");
  }

  @Override
  public boolean setTerminalApiTypes(long terminalId, List<String> apiTypes) {
    return jdbi.withHandle(h -> {
      boolean found = h.createUpdate("UPDATE terminals SET api_types = :types WHERE id = :id")
          .bind("types", apiTypes.toArray(String[]::new)).bind("id", terminalId).execute() == 1;
      routingChanged(h);
      return found;
    });
  }

  @Override
  public long createConnector(Connector c, Instant now) {
    return jdbi.withHandle(h -> {
      long id = h.createQuery("""
              INSERT INTO connectors (shop_id, terminal_id, state, payment_method, terminal_currency, priority, weight,
                  min_amount, max_amount, cascading_whitelist_group_id, cascading_blacklist_group_id, created)
              VALUES (:shop, :terminal, :state, :method, :currency, :priority, :weight, :min, :max, :white, :black, :now)
              RETURNING id
              """)
          .bind("shop", c.shopId()).bind("terminal", c.terminalId()).bind("state", c.state())
          .bind("method", c.paymentMethod()).bind("currency", c.terminalCurrency()).bind("priority", c.priority())
          .bind("weight", c.weight()).bind("min", c.minAmount()).bind("max", c.maxAmount())
          .bind("white", c.cascadingWhitelistGroupId()).bind("black", c.cascadingBlacklistGroupId()).bind("now", now)
          .mapTo(Long.class).one();
      routingChanged(h);
      return id;
    });
  }

  @Override
  public long createAntifraudProfile(MerchantId merchant, String name, String timeZone, Instant now) {
    return jdbi.withHandle(h -> {
      long id = h.createQuery("""
              INSERT INTO antifraud_profiles (merchant_id, name, time_zone, created) VALUES (:m, :name, :tz, :now)
              RETURNING id
              """).bind("m", merchant.value()).bind("name", name).bind("tz", timeZone).bind("now", now)
          .mapTo(Long.class).one();
      routingChanged(h);
      return id;
    });
  }

  @Override
  public long addAntifraudRule(long profileId, AntifraudRule r) {
    return jdbi.withHandle(h -> {
      long id = h.createQuery("""
              INSERT INTO antifraud_rules (profile_id, rule, group_id, threshold, window_minutes)
              VALUES (:p, :rule, :group, :threshold, :window) RETURNING id
              """).bind("p", profileId).bind("rule", r.rule()).bind("group", r.groupId())
          .bind("threshold", r.threshold()).bind("window", r.windowMinutes()).mapTo(Long.class).one();
      routingChanged(h);
      return id;
    });
  }

  @Override
  public void attachAntifraudProfile(long shopId, Long profileId) {
    jdbi.useHandle(h -> {
      h.createUpdate("UPDATE shops SET antifraud_profile_id = :p WHERE id = :shop")
          .bind("p", profileId).bind("shop", shopId).execute();
      routingChanged(h);
      if (h.isInTransaction()) {
        h.afterCommit(() -> shopChanged.accept(shopId));
      } else {
        shopChanged.accept(shopId);
      }
    });
  }

  @Override
  public long createShopGroup(MerchantId merchant, String name, Instant now) {
    return jdbi.withHandle(h -> h.createQuery("""
            INSERT INTO shop_groups (merchant_id, name, created) VALUES (:m, :name, :now)
            ON CONFLICT (merchant_id, name) DO UPDATE SET name = excluded.name RETURNING id
            """).bind("m", merchant.value()).bind("name", name).bind("now", now).mapTo(Long.class).one());
  }

  @Override
  public void addShopsToGroup(long groupId, List<Long> shopIds, String editedBy, Instant now) {
    jdbi.useTransaction(h -> {
      lockShopGroupForEdit(h, groupId);
      List<Long> added = h.createQuery("""
              INSERT INTO shop_group_members (group_id, shop_id)
              SELECT :g, s FROM unnest(CAST(:shops AS bigint[])) AS s ORDER BY s
              ON CONFLICT DO NOTHING
              RETURNING shop_id
              """).bind("g", groupId).bind("shops", shopIds.toArray(Long[]::new)).mapTo(Long.class).list();
      JdbiGroupRepository.recordEdit(h, JdbiGroupRepository.SHOP_GROUP, groupId, "ADD", ids(added), editedBy, now);
    });
  }

  @Override
  public void removeShopsFromGroup(long groupId, List<Long> shopIds, String editedBy, Instant now) {
    jdbi.useTransaction(h -> {
      lockShopGroupForEdit(h, groupId);
      List<Long> removed = h.createQuery("DELETE FROM shop_group_members WHERE group_id = :g AND shop_id = ANY(:shops)"
              + " RETURNING shop_id")
          .bind("g", groupId).bind("shops", shopIds.toArray(Long[]::new)).mapTo(Long.class).list();
      JdbiGroupRepository.recordEdit(h, JdbiGroupRepository.SHOP_GROUP, groupId, "REMOVE", ids(removed), editedBy, now);
    });
  }

  /** Shop ids as a group edit keeps them: in order, as text. */
  private static List<String> ids(List<Long> shopIds) {
    return shopIds.stream().sorted().map(String::valueOf).toList();
  }

  /** Edits of one shop group take turns, as those of entry groups do ({@link JdbiGroupRepository#lockForEdit}). */
  private static void lockShopGroupForEdit(Handle h, long groupId) {
    h.createQuery("SELECT id FROM shop_groups WHERE id = :g FOR NO KEY UPDATE").bind("g", groupId)
        .mapTo(Long.class).findOne();
  }
}
