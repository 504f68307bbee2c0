package io.tollgate.rest.merchant;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.tollgate.application.port.out.PasswordHasher;
import java.nio.charset.StandardCharsets;

/** bcrypt (cost 12 by default) for merchant users' passwords. */
public final class BcryptPasswordHasher implements PasswordHasher {

  private final int cost;

  public BcryptPasswordHasher() {
    this(12);
  }

  /** @param cost log2 of the rounds; 4 is the least bcrypt allows (tests), 12 the default */
  public BcryptPasswordHasher(int cost) {
    this.cost = cost;
  }

  @Override
  public String hash(String password) {
    return BCrypt.withDefaults().hashToString(cost, password.toCharArray());
  }

  @Override
  public boolean verify(String password, String hash) {
    return BCrypt.verifyer().verify(password.getBytes(StandardCharsets.UTF_8),
        hash.getBytes(StandardCharsets.UTF_8)).verified;
  }
}
