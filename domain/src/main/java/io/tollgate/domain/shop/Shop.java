package io.tollgate.domain.shop;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A merchant's shop and the settings that steer its payments.
 *
 * @param checkoutTimeout how long a deposit may wait on the checkout page before it is
 *     cancelled with 1.04
 * @param checkWithdrawalBalance decline withdrawals (1.10) that exceed the available balance
 * @param requiresApproval withdrawals wait in AWAITING_APPROVAL for the merchant's decision
 * @param created when the shop was created; null for one not stored yet
 * @param antifraudProfileId the anti-fraud profile whose rules screen its payments; null for none
 */
public record Shop(
    ShopId id,
    MerchantId merchantId,
    String name,
    String webhookUrl,
    String returnUrl,
    Duration checkoutTimeout,
    boolean checkWithdrawalBalance,
    boolean requiresApproval,
    String baseCurrency,
    Instant created,
    Long antifraudProfileId) {

  public static final Duration DEFAULT_CHECKOUT_TIMEOUT = Duration.ofMinutes(30);

  /** A shop not stored yet: the store gives it its id and creation time. */
  public Shop(ShopId id, MerchantId merchantId, String name, String webhookUrl, String returnUrl,
      Duration checkoutTimeout, boolean checkWithdrawalBalance, boolean requiresApproval, String baseCurrency) {
    this(id, merchantId, name, webhookUrl, returnUrl, checkoutTimeout, checkWithdrawalBalance, requiresApproval,
        baseCurrency, null, null);
  }

  public Shop {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(merchantId, "merchantId");
    Objects.requireNonNull(name, "name");
    checkoutTimeout = checkoutTimeout == null ? DEFAULT_CHECKOUT_TIMEOUT : checkoutTimeout;
  }

  /**
   * A webhook URL as the merchant API and the delivery log show it: a password in its user part
   * (which the webhook sends as Basic authentication) is the secret of the merchant's receiver,
   * shown as {@code ***} to every user of the merchant, whatever their permissions; a user part
   * without a password is a token, and is shown as {@code ***} whole.
   */
  public static String withoutPassword(String url) {
    if (url == null) {
      return null;
    }
    try {
      java.net.URI uri = new java.net.URI(url);
      String user = uri.getRawUserInfo();
      if (user == null) {
        return url;
      }
      // a token alone (https://token@host/...) is the secret itself, sent as the user
      String masked = user.indexOf(':') < 0 ? "***" : user.substring(0, user.indexOf(':')) + ":***";
      return url.replaceFirst(java.util.regex.Pattern.quote(user + "@"),
          java.util.regex.Matcher.quoteReplacement(masked + "@"));
    } catch (java.net.URISyntaxException unreadable) {
      return url;
    }
  }
}
