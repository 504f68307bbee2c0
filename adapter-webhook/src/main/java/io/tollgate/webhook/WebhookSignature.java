package io.tollgate.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The {@code Signature} header: lower-case hex HMAC-SHA256 of the exact body bytes. */
public final class WebhookSignature {

  private WebhookSignature() {}

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
