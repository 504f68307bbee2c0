package io.tollgate.application.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class SecretBoxTest {

  private static final byte[] MASTER = HexFormat.of().parseHex(
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

  /** What the fingerprint and token are defined as, computed here from scratch. */
  private static byte[] hmac(byte[] key, String value) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
  }

  private static String expectedFingerprint(String value) throws Exception {
    return HexFormat.of().formatHex(hmac(hmac(MASTER, "tollgate-fingerprint"), value));
  }

  private static String expectedToken(String value) throws Exception {
    return HexFormat.of().formatHex(hmac(hmac(MASTER, "tollgate-token"), value), 0, 16);
  }

  @Test
  void fingerprintsAndTokensAreKeyedDigestsUnderTheirOwnDerivedKeys() throws Exception {
    SecretBox box = new SecretBox(MASTER);
    for (String value : List.of("4000000000000002", "demo@tollgate.test:secret", "", "4000000000000002")) {
      assertThat(box.fingerprint(value)).isEqualTo(expectedFingerprint(value));
      assertThat(box.token(value)).isEqualTo(expectedToken(value)).hasSize(32);
    }
    assertThat(box.token("4000000000000002")).isNotEqualTo(box.fingerprint("4000000000000002").substring(0, 32));
  }

  @Test
  void aValueSealedForAUrlOpensOnlyForItsContextUnderItsKey() {
    SecretBox box = new SecretBox(MASTER);
    String sealed = box.sealForUrl("checkout-form:abc", "{\"name\":\"Jane Doe\"}");
    assertThat(sealed).matches("[A-Za-z0-9_-]+").doesNotContain("Jane");
    assertThat(new SecretBox(MASTER).openFromUrl("checkout-form:abc", sealed)).isEqualTo("{\"name\":\"Jane Doe\"}");
    assertThat(box.sealForUrl("checkout-form:abc", "{\"name\":\"Jane Doe\"}")).isNotEqualTo(sealed);

    assertThat(box.openFromUrl("checkout-form:abd", sealed)).isNull();
    byte[] other = MASTER.clone();
    other[0] = 1;
    assertThat(new SecretBox(other).openFromUrl("checkout-form:abc", sealed)).isNull();
    // a character in the middle: the last one's lowest bits may be padding that decoding drops
    int at = sealed.length() / 2;
    assertThat(box.openFromUrl("checkout-form:abc",
        sealed.substring(0, at) + (sealed.charAt(at) == 'A' ? 'B' : 'A') + sealed.substring(at + 1))).isNull();
    for (String junk : List.of("", "!!", "AAAA", sealed.substring(0, 20))) {
      assertThat(box.openFromUrl("checkout-form:abc", junk)).isNull();
    }
    // a card number from the vault is no sealed value, though made with the same key
    String vaultEntry = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(box.encrypt("4000000000000002"));
    assertThat(box.openFromUrl("", vaultEntry)).isNull();
  }

  @Test
  void anotherMasterKeyGivesOtherDigests() {
    byte[] other = MASTER.clone();
    other[0] = 1;
    assertThat(new SecretBox(other).fingerprint("4000000000000002"))
        .isNotEqualTo(new SecretBox(MASTER).fingerprint("4000000000000002"));
    assertThat(new SecretBox(other).token("4000000000000002"))
        .isNotEqualTo(new SecretBox(MASTER).token("4000000000000002"));
  }

  @Test
  void manyThreadsAtOnceGetTheSameDigests() throws Exception {
    SecretBox box = new SecretBox(MASTER);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(pool.submit(() -> {
          for (int i = 0; i < 500; i++) {
            String value = "card-" + (i % 37);
            if (!box.fingerprint(value).equals(expectedFingerprint(value))
                || !box.token(value).equals(expectedToken(value))) {
              return false;
            }
          }
          return true;
        }));
      }
      for (Future<Boolean> result : results) {
        assertThat(result.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void sealedValuesOpenWithTheSameKeyOnly() {
    SecretBox box = new SecretBox(MASTER);
    byte[] sealed = box.encrypt("4000000000000002");
    assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("4000000000000002");
    assertThat(box.decrypt(sealed)).isEqualTo("4000000000000002");
    byte[] other = MASTER.clone();
    other[31] ^= 1;
    assertThatThrownBy(() -> new SecretBox(other).decrypt(sealed))
        .isInstanceOf(IllegalStateException.class);
  }

  /**
   * A thread reuses its cipher for every box and every value: a failed decryption, or a box
   * under another key, leaves nothing behind for the next use, and each sealing has a nonce of
   * its own.
   */
  @Test
  void oneThreadSealsAndOpensForManyBoxesAfterAFailure() {
    SecretBox box = new SecretBox(MASTER);
    byte[] otherKey = MASTER.clone();
    otherKey[5] ^= 1;
    SecretBox other = new SecretBox(otherKey);
    byte[] sealed = box.encrypt("4000000000000002");
    byte[] damaged = sealed.clone();
    damaged[damaged.length - 1] ^= 1;

    assertThatThrownBy(() -> box.decrypt(damaged)).isInstanceOf(IllegalStateException.class);
    assertThat(box.decrypt(sealed)).isEqualTo("4000000000000002");
    byte[] sealedByOther = other.encrypt("5555555555554444");
    assertThat(other.decrypt(sealedByOther)).isEqualTo("5555555555554444");
    assertThatThrownBy(() -> box.decrypt(sealedByOther)).isInstanceOf(IllegalStateException.class);
    assertThat(box.decrypt(box.encrypt("4000000000000002"))).isEqualTo("4000000000000002");
    assertThat(box.encrypt("4000000000000002")).isNotEqualTo(box.encrypt("4000000000000002"));
    assertThat(SecretBox.sha256Hex("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(SecretBox.sha256Hex("abc")).isEqualTo(SecretBox.sha256Hex("abc"));
  }

  /**
   * A data key sealed under a master key opens with that key only, and neither it nor the
   * master key can be read from what is stored: the sealed bytes and the key's id.
   */
  @Test
  void aDataKeySealedUnderAMasterKeyOpensWithItOnly() {
    byte[] dataKey = SecretBox.randomKey();
    byte[] wrapped = SecretBox.wrapDataKey(MASTER, dataKey);
    assertThat(SecretBox.unwrapDataKey(MASTER, wrapped)).isEqualTo(dataKey);
    assertThat(SecretBox.wrapDataKey(MASTER, dataKey)).as("a nonce of its own each time").isNotEqualTo(wrapped);
    String hex = HexFormat.of().formatHex(wrapped);
    assertThat(hex).doesNotContain(HexFormat.of().formatHex(dataKey)).doesNotContain(HexFormat.of().formatHex(MASTER));

    byte[] other = MASTER.clone();
    other[31] ^= 1;
    assertThatThrownBy(() -> SecretBox.unwrapDataKey(other, wrapped)).isInstanceOf(IllegalStateException.class);
    byte[] damaged = wrapped.clone();
    damaged[damaged.length - 1] ^= 1;
    assertThatThrownBy(() -> SecretBox.unwrapDataKey(MASTER, damaged)).isInstanceOf(IllegalStateException.class);

    assertThat(SecretBox.masterKeyId(MASTER)).matches("[0-9a-f]{32}").isEqualTo(SecretBox.masterKeyId(MASTER.clone()))
        .isNotEqualTo(SecretBox.masterKeyId(other));
    assertThat(HexFormat.of().formatHex(MASTER)).doesNotContain(SecretBox.masterKeyId(MASTER));
  }
}
