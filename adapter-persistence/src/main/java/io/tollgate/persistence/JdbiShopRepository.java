package io.tollgate.persistence;

import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

final class JdbiShopRepository implements ShopRepository {

  private static final String SHOP_COLUMNS = """
      id, merchant_id, name, webhook_url, return_url, checkout_timeout_seconds,
      check_withdrawal_balance, requires_approval, base_currency, created, antifraud_profile_id
      """;

  private static final RowMapper<Shop> SHOP = (rs, ctx) -> new Shop(
      new ShopId(rs.getLong("id")), new MerchantId(rs.getLong("merchant_id")), rs.getString("name"),
      rs.getString("webhook_url"), rs.getString("return_url"),
      Duration.ofSeconds(rs.getInt("checkout_timeout_seconds")), rs.getBoolean("check_withdrawal_balance"),
      rs.getBoolean("requires_approval"), rs.getString("base_currency"),
      rs.getObject("created", java.time.OffsetDateTime.class).toInstant(), rs.getObject("antifraud_profile_id", Long.class));

  /**
   * A shop's row is read on every payment and every merchant list, and written rarely (when the
   * shop is created, and by {@code tollgate shop update}): each instance keeps the rows it read
   * for a few seconds. A shop created or changed here is seen at once; one created or changed by
   * another process within {@link #KEPT}, but by {@link #findCurrent}, which reads it afresh.
   */
  static final Duration KEPT = Duration.ofSeconds(10);

  private final KeptRows<ShopId, Shop> byId = new KeptRows<>(KEPT, 100_000);
  private final KeptRows<MerchantId, List<Shop>> byMerchant = new KeptRows<>(KEPT, 10_000);
  private final Jdbi jdbi;

