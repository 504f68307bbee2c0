package io.tollgate.application.crypto;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encryption at rest under the database's data key: AES-256-GCM with a random 96-bit nonce per
 * message, and a keyed fingerprint (HMAC-SHA256 under a key derived from the data key) for
 * looking secrets up without decrypting them. The data key is kept sealed under each master key
 * that opens the database ({@link #wrapDataKey}); on a database from before that, the data key
 * is its first master key itself.
 */
public final class SecretBox {

  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec encryptionKey;
  /** A key of its own for what is sealed into URLs, which anybody may have made in any number. */
  private final SecretKeySpec urlKey;
  /**
   * Each thread's MAC, ready under its key: looking one up and keying it was most of what a
   * fingerprint cost (one per merchant API request, for its credential). {@code doFinal}
   * leaves it ready for the next value.
   */
  private final ThreadLocal<Mac> fingerprintMac;
  private final ThreadLocal<Mac> tokenMac;
  /**
   * Each thread's cipher: looking one up among the providers cost as much as using it. Every
   * use initialises it afresh with its key and nonce, which also clears what a failed
   * decryption left in it.
   */
  private static final ThreadLocal<Cipher> AES_GCM = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  });
  private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  });

  public SecretBox(byte[] dataKey) {
    if (dataKey.length != 32) {
      throw new IllegalArgumentException("the data key must be 32 bytes (256 bits)");
    }
    this.encryptionKey = new SecretKeySpec(derive(dataKey, "tollgate-encryption"), "AES");
    this.urlKey = new SecretKeySpec(derive(dataKey, "tollgate-url-seal"), "AES");
    SecretKeySpec fingerprintKey = new SecretKeySpec(derive(dataKey, "tollgate-fingerprint"), "HmacSHA256");
    SecretKeySpec tokenKey = new SecretKeySpec(derive(dataKey, "tollgate-token"), "HmacSHA256");
    this.fingerprintMac = ThreadLocal.withInitial(() -> hmacUnder(fingerprintKey));
    this.tokenMac = ThreadLocal.withInitial(() -> hmacUnder(tokenKey));
  }

  public byte[] encrypt(String plaintext) {
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      RANDOM.nextBytes(nonce);
      Cipher cipher = AES_GCM.get();
      cipher.init(Cipher.ENCRYPT_MODE, encryptionKey, new GCMParameterSpec(TAG_BITS, nonce));
      byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("encryption failed", e);
    }
  }

  /** @throws IllegalStateException when the ciphertext was not made with this data key */
  public String decrypt(byte[] ciphertext) {
    try {
      Cipher cipher = AES_GCM.get();
      cipher.init(Cipher.DECRYPT_MODE, encryptionKey,
          new GCMParameterSpec(TAG_BITS, ciphertext, 0, NONCE_BYTES));
      byte[] plain = cipher.doFinal(ciphertext, NONCE_BYTES, ciphertext.length - NONCE_BYTES);
      return new String(plain, StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("decryption failed: wrong key or damaged data", e);
    }
  }

  /**
   * {@code plaintext} sealed for a URL (base64url, no padding): encrypted and authenticated as
   * {@link #encrypt} does, under a key of its own (anybody with a checkout link can have any
   * number of values sealed, which must not wear down the card vault's key), and bound to
   * {@code context}, so that it opens only for that context. Every instance of the database
   * can open it.
   */
  public String sealForUrl(String context, String plaintext) {
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      RANDOM.nextBytes(nonce);
      Cipher cipher = AES_GCM.get();
      cipher.init(Cipher.ENCRYPT_MODE, urlKey, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(urlContext(context));
      byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(
          ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("encryption failed", e);
    }
  }

  /**
   * What {@link #sealForUrl} sealed for {@code context}; null for anything else (another
   * context, another master key, a damaged or made-up value), since a URL is anybody's to edit.
   */
  public String openFromUrl(String context, String sealed) {
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(sealed);
    } catch (IllegalArgumentException notBase64) {
      return null;
    }
    if (bytes.length < NONCE_BYTES + TAG_BITS / 8) {
      return null;
    }
    try {
      Cipher cipher = AES_GCM.get();
      cipher.init(Cipher.DECRYPT_MODE, urlKey, new GCMParameterSpec(TAG_BITS, bytes, 0, NONCE_BYTES));
      cipher.updateAAD(urlContext(context));
      return new String(cipher.doFinal(bytes, NONCE_BYTES, bytes.length - NONCE_BYTES), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException notOurs) {
      return null;
    }
  }

  private static byte[] urlContext(String context) {
    return ("tollgate-url:" + context).getBytes(StandardCharsets.UTF_8);
  }

  /** A stable keyed digest (hex) of {@code value}: equal inputs give equal fingerprints. */
  public String fingerprint(String value) {
    return HexFormat.of().formatHex(fingerprintMac.get().doFinal(value.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * A stable keyed identifier (32 hex digits, 128 bits) of {@code value}, under a key of its
   * own: equal inputs give equal tokens, and neither the value nor its fingerprint can be
   * told from a token without the master key.
   */
  public String token(String value) {
    return HexFormat.of().formatHex(tokenMac.get().doFinal(value.getBytes(StandardCharsets.UTF_8)), 0, 16);
  }

  private static Mac hmacUnder(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String sha256Hex(String value) {
    // digest() leaves the thread's instance reset for the next value
    return HexFormat.of().formatHex(SHA_256.get().digest(value.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * A name for {@code masterKey} that tells nothing of it (32 hex digits of a keyed digest
   * under it), by which the key ring finds the data key sealed under it.
   */
  public static String masterKeyId(byte[] masterKey) {
    return HexFormat.of().formatHex(derive(requireKey(masterKey), "tollgate-master-key-id"), 0, 16);
  }

  /** {@code dataKey} sealed under {@code masterKey}: AES-256-GCM under a key of its own derived from it. */
  public static byte[] wrapDataKey(byte[] masterKey, byte[] dataKey) {
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      RANDOM.nextBytes(nonce);
      Cipher cipher = AES_GCM.get();
      cipher.init(Cipher.ENCRYPT_MODE, wrappingKey(masterKey), new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(DATA_KEY_CONTEXT);
      byte[] sealed = cipher.doFinal(requireKey(dataKey));
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("encryption failed", e);
    }
  }

  /**
   * The data key {@link #wrapDataKey} sealed under {@code masterKey}.
   *
   * @throws IllegalStateException when it was sealed under another key, or damaged
   */
  public static byte[] unwrapDataKey(byte[] masterKey, byte[] wrapped) {
    try {
      Cipher cipher = AES_GCM.get();
      cipher.init(Cipher.DECRYPT_MODE, wrappingKey(masterKey), new GCMParameterSpec(TAG_BITS, wrapped, 0, NONCE_BYTES));
      cipher.updateAAD(DATA_KEY_CONTEXT);
      return requireKey(cipher.doFinal(wrapped, NONCE_BYTES, wrapped.length - NONCE_BYTES));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalStateException("the data key does not open with this master key", e);
    }
  }

  private static final byte[] DATA_KEY_CONTEXT = "tollgate-data-key".getBytes(StandardCharsets.UTF_8);

  private static SecretKeySpec wrappingKey(byte[] masterKey) {
    return new SecretKeySpec(derive(requireKey(masterKey), "tollgate-key-wrap"), "AES");
  }

  private static byte[] requireKey(byte[] key) {
    if (key.length != 32) {
      throw new IllegalArgumentException("a key must be 32 bytes (256 bits)");
    }
    return key;
  }

  public static byte[] randomKey() {
    byte[] key = new byte[32];
    RANDOM.nextBytes(key);
    return key;
  }

  private static byte[] derive(byte[] masterKey, String purpose) {
    return hmacUnder(new SecretKeySpec(masterKey, "HmacSHA256")).doFinal(purpose.getBytes(StandardCharsets.UTF_8));
  }
}
