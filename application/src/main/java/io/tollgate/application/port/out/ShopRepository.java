package io.tollgate.application.port.out;

import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Merchants, shops and their keys. */
public interface ShopRepository {

  MerchantId createMerchant(String name, Instant now);

  boolean merchantExists(MerchantId id);

  /**
   * Whether any merchant exists yet (a fresh database has none). In a transaction, it holds until
   * the transaction ends a lock that the same question from another transaction waits for, so of
   * two instances started at once on one fresh database only one seeds it.
   */
  boolean anyMerchant();

  ShopId createShop(Shop withoutId, Instant now);

  /**
   * The shop, as an instance may have kept it for a few seconds (a change made by another process,
   * such as {@code tollgate shop update}, is seen within {@code JdbiShopRepository.KEPT}).
   */
  Optional<Shop> find(ShopId id);

  /**
   * The shop as the database has it now, for a decision that moves money on its settings (a
   * withdrawal's approval and balance check, a refund's webhook URL): a setting the operator has
   * just changed applies to the next such payment on every instance.
   */
  Optional<Shop> findCurrent(ShopId id);

  /** Stores the shop's settings (all but its id, merchant and name), read afresh by other instances within seconds. */
  void updateShop(Shop shop);

  List<Shop> shopsOf(MerchantId merchant);

  /**
   * Stores a key pair, replacing (revoking) any active pair of the shop in that environment.
   *
   * @param apiKeyHash SHA-256 of the API key, hex
   * @param signingKeyCiphertext the signing key encrypted with the deployment's master key
   */
  void storeKeys(ShopId shop, Environment environment, String apiKeyHash, String apiKeyPrefix,
      byte[] signingKeyCiphertext, Instant now);

  /** The active key of this hash in this environment. */
  Optional<StoredKey> findActiveKey(String apiKeyHash, Environment environment);

  /**
   * The active signing key and, in the same round trip, the one it replaced if that was replaced
   * at {@code since} or later (null otherwise); empty when the shop has no active key.
   */
  Optional<SigningKeyCiphertexts> signingKeyCiphertexts(ShopId shop, Environment environment, Instant since);

  record SigningKeyCiphertexts(byte[] active, byte[] previous) {}

  record StoredKey(ShopId shopId, Environment environment, String apiKeyHash) {}
}
