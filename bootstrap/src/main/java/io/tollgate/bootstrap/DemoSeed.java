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

  static Optional<Demo> seedIfFresh(TollgateConfig config, Tollgate.Services services) {
    if (config.environment() != Environment.SANDBOX || services.persistence().shops().anyMerchant()) {
      return Optional.empty();
    }
    MerchantId merchant = services.shops().createMerchant("Demo Merchant");
    ShopId shop = services.shops().createShop(new CreateShopCommand(merchant, "Demo Shop", null, null,
        Shop.DEFAULT_CHECKOUT_TIMEOUT, false, false, "EUR"));
    IssuedKeys keys = services.shops().issueKeys(shop, Environment.SANDBOX);
    for (GroupKind kind : GroupKind.values()) {
      services.groups().create(merchant, kind, "Demo " + kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
          + " blacklist", false);
    }
    String password = services.users().create(merchant, DEMO_USER, null, EnumSet.allOf(Permission.class)).password();
    return Optional.of(new Demo(merchant, shop, keys, password));
  }
}
