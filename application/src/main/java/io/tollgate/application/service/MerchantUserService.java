package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.in.MerchantUsersUseCase;
import io.tollgate.application.port.out.PasswordHasher;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.UserRepository;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.EmailAddress;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Merchant users. Passwords are kept as slow hashes; since HTTP Basic sends them on every
 * request, a successful check is remembered for a short while under a keyed digest of the
 * credentials, so only the first request of a burst pays for the slow hash.
 */
public final class MerchantUserService implements MerchantUsersUseCase {

  static final Duration REMEMBER_FOR = Duration.ofMinutes(2);
  private static final int MAX_REMEMBERED = 10_000;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final char[] ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789".toCharArray();

  private final UserRepository users;
  private final ShopRepository merchants;
  private final PasswordHasher hasher;
  private final SecretBox secrets;
  private final Clock clock;
  private volatile String dummyHash;
  /** Credentials found good lately, by a keyed digest: the slow hash runs once per user per window. */
  private final Cache<String, MerchantUser> recent;

  public MerchantUserService(UserRepository users, ShopRepository merchants, PasswordHasher hasher,
      SecretBox secrets, Clock clock) {
    this.users = users;
    this.merchants = merchants;
    this.hasher = hasher;
    this.secrets = secrets;
    this.clock = clock;
    this.recent = Caffeine.newBuilder().expireAfterWrite(REMEMBER_FOR).maximumSize(MAX_REMEMBERED)
        .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis())).build();
  }

  @Override
  public MerchantUser authenticate(String email, String password) {
    // No user has such an address or password (see create): refused before the database or bcrypt see them.
    if (email == null || password == null || email.indexOf('\u0000') >= 0 || tooLong(password)) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    String key = secrets.fingerprint("merchant-login:" + email.toLowerCase(Locale.ROOT) + "\u0000" + password);
    MerchantUser remembered = recent.getIfPresent(key);
    if (remembered != null) {
      return remembered;
    }
    var stored = users.findByEmail(email.toLowerCase(Locale.ROOT).strip());
    // An unknown address costs the same slow hash as a wrong password: no timing tells them apart.
    boolean ok = hasher.verify(password, stored.map(UserRepository.StoredUser::passwordHash).orElseGet(this::dummyHash));
    if (stored.isEmpty() || !ok) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    recent.put(key, stored.get().user());
    return stored.get().user();
  }

  private String dummyHash() {
    String h = dummyHash;
    if (h == null) {
      h = hasher.hash("not a real password " + RANDOM.nextLong());
      dummyHash = h;
    }
    return h;
  }

  @Override
  public CreatedUser create(MerchantId merchant, String email, String password, Set<Permission> permissions) {
    List<Violation> problems = new ArrayList<>();
    EmailAddress address = null;
    try {
      address = new EmailAddress(email);
    } catch (RuntimeException e) {
      problems.add(Violation.of("email", "must be a valid e-mail address", email));
    }
    if (password != null && (password.length() < 12 || tooLong(password))) {
      problems.add(Violation.of("password", "must be 12 characters to " + MAX_PASSWORD_BYTES + " bytes long", null));
    }
    if (!merchants.merchantExists(merchant)) {
      problems.add(Violation.of("merchant", "does not exist", merchant.value()));
    }
    if (!problems.isEmpty()) {
      throw new DomainException.Invalid("Invalid user", problems);
    }
    String secret = password != null ? password : generatePassword();
    MerchantUser user = users.create(merchant, address.value(), hasher.hash(secret), permissions, clock.instant())
        .orElseThrow(() -> new DomainException.Conflict("email_taken", "A user with this e-mail address exists"));
    return new CreatedUser(user, secret);
  }

  /** bcrypt reads no more of a password than this, in UTF-8. */
  static final int MAX_PASSWORD_BYTES = 72;

  private static boolean tooLong(String password) {
    return password.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_PASSWORD_BYTES;
  }

  private static String generatePassword() {
    StringBuilder sb = new StringBuilder(20);
    for (int i = 0; i < 20; i++) {
      sb.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
    }
    return sb.toString();
  }
}
