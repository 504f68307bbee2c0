package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.domain.shop.ShopId;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/** Card numbers encrypted with the master key; looked up by a keyed fingerprint, never in clear. */
final class JdbiCardVault implements CardVault {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Jdbi jdbi;
  private final SecretBox secrets;
  private final Clock clock;

  JdbiCardVault(Jdbi jdbi, SecretBox secrets, Clock clock) {
    this.jdbi = jdbi;
    this.secrets = secrets;
    this.clock = clock;
  }

  @Override
  public String tokenize(ShopId shop, String pan) {
    String fingerprint = secrets.fingerprint(pan);
    return jdbi.inTransaction(h -> {
      byte[] bytes = new byte[16];
      RANDOM.nextBytes(bytes);
      // One round trip: the new token, or the card's token from before this statement began.
      Optional<String> token = h.createQuery("""
              WITH added AS (
                INSERT INTO card_vault (shop_id, token, fingerprint, pan_ciphertext, created)
                VALUES (:shop, :token, :fingerprint, :ciphertext, :now)
                ON CONFLICT (shop_id, fingerprint) DO NOTHING
                RETURNING token)
              SELECT token FROM added
              UNION ALL
              SELECT token FROM card_vault WHERE shop_id = :shop AND fingerprint = :fingerprint
              LIMIT 1
              """)
          .bind("shop", shop.value()).bind("token", HexFormat.of().formatHex(bytes))
          .bind("fingerprint", fingerprint).bind("ciphertext", secrets.encrypt(pan))
          .bind("now", clock.instant()).mapTo(String.class).findOne();
      // Empty only when a concurrent request stored the same card after this statement's
      // snapshot was taken: its row is committed now, and a new statement sees it.
      return token.orElseGet(() -> h.createQuery(
              "SELECT token FROM card_vault WHERE shop_id = :shop AND fingerprint = :fingerprint")
          .bind("shop", shop.value()).bind("fingerprint", fingerprint).mapTo(String.class).one());
    });
  }

  @Override
  public Optional<String> reveal(ShopId shop, String token) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT pan_ciphertext FROM card_vault WHERE shop_id = :shop AND token = :token")
        .bind("shop", shop.value()).bind("token", token).mapTo(byte[].class).findOne())
        .map(secrets::decrypt);
  }
}
