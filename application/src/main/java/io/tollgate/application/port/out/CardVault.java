package io.tollgate.application.port.out;

import io.tollgate.domain.shop.ShopId;
import java.util.Optional;

/**
 * Keeps card numbers encrypted at rest behind tokens, so a payment stores only the token and
 * the masked number. A security code is never given to the vault.
 */
public interface CardVault {

  /** The shop's token for this card number, stored now if it was not; the same number always gets the same token. */
  String tokenize(ShopId shop, String pan);

  /**
   * The card number ready to be stored with a new payment (see
   * {@link PaymentRepository.Effects#card()}), without a round trip: its token, the same for
   * the same number and shop, its keyed fingerprint and its ciphertext.
   */
  Sealed seal(ShopId shop, String pan);

  /** A card number as the vault stores it; never holds the number in clear. */
  record Sealed(ShopId shop, String token, String fingerprint, byte[] ciphertext) {}

  /**
   * The card number behind a token of this shop; empty for an unknown or foreign token. The
   * card counts as used now: it is kept for the retention from now on.
   */
  Optional<String> reveal(ShopId shop, String token);

  /**
   * Forgets up to {@code batch} cards no payment has used since {@code before}, keeping those a
   * payment in flight still needs; answers how many it forgot. A token of a forgotten card is
   * unknown from then on; the same card number given again is stored anew, under the same token.
   */
  int forgetUnusedSince(java.time.Instant before, int batch);

  /** The card number in a ciphertext the vault stored, as read along with its payment. */
  String open(byte[] ciphertext);
}
