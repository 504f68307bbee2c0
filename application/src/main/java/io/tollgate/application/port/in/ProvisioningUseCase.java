package io.tollgate.application.port.in;

import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.List;

/** What an operator sets up from the command line: merchants, shops and their keys. */
public interface ProvisioningUseCase {

  MerchantId createMerchant(String name);

  ShopId createShop(CreateShopCommand command);

  /**
   * Changes a shop's settings, checked as at its creation; what the command leaves null stays,
   * and an empty URL removes the URL. Other instances see the change within seconds.
   */
  Shop updateShop(ShopId shop, UpdateShopCommand command);

  /**
   * Issues a new API key and signing key for the shop in the environment, revoking the
   * previous pair. The keys are returned once and only stored hashed or encrypted.
   */
  IssuedKeys issueKeys(ShopId shop, Environment environment);

  List<Shop> shopsOf(MerchantId merchant);

  record CreateShopCommand(
      MerchantId merchantId,
      String name,
      String webhookUrl,
      String returnUrl,
      Duration checkoutTimeout,
      boolean checkWithdrawalBalance,
      boolean requiresApproval,
      String baseCurrency) {}

  record UpdateShopCommand(
      String webhookUrl,
      String returnUrl,
      Duration checkoutTimeout,
      Boolean checkWithdrawalBalance,
      Boolean requiresApproval,
      String baseCurrency) {}

  record IssuedKeys(ShopId shopId, Environment environment, String apiKey, String signingKey) {
    @Override
    public String toString() {
      return "IssuedKeys[shopId=" + shopId + ", environment=" + environment + "]";
    }
  }
}
