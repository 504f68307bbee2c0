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

  record IssuedKeys(ShopId shopId, Environment environment, String apiKey, String signingKey) {
    @Override
    public String toString() {
      return "IssuedKeys[shopId=" + shopId + ", environment=" + environment + "]";
    }
  }
}
