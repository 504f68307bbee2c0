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
   * Which cards a use at {@code :vaultAt} marks as used: those last used over a day before, so a
   * card charged every minute is written once a day, not on every payment. A card used within
   * the day is never forgotten ({@link #FORGET}: the retention is 30 days at least), so a payment
   * that used it finds it when it is processed.
   */
  private static final String TOUCH = "last_used < CAST(:vaultAt AS timestamptz) - interval '1 day'";

  /**
   * Stores the card of {@code :vaultShop}, {@code :vaultToken}, {@code :vaultFingerprint},
   * {@code :vaultCiphertext} and {@code :vaultAt} unless the shop has it, as the CTE
   * {@code vault} that yields the stored token: the new one, or the card's token from before
   * the statement began (no row when a concurrent request stored the card after that).
   * Two requests storing one new card at once collide on both keys, the token's as well as the
   * fingerprint's, so a conflict on either does nothing. A card the shop had counts as used
   * now ({@link #TOUCH}).
   *
   * <p>The CTE {@code vault_lost} tells whether the card was forgotten ({@link #FORGET}) in the
   * instant between the insert finding it and its mark: a card due to be forgotten that this
   * statement neither stored nor marked. Its token is then the old one, but the vault no longer
   * has it; whoever ran the statement stores it again under that token ({@link #restore}).
   */
  static final String STORE = """
      vault_added AS (
        INSERT INTO card_vault (shop_id, token, fingerprint, pan_ciphertext, created, last_used)
        VALUES (:vaultShop, :vaultToken, :vaultFingerprint, :vaultCiphertext, :vaultAt, :vaultAt)
        ON CONFLICT DO NOTHING
        RETURNING token),
      vault_used AS (
        UPDATE card_vault SET last_used = :vaultAt
        WHERE shop_id = :vaultShop AND fingerprint = :vaultFingerprint AND {touch}
        RETURNING token),
      vault AS (
        SELECT token FROM vault_added
        UNION ALL
        SELECT token FROM card_vault WHERE shop_id = :vaultShop AND fingerprint = :vaultFingerprint
        LIMIT 1),
      vault_lost AS (
        SELECT NOT EXISTS (SELECT 1 FROM vault_added) AND NOT EXISTS (SELECT 1 FROM vault_used)
            AND EXISTS (SELECT 1 FROM card_vault
                        WHERE shop_id = :vaultShop AND fingerprint = :vaultFingerprint AND {touch}) AS lost)
      """.replace("{touch}", TOUCH);

  /** The card behind {@code :shop}'s {@code :token}, and whether it was used within the day before {@code :vaultAt}. */
  private static final String REVEAL = """
      SELECT pan_ciphertext, NOT ({touch}) AS used_today FROM card_vault WHERE shop_id = :shop AND token = :token"""
      .replace("{touch}", TOUCH);

  /**
   * Marks the card behind {@code :shop}'s {@code :token} as used at {@code :vaultAt}, answering
   * its ciphertext; none when it was forgotten since it was read.
   */
  private static final String MARK_USED = """
      UPDATE card_vault SET last_used = greatest(last_used, :vaultAt)
      WHERE shop_id = :shop AND token = :token
      RETURNING pan_ciphertext""";

  /**
   * Forgets up to {@code :batch} cards no payment used since a day before {@code :before} (a
   * card is marked once a day, so its mark may be up to a day older than its last use), oldest
   * first, except those of a payment still in flight, which will need the card to be charged or
   * paid out however long it waits: a deposit waiting for its customer or its terminal, a payout
   * waiting for its worker (CHECKOUT, PENDING), or for the merchant's approval
   * (AWAITING_APPROVAL). A card a payment marks as used while this runs stays: the row is read
   * again once its lock is free, and its last use is then too recent.
   */
  static final String FORGET = """
      DELETE FROM card_vault WHERE (shop_id, token) IN (
        SELECT v.shop_id, v.token FROM card_vault v
        WHERE v.last_used < CAST(:before AS timestamptz) - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM payments p
              WHERE p.state IN ('PENDING', 'CHECKOUT') AND p.shop_id = v.shop_id
                AND p.card->>'cardToken' = v.token)
          AND NOT EXISTS (SELECT 1 FROM payments p
              WHERE p.state = 'AWAITING_APPROVAL' AND p.shop_id = v.shop_id
                AND p.card->>'cardToken' = v.token)
        ORDER BY v.last_used
        LIMIT :batch
        FOR UPDATE SKIP LOCKED)
      AND last_used < CAST(:before AS timestamptz) - interval '1 day'""";

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
    java.time.Instant now = clock.instant();
    return jdbi.withHandle((Handle h) -> {
      Stored stored = bind(h.createQuery(
              "WITH " + STORE + "SELECT (SELECT token FROM vault), (SELECT lost FROM vault_lost)"), card, now)
          .map((rs, ctx) -> new Stored(rs.getString(1), rs.getBoolean(2))).one();
      // No token only when a concurrent request stored the same card after the statement began:
      // derived, its token is this one.
      String token = stored.token() == null ? card.token() : stored.token();
      if (stored.lost()) {
        restore(h, new Sealed(shop, token, card.fingerprint(), card.ciphertext()), now);
      }
      return token;
    });
  }

  /** What {@link #STORE} answered: the card's token, and whether the card was forgotten meanwhile. */
  record Stored(String token, boolean lost) {}

  /**
   * Stores again, under the token a payment was just given, a card {@link #STORE} found as it was
   * being forgotten, on the handle (and in the transaction, if any) of the statement that found it.
   */
  static void restore(Handle h, Sealed card, java.time.Instant at) {
    bind(h.createQuery("WITH " + STORE + "SELECT count(*) FROM vault_added"), card, at).mapTo(Integer.class).one();
  }

  /**
   * A card used within the day is read, nothing more (it is kept for 30 days at least). One
   * that was not is marked as used now, in a second statement, which finds the row as it is
   * then: gone when it was forgotten in between, so that no payment takes a token whose card is
   * about to go; kept, when another payment marked it first.
   */
  @Override
  public Optional<String> reveal(ShopId shop, String token) {
    java.time.Instant now = clock.instant();
    return jdbi.withHandle(h -> {
      Optional<Kept> kept = h.createQuery(REVEAL).bind("shop", shop.value()).bind("token", token)
          .bind("vaultAt", now)
          .map((rs, ctx) -> new Kept(rs.getBytes("pan_ciphertext"), rs.getBoolean("used_today"))).findOne();
      if (kept.isEmpty() || kept.get().usedToday()) {
        return kept.map(Kept::ciphertext);
      }
      return h.createQuery(MARK_USED).bind("shop", shop.value()).bind("token", token).bind("vaultAt", now)
          .mapTo(byte[].class).findOne();
    }).map(secrets::decrypt);
  }

  private record Kept(byte[] ciphertext, boolean usedToday) {}

  @Override
  public int forgetUnusedSince(java.time.Instant before, int batch) {
    return jdbi.withHandle(h -> h.createUpdate(FORGET).bind("before", before).bind("batch", batch).execute());
  }

  @Override
  public String open(byte[] ciphertext) {
    return secrets.decrypt(ciphertext);
  }
}
