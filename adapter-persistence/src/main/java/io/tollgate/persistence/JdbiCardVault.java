package io.tollgate.persistence;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.domain.shop.ShopId;
import java.time.Clock;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * Card numbers encrypted with the master key; looked up by a keyed fingerprint, never in clear.
 *
 * <p>A card's token is a keyed digest of the shop and the number, so it is known before
 * anything is stored, and a card stored by a concurrent request gets the very token this one
 * would have given it. Cards stored before tokens were derived keep the random token they got
 * then: the stored token always wins.
 */
final class JdbiCardVault implements CardVault {

  /**
   * Stores the card of {@code :vaultShop}, {@code :vaultToken}, {@code :vaultFingerprint},
   * {@code :vaultCiphertext} and {@code :vaultAt} unless the shop has it, as the CTE
   * {@code vault} that yields the stored token: the new one, or the card's token from before
   * the statement began (no row when a concurrent request stored the card after that).
   * Two requests storing one new card at once collide on both keys, the token's as well as the
   * fingerprint's, so a conflict on either does nothing.
   */
  static final String STORE = """
      vault_added AS (
        INSERT INTO card_vault (shop_id, token, fingerprint, pan_ciphertext, created)
        VALUES (:vaultShop, :vaultToken, :vaultFingerprint, :vaultCiphertext, :vaultAt)
        ON CONFLICT DO NOTHING
        RETURNING token),
      vault AS (
        SELECT token FROM vault_added
        UNION ALL
        SELECT token FROM card_vault WHERE shop_id = :vaultShop AND fingerprint = :vaultFingerprint
        LIMIT 1)
      """;

  private final Jdbi jdbi;
  private final SecretBox secrets;
  private final Clock clock;

  JdbiCardVault(Jdbi jdbi, SecretBox secrets, Clock clock) {
    this.jdbi = jdbi;
    this.secrets = secrets;
    this.clock = clock;
  }

  @Override
  public Sealed seal(ShopId shop, String pan) {
    return new Sealed(shop, secrets.token(shop.value() + ":" + pan), secrets.fingerprint(pan), secrets.encrypt(pan));
  }

  /** Binds what {@link #STORE} needs. */
  static <T extends SqlStatement<T>> T bind(T statement, Sealed card, java.time.Instant at) {
    return statement.bind("vaultShop", card.shop().value()).bind("vaultToken", card.token())
        .bind("vaultFingerprint", card.fingerprint()).bind("vaultCiphertext", card.ciphertext())
        .bind("vaultAt", at);
  }

  @Override
  public String tokenize(ShopId shop, String pan) {
    Sealed card = seal(shop, pan);
    // Empty only when a concurrent request stored the same card after the statement began:
    // derived, its token is this one.
    return jdbi.withHandle((Handle h) -> bind(h.createQuery("WITH " + STORE + "SELECT token FROM vault"), card,
            clock.instant()).mapTo(String.class).findOne())
        .orElse(card.token());
  }

  @Override
  public Optional<String> reveal(ShopId shop, String token) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT pan_ciphertext FROM card_vault WHERE shop_id = :shop AND token = :token")
        .bind("shop", shop.value()).bind("token", token).mapTo(byte[].class).findOne())
        .map(secrets::decrypt);
  }

  @Override
  public String open(byte[] ciphertext) {
    return secrets.decrypt(ciphertext);
  }
}
