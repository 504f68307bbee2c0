package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.in.AuthenticateShopUseCase;
import io.tollgate.application.port.in.ProvisioningUseCase;
import io.tollgate.application.port.out.DestinationPolicy;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;

/** Shop keys: issued once, stored hashed (API key) or encrypted (signing key), checked per request. */
public final class ShopService implements AuthenticateShopUseCase, ProvisioningUseCase {

  private static final char[] ALPHABET =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int MAX_KEY_LENGTH = 200;
  private static final java.time.Duration SHORTEST_CHECKOUT_TIMEOUT = java.time.Duration.ofSeconds(1);
  private static final java.time.Duration LONGEST_CHECKOUT_TIMEOUT = java.time.Duration.ofDays(1);

  private final TransactionRunner tx;
  private final ShopRepository shops;
  private final SecretBox secrets;
  private final Environment environment;
  private final Clock clock;
  private final DestinationPolicy destinations;

  public ShopService(TransactionRunner tx, ShopRepository shops, SecretBox secrets,
      Environment environment, Clock clock) {
    this(tx, shops, secrets, environment, clock, DestinationPolicy.ALLOW_ALL);
  }

  /** @param destinations refuses a shop's URLs that a payment's would be refused for (production: private networks) */
  public ShopService(TransactionRunner tx, ShopRepository shops, SecretBox secrets,
      Environment environment, Clock clock, DestinationPolicy destinations) {
    this.tx = tx;
    this.shops = shops;
    this.secrets = secrets;
    this.environment = environment;
    this.clock = clock;
    this.destinations = destinations;
  }

  @Override
  public ShopId authenticate(String apiKey) {
    if (apiKey == null || apiKey.isEmpty() || apiKey.length() > MAX_KEY_LENGTH) {
      throw invalidToken();
    }
    String hash = SecretBox.sha256Hex(apiKey);
    ShopId recent = recentKeys.getIfPresent(hash);
    if (recent != null) {
      return recent;
    }
    ShopId shop = shops.findActiveKey(hash, environment)
        // The lookup is by hash; comparing again in constant time keeps the check itself
        // free of timing differences whatever the store does.
        .filter(k -> MessageDigest.isEqual(k.apiKeyHash().getBytes(StandardCharsets.US_ASCII),
            hash.getBytes(StandardCharsets.US_ASCII)))
        .map(ShopRepository.StoredKey::shopId)
        .orElseThrow(ShopService::invalidToken);
    recentKeys.put(hash, shop);
    return shop;
  }

  /**
   * Keys found valid in the last few seconds: most requests then need no database round trip.
   * A key revoked on another instance stops working here within ten seconds.
   */
  private final Cache<String, ShopId> recentKeys =
      Caffeine.newBuilder()
          .expireAfterWrite(java.time.Duration.ofSeconds(10)).maximumSize(100_000).build();

  private static DomainException.Unauthenticated invalidToken() {
    return new DomainException.Unauthenticated("Invalid token");
  }

  @Override
  public MerchantId createMerchant(String name) {
    requireName("name", name);
    return tx.inTransaction(() -> shops.createMerchant(name.strip(), clock.instant()));
  }

  @Override
  public ShopId createShop(CreateShopCommand c) {
    requireName("name", c.name());
    // the checkout sends every customer to the shop's returnUrl, and the dispatcher every event to its webhookUrl
    Checks checks = new Checks();
    PaymentRequestRules.url(checks, "returnUrl", c.returnUrl(), true);
    PaymentRequestRules.url(checks, "webhookUrl", c.webhookUrl(), false);
    checkoutTimeout(checks, c.checkoutTimeout());
    checks.throwIfAny("Invalid shop");
    refuseUnsafe(c.webhookUrl(), c.returnUrl());
    return tx.inTransaction(() -> {
      if (!shops.merchantExists(c.merchantId())) {
        throw new DomainException.NotFound("Merchant " + c.merchantId() + " not found");
      }
      // The id is assigned by the store; a placeholder satisfies the record's invariants.
      Shop shop = new Shop(new ShopId(Long.MAX_VALUE), c.merchantId(), c.name().strip(),
          c.webhookUrl(), c.returnUrl(), c.checkoutTimeout(), c.checkWithdrawalBalance(),
          c.requiresApproval(), c.baseCurrency());
      return shops.createShop(shop, clock.instant());
    });
  }

