package io.tollgate.bootstrap;

import io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand;
import io.tollgate.application.port.in.ProvisioningUseCase.IssuedKeys;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.io.PrintWriter;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.user.Permission;
import java.util.EnumSet;
import io.tollgate.application.port.out.ReferenceData;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** On a fresh sandbox database: one demo merchant and shop, with keys printed once. */
final class DemoSeed {

  static final String DEMO_USER = "demo@tollgate.test";

  record Demo(MerchantId merchant, ShopId shop, IssuedKeys keys, String userPassword) {
    void print(PrintWriter out, String publicUrl) {
      out.println();
      out.println("=== Sandbox demo merchant created (shown once) ===");
      out.println("  merchant id:  " + merchant.value());
      out.println("  shop id:      " + shop.value());
      out.println("  API key:      " + keys.apiKey());
      out.println("  Signing key:  " + keys.signingKey());
      out.println("  Merchant API user: " + DEMO_USER + "  password: " + userPassword);
      out.println("  Try:  curl -H 'Authorization: Bearer " + keys.apiKey() + "' " + publicUrl + "/api/v1/payments");
      out.println("==================================================");
      out.println();
    }
  }

  private DemoSeed() {}

  /**
   * Two sandbox terminals behind the demo shop (declines with codes in the cascading group move
   * on to the second), a counterparty, a shop group, and an anti-fraud profile whose rules read
   * the demo groups.
   */
  private static void seedRouting(Tollgate.Services services, MerchantId merchant, ShopId shop,
      java.util.Map<GroupKind, Long> groups) {
    ReferenceData reference = services.persistence().referenceData();
    Instant now = Instant.now();
    long first = reference.createTerminal(new ReferenceData.Terminal(0, merchant, "Sandbox Acquirer A", "ACTIVE",
        "Tollgate Sandbox", "SANDBOX", "Tollgate sandbox acquirer", List.of("DEPOSIT", "WITHDRAWAL", "REFUND", "BALANCE"),
        now));
    long second = reference.createTerminal(new ReferenceData.Terminal(0, merchant, "Sandbox Acquirer B", "ACTIVE",
        "Tollgate Sandbox", "SANDBOX", "Tollgate sandbox acquirer", List.of("DEPOSIT", "WITHDRAWAL", "REFUND"), now));
    for (String method : List.of("BASIC_CARD", "BANKTRANSFER")) {
      reference.createConnector(new ReferenceData.Connector(0, shop.value(), first, null, "ACTIVE", method, "EUR", 1, 100,
          null, null, groups.get(GroupKind.ERROR_CODE), null, null), now);
      reference.createConnector(new ReferenceData.Connector(0, shop.value(), second, null, "ACTIVE", method, "EUR", 2, 100,
          null, null, null, null, null), now);
    }
    reference.createCounterparty(new ReferenceData.Counterparty(0, merchant, "Demo Counterparty", "AFF-1", "Demo Affiliates",
        "DEMO-CP-1", java.time.LocalDate.of(2026, 1, 15), List.of("MERCHANT"), now));
    long shopGroup = reference.createShopGroup(merchant, "All demo shops", now);
    reference.addShopsToGroup(shopGroup, List.of(shop.value()), "demo seed", now);
    long profile = reference.createAntifraudProfile(merchant, "Demo anti-fraud profile", "UTC", now);
    reference.addAntifraudRule(profile, new ReferenceData.AntifraudRule(0, "BIN_BLACKLIST", groups.get(GroupKind.BIN), null, null));
    reference.addAntifraudRule(profile, new ReferenceData.AntifraudRule(0, "CARD_BLACKLIST", groups.get(GroupKind.CARD), null, null));
    reference.addAntifraudRule(profile, new ReferenceData.AntifraudRule(0, "EMAIL_BLACKLIST", groups.get(GroupKind.EMAIL), null, null));
    reference.addAntifraudRule(profile, new ReferenceData.AntifraudRule(0, "CARD_COUNTRY_RESTRICTED",
        groups.get(GroupKind.COUNTRY), null, null));
    reference.addAntifraudRule(profile, new ReferenceData.AntifraudRule(0, "DECLINED_DEPOSITS_PER_CARD", null, 5, 60));
    reference.attachAntifraudProfile(shop.value(), profile);
  }

  /**
   * The demo merchant of a fresh sandbox, whose keys the caller prints once; none when the
   * database has a merchant. All of it or nothing: a first start stopped while it seeded (Ctrl+C
   * in its first second) left a merchant without printed keys, so no later start seeded again,
   * and the keys were never shown. Two instances started at once on one fresh database seed one
   * demo: the second waits for the first's seed, then finds its merchant.
   */
  static Optional<Demo> seedIfFresh(TollgateConfig config, Tollgate.Services services) {
    if (config.environment() != Environment.SANDBOX) {
      return Optional.empty();
    }
    return services.persistence().transactionRunner().inTransaction(() -> services.persistence().shops().anyMerchant()
        ? Optional.<Demo>empty() : Optional.of(seed(services)));
  }

  private static Demo seed(Tollgate.Services services) {
    MerchantId merchant = services.shops().createMerchant("Demo Merchant");
    ShopId shop = services.shops().createShop(new CreateShopCommand(merchant, "Demo Shop", null, null,
        Shop.DEFAULT_CHECKOUT_TIMEOUT, false, false, "EUR"));
    IssuedKeys keys = services.shops().issueKeys(shop, Environment.SANDBOX);
    var groups = new java.util.EnumMap<GroupKind, Long>(GroupKind.class);
    for (GroupKind kind : GroupKind.values()) {
      String name = switch (kind) {
        case BIN -> "Demo BIN blacklist";
        case EMAIL -> "Demo e-mail blacklist";
        case CARD -> "Demo card blacklist";
        case COUNTRY -> "Demo restricted countries";
        case ERROR_CODE -> "Demo cascading error codes";
      };
      groups.put(kind, services.groups().create(merchant, kind, name, false).id());
    }
    // the first terminal's declines with these codes move on to the second (card 4000000000000424)
    services.persistence().groups().add(groups.get(GroupKind.ERROR_CODE),
        List.of(new io.tollgate.application.port.out.GroupRepository.Entry("4.02", "4.02")), "demo seed", Instant.now());
    seedRouting(services, merchant, shop, groups);
    String password = services.users().create(merchant, DEMO_USER, null, EnumSet.allOf(Permission.class)).password();
    return new Demo(merchant, shop, keys, password);
  }
}