  JdbiShopRepository(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public MerchantId createMerchant(String name, Instant now) {
    return new MerchantId(jdbi.withHandle(h -> h.createUpdate(
            "INSERT INTO merchants (name, created) VALUES (:name, :now)")
        .bind("name", name).bind("now", now)
        .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one()));
  }

  @Override
  public boolean merchantExists(MerchantId id) {
    return jdbi.withHandle(h -> h.createQuery("SELECT EXISTS (SELECT 1 FROM merchants WHERE id = :id)")
        .bind("id", id.value()).mapTo(Boolean.class).one());
  }

  @Override
  public boolean anyMerchant() {
    // the lock in a statement of its own, so that the question's snapshot is taken after the wait:
    // a second start on the same fresh database then sees the merchant the first one seeded
    return jdbi.withHandle(h -> {
      h.execute("SELECT pg_advisory_xact_lock(hashtext('tollgate: the first merchant'))");
      return h.createQuery("SELECT EXISTS (SELECT 1 FROM merchants)").mapTo(Boolean.class).one();
    });
  }

  @Override
  public ShopId createShop(Shop shop, Instant now) {
    return jdbi.withHandle(h -> {
      ShopId id = new ShopId(h.createUpdate("""
            INSERT INTO shops (merchant_id, name, webhook_url, return_url, checkout_timeout_seconds,
                check_withdrawal_balance, requires_approval, base_currency, created)
            VALUES (:merchant, :name, :webhookUrl, :returnUrl, :timeout, :checkBalance, :approval,
                :baseCurrency, :now)
            """)
        .bind("merchant", shop.merchantId().value())
        .bind("name", shop.name())
        .bindMap(settings(shop))
        .bind("now", now)
        .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one());
      // Once the new shop is visible: a list read before the commit must not be kept.
      onceVisible(h);
      return id;
    });
  }

  @Override
  public void updateShop(Shop shop) {
    jdbi.useHandle(h -> {
      h.createUpdate("""
            UPDATE shops SET webhook_url = :webhookUrl, return_url = :returnUrl, checkout_timeout_seconds = :timeout,
                check_withdrawal_balance = :checkBalance, requires_approval = :approval, base_currency = :baseCurrency
            WHERE id = :id
            """)
          .bind("id", shop.id().value())
          .bindMap(settings(shop))
          .execute();
      onceVisible(h);
    });
  }

  /** A shop's settings as its statements name them (values may be null, which Map.of would refuse). */
  private static java.util.Map<String, Object> settings(Shop shop) {
    java.util.Map<String, Object> values = new java.util.HashMap<>();
    values.put("webhookUrl", shop.webhookUrl());
    values.put("returnUrl", shop.returnUrl());
    // refused, not wrapped around: a timeout of years kept as hours cancels checkouts long before it is up
    values.put("timeout", Math.toIntExact(shop.checkoutTimeout().toSeconds()));
    values.put("checkBalance", shop.checkWithdrawalBalance());
    values.put("approval", shop.requiresApproval());
    values.put("baseCurrency", shop.baseCurrency());
    return values;
  }

  /** Forgets the rows kept of shop {@code id}, whose row another store changed (its anti-fraud profile). */
  void changed(long id) {
    byId.changed();
    byMerchant.changed();
  }

  /** Every row kept is read again once the change made through {@code h} is committed (at once outside a transaction). */
  private void onceVisible(org.jdbi.v3.core.Handle h) {
    Runnable forget = () -> {
      byId.changed();
      byMerchant.changed();
    };
    if (h.isInTransaction()) {
      h.afterCommit(forget::run);
    } else {
      forget.run();
    }
  }

  @Override
  public Optional<Shop> find(ShopId id) {
    return Optional.ofNullable(byId.get(id, key -> jdbi.withHandle(h -> h.createQuery(
            "SELECT " + SHOP_COLUMNS + " FROM shops WHERE id = :id")
        .bind("id", key.value()).map(SHOP).findOne().orElse(null))));
  }

  @Override
  public Optional<Shop> findCurrent(ShopId id) {
    return jdbi.withHandle(h -> h.createQuery("SELECT " + SHOP_COLUMNS + " FROM shops WHERE id = :id")
        .bind("id", id.value()).map(SHOP).findOne());
  }

  @Override
  public List<Shop> shopsOf(MerchantId merchant) {
    return byMerchant.get(merchant, m -> jdbi.withHandle(h -> h.createQuery(
            "SELECT " + SHOP_COLUMNS + " FROM shops WHERE merchant_id = :m ORDER BY id")
        .bind("m", m.value()).map(SHOP).list()));
  }

  @Override
  public void storeKeys(ShopId shop, Environment environment, String apiKeyHash, String apiKeyPrefix,
      byte[] signingKeyCiphertext, Instant now) {
    jdbi.useTransaction(h -> {
      h.createUpdate("""
              UPDATE shop_keys SET revoked = :now
              WHERE shop_id = :shop AND environment = :env AND revoked IS NULL
              """)
          .bind("now", now).bind("shop", shop.value()).bind("env", environment.name()).execute();
      h.createUpdate("""
              INSERT INTO shop_keys (shop_id, environment, api_key_hash, api_key_prefix,
                  signing_key_ciphertext, created)
              VALUES (:shop, :env, :hash, :prefix, :signing, :now)
              """)
          .bind("shop", shop.value()).bind("env", environment.name()).bind("hash", apiKeyHash)
          .bind("prefix", apiKeyPrefix).bind("signing", signingKeyCiphertext).bind("now", now).execute();
    });
  }

  @Override
  public Optional<StoredKey> findActiveKey(String apiKeyHash, Environment environment) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT shop_id, api_key_hash FROM shop_keys
            WHERE api_key_hash = :hash AND environment = :env AND revoked IS NULL
            """)
        .bind("hash", apiKeyHash).bind("env", environment.name())
        .map((rs, ctx) -> new StoredKey(new ShopId(rs.getLong("shop_id")), environment, rs.getString("api_key_hash")))
        .findOne());
  }

  @Override
  public Optional<SigningKeyCiphertexts> signingKeyCiphertexts(ShopId shop, Environment environment,
      Instant since) {
    return jdbi.withHandle(h -> h.createQuery("""
            SELECT a.signing_key_ciphertext AS active,
                   (SELECT p.signing_key_ciphertext FROM shop_keys p
                     WHERE p.shop_id = :shop AND p.environment = :env AND p.revoked >= :since
                     ORDER BY p.revoked DESC, p.created DESC LIMIT 1) AS previous
            FROM shop_keys a
            WHERE a.shop_id = :shop AND a.environment = :env AND a.revoked IS NULL
            """)
        .bind("shop", shop.value()).bind("env", environment.name()).bind("since", since)
        .map((rs, ctx) -> new SigningKeyCiphertexts(rs.getBytes("active"), rs.getBytes("previous")))
        .findOne());
  }
}