  @Override
  public Shop updateShop(ShopId id, UpdateShopCommand c) {
    Checks checks = new Checks();
    PaymentRequestRules.url(checks, "returnUrl", blankToNull(c.returnUrl()), true);
    PaymentRequestRules.url(checks, "webhookUrl", blankToNull(c.webhookUrl()), false);
    checkoutTimeout(checks, c.checkoutTimeout());
    checks.throwIfAny("Invalid shop");
    refuseUnsafe(blankToNull(c.webhookUrl()), blankToNull(c.returnUrl()));
    return tx.inTransaction(() -> {
      Shop was = shops.find(id).orElseThrow(() -> new DomainException.NotFound("Shop " + id.value() + " not found"));
      Shop now = new Shop(was.id(), was.merchantId(), was.name(),
          c.webhookUrl() == null ? was.webhookUrl() : blankToNull(c.webhookUrl()),
          c.returnUrl() == null ? was.returnUrl() : blankToNull(c.returnUrl()),
          c.checkoutTimeout() == null ? was.checkoutTimeout() : c.checkoutTimeout(),
          c.checkWithdrawalBalance() == null ? was.checkWithdrawalBalance() : c.checkWithdrawalBalance(),
          c.requiresApproval() == null ? was.requiresApproval() : c.requiresApproval(),
          c.baseCurrency() == null ? was.baseCurrency() : blankToNull(c.baseCurrency()), was.created(),
          was.antifraudProfileId());
      shops.updateShop(now);
      return now;
    });
  }

  /**
   * A checkout timeout the shop can keep as given: whole seconds, from a second to a day (the
   * reference's 1440 minutes). A part of a second was dropped, one under a second was refused
   * by the database as a failure of its own, and one of years wrapped around into hours, which
   * cancelled its customers' checkouts (1.04) long before the shop meant.
   */
  private static void checkoutTimeout(Checks checks, java.time.Duration timeout) {
    if (timeout == null) {
      return;
    }
    if (timeout.compareTo(SHORTEST_CHECKOUT_TIMEOUT) < 0 || timeout.compareTo(LONGEST_CHECKOUT_TIMEOUT) > 0) {
      checks.add("checkoutTimeout", "must be from PT1S (a second) to PT24H (a day)", timeout.toString());
    } else if (timeout.getNano() != 0) {
      checks.add("checkoutTimeout", "must be a whole number of seconds", timeout.toString());
    }
  }

  /** A shop's URLs are refused where a payment's would be: production keeps them out of private networks. */
  private void refuseUnsafe(String webhookUrl, String returnUrl) {
    List<Violation> refused = PaymentRequestRules.unsafeDestinations(destinations, webhookUrl, returnUrl);
    if (!refused.isEmpty()) {
      throw new DomainException.Invalid("Invalid shop", refused);
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  @Override
  public IssuedKeys issueKeys(ShopId shop, Environment env) {
    String prefix = env == Environment.PRODUCTION ? "tg_live_" : "tg_test_";
    String apiKey = prefix + random(32);
    String signingKey = "whsec_" + random(40);
    tx.run(() -> {
      if (shops.find(shop).isEmpty()) {
        throw new DomainException.NotFound("Shop " + shop + " not found");
      }
      shops.storeKeys(shop, env, SecretBox.sha256Hex(apiKey), apiKey.substring(0, prefix.length() + 4),
          secrets.encrypt(signingKey), clock.instant());
    });
    // The shop's old key is revoked: forget what this instance remembered of it at once.
    recentKeys.asMap().values().removeIf(shop::equals);
    return new IssuedKeys(shop, env, apiKey, signingKey);
  }

  @Override
  public List<Shop> shopsOf(MerchantId merchant) {
    return shops.shopsOf(merchant);
  }

  /**
   * How long webhooks are signed with the signing key a {@code key issue} replaced too (in
   * {@code Webhook-Signature}, beside the new key's), so that a receiver keeps verifying them
   * while it changes keys.
   */
  public static final java.time.Duration SIGNING_KEY_OVERLAP = java.time.Duration.ofHours(24);

  /**
   * The shop's signing key and the one it replaced within {@link #SIGNING_KEY_OVERLAP} (null when
   * none), decrypted, read in one round trip: the webhook dispatcher wants both for every batch.
   */
  public SigningKeys signingKeys(ShopId shop) {
    var sealed = shops.signingKeyCiphertexts(shop, environment, clock.instant().minus(SIGNING_KEY_OVERLAP))
        .orElseThrow(() -> new DomainException.NotFound("Shop " + shop + " has no signing key"));
    return new SigningKeys(secrets.decrypt(sealed.active()),
        sealed.previous() == null ? null : secrets.decrypt(sealed.previous()));
  }

  /** A shop's signing key, and the key it replaced lately or null. */
  public record SigningKeys(String active, String previous) {}

  private static void requireName(String field, String name) {
    if (name == null || name.isBlank() || name.length() > 128) {
      throw new DomainException.Invalid(Violation.of(field, "must be 1 to 128 characters", name));
    }
  }

  private static String random(int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
    }
    return sb.toString();
  }
}
