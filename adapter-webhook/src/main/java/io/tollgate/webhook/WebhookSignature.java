package io.tollgate.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signatures of a webhook: {@code Signature}, the platform's own, lower-case hex
 * HMAC-SHA256 of the exact body bytes; and {@code Webhook-Signature}, as the Standard Webhooks
 * specification has it, which covers the event's id and the attempt's time too, so that a
 * receiver can refuse a recorded request sent again later (the body alone says neither).
 */
public final class WebhookSignature {

  private WebhookSignature() {}

  /**
   * The {@code Webhook-Signature} header: {@code v1,} and the base64 HMAC-SHA256 of
   * {@code id.timestamp.body}, keyed with the signing key as Standard Webhooks reads one (the
   * base64 after {@code whsec_}, decoded; every key Tollgate issues is such), so that its
   * libraries verify it with the key as the merchant holds it.
   */
  public static String standard(String signingKey, String eventId, long timestampSeconds, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(standardKey(signingKey), "HmacSHA256"));
      mac.update((eventId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
      return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** The key bytes of a {@code whsec_<base64>} key; a key of another form is its UTF-8 bytes. */
  static byte[] standardKey(String signingKey) {
    if (signingKey.startsWith("whsec_")) {
      try {
        return Base64.getDecoder().decode(signingKey.substring("whsec_".length()));
      } catch (IllegalArgumentException notBase64) {
        // falls through: not a key of the standard's form
      }
    }
    return signingKey.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @param signingKey the shop's signing key as shown to the merchant; its UTF-8 bytes are the key
   */
  public static String sign(String signingKey, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(signingKey.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
