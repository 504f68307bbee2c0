package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.in.MerchantUsersUseCase;
import io.tollgate.application.port.out.PasswordHasher;
import io.tollgate.application.port.out.ReferenceData;
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
import java.util.concurrent.CompletableFuture;

/**
 * Merchant users. Passwords are kept as slow hashes; since HTTP Basic sends them on every
 * request, a successful check is remembered for a short while under a keyed digest of the
 * credentials, so only the first request of a burst pays for the slow hash: the requests that
 * arrive while it runs wait for its answer instead of each running it again, and credentials in
 * steady use stay remembered (they are forgotten {@link #REMEMBER_FOR} after their last use, not
 * their first). Before, every 2 minutes each concurrent request of a busy integration ran
 * bcrypt at once: 16 connections stalled for over 2 s. What an operator may change about a
 * user (disabled, permissions, shop group, password) is read again from the database
 * at least every {@link #CHANGES_SEEN_WITHIN}: a remembered check counts only while the user's
 * password hash is still the one it matched.
 */
public final class MerchantUserService implements MerchantUsersUseCase {

  static final Duration REMEMBER_FOR = Duration.ofMinutes(2);
  private static final int MAX_REMEMBERED = 10_000;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final char[] ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789".toCharArray();

  private final UserRepository users;
  private final ShopRepository merchants;
  private final ReferenceData reference;
  private final PasswordHasher hasher;
  private final SecretBox secrets;
  private final Clock clock;
  private volatile String dummyHash;
  private final Object dummyHashLock = new Object();
  /**
   * Credentials found good lately, by a keyed digest, with the password hash they matched; an
   * entry still being checked is a future that the requests arriving meanwhile share.
   */
  private final AsyncCache<String, Checked> verified;
  /** Users who signed in lately, by e-mail address, as stored: permissions, shop group, disabled, password hash. */
  private final Cache<String, java.util.Optional<UserRepository.StoredUser>> current;
  /**
   * Credentials refused lately, by the same keyed digest, with the password hash they were checked
   * against ({@link #refusedAs}): sent again, they are refused without a slow hash and without
   * taking another guess. A disabled user's every password is remembered so, the right one as
   * the wrong ones, so that no answer is faster for the right one.
   */
  private final Cache<String, String> refused;
  private final SignInLimits limits;

  public MerchantUserService(UserRepository users, ShopRepository merchants, ReferenceData reference,
      PasswordHasher hasher, SecretBox secrets, Clock clock) {
    this(users, merchants, reference, hasher, secrets, clock, Ticker.systemTicker());
  }

  /**
   * @param ticker what the remembered sign-ins age by: a monotonic clock, not the wall clock,
   *     which NTP may step back an hour and so keep a disabled user's sign-in for that hour
   */
  MerchantUserService(UserRepository users, ShopRepository merchants, ReferenceData reference,
      PasswordHasher hasher, SecretBox secrets, Clock clock, Ticker ticker) {
    this(users, merchants, reference, hasher, secrets, clock, ticker,
        new SignInLimits(ticker, SignInLimits.defaultParallelism(), 16, Duration.ofSeconds(3)));
  }

  MerchantUserService(UserRepository users, ShopRepository merchants, ReferenceData reference,
      PasswordHasher hasher, SecretBox secrets, Clock clock, Ticker ticker, SignInLimits limits) {
    this.users = users;
    this.merchants = merchants;
    this.reference = reference;
    this.hasher = hasher;
    this.secrets = secrets;
    this.clock = clock;
    this.verified = Caffeine.newBuilder().expireAfterAccess(REMEMBER_FOR).maximumSize(MAX_REMEMBERED)
        .ticker(ticker).buildAsync();
    this.current = Caffeine.newBuilder().expireAfterWrite(CHANGES_SEEN_WITHIN).maximumSize(MAX_REMEMBERED)
        .ticker(ticker).build();
    this.refused = Caffeine.newBuilder().expireAfterAccess(REMEMBER_FOR).maximumSize(MAX_REMEMBERED)
        .ticker(ticker).build();
    this.limits = limits;
  }

  @Override
  public MerchantUser authenticate(String email, String password, String client) {
    // No user has such an address or password (see create): refused before the database or bcrypt see them.
    if (email == null || password == null || email.indexOf('\u0000') >= 0 || tooLong(password)) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    String address = address(email);
    String key = secrets.fingerprint("merchant-login:" + address + "\u0000" + password);
    // An unknown address is remembered as unknown like a known one as found: read from the
    // database each time, it took a round trip that a known one's did not, where the answers
    // now come without a slow hash (a refusal remembered, a 429). This process's own create
    // forgets it at once; another's counts within CHANGES_SEEN_WITHIN.
    UserRepository.StoredUser stored = current.get(address, users::findByEmail).orElse(null);
    // An unknown address costs the same slow hash as a wrong password: no timing tells them apart.
    // So does a disabled user's every attempt, never answered from what is remembered as good: a
    // right password answered fast would tell itself from a wrong one.
    String hash = stored != null ? stored.passwordHash() : dummyHash();
    boolean disabled = stored != null && stored.disabled();
    String guesser = address + "\u0000" + (client == null ? "" : client);
    // a client held back is answered nothing about a password, not even from what is remembered
    // (a 401 for a password refused lately, to anyone, would say which passwords others tried)
    limits.refuseIfHeldBack(guesser);
    boolean ok;
    if (refusedAs(hash, disabled).equals(refused.getIfPresent(key))) {
      // the same refused password again (an integration left with an old one): no new guess, no
      // slow hash; a disabled user's right password is refused again alike, until it is enabled
      ok = false;
    } else {
      ok = verified(key, guesser, password, hash, !disabled);
    }
    if (stored == null || !ok || disabled) {
      throw new DomainException.Unauthenticated("Bad credentials");
    }
    return stored.user();
  }

  /**
   * Whether {@code password} matches {@code hash}: remembered, or checked by this request while
   * any others with the same credentials wait for its answer. A remembered match of another
   * hash (the password was reset meanwhile) is checked again. A check takes one of the guesses
   * of this address from this client ({@link SignInLimits}), which a right password gives back.
   * A disabled user's check is shared alike, so that requests sent at once cost one slow hash
   * as they do for anyone else, but its answer is not remembered as good, nor is its guess given
   * back.
   */
  private boolean verified(String key, String guesser, String password, String hash, boolean enabled) {
    String shared = enabled ? key : key + "\u0000disabled";
    for (int attempt = 0; attempt < 2; attempt++) {
      CompletableFuture<Checked> mine = new CompletableFuture<>();
      CompletableFuture<Checked> found = verified.get(shared, (k, executor) -> mine);
      if (found == mine) {
        Checked result;
        try {
          // a mismatch completes with null, which the cache drops: a wrong password is never remembered
          result = check(key, guesser, password, hash, enabled) ? new Checked(hash, null) : null;
        } catch (DomainException.TooManyRequests | DomainException.Unavailable refusal) {
          // an answer, not a failure: the cache would log a failed future as an error, once per
          // request of a flood
          result = new Checked(null, refusal);
        } catch (RuntimeException | Error e) {
          mine.completeExceptionally(e);
          throw e;
        }
        mine.complete(result);
        if (result != null && (!enabled || result.refusal() != null)) {
          verified.asMap().remove(shared, mine);
        }
      }
      Checked matched = found.join();
      if (matched != null && matched.refusal() != null) {
        // the check this request waited for was refused (too many guesses, too many checks at once)
        throw matched.refusal();
      }
      if (matched == null || matched.hash().equals(hash)) {
        return matched != null;
      }
      verified.asMap().remove(shared, found);
    }
    return check(key, guesser, password, hash, enabled);
  }

  /** What a refusal is remembered as: the hash it was checked against, and whether the user was disabled. */
  private static String refusedAs(String hash, boolean disabled) {
    return disabled ? "disabled\u0000" + hash : hash;
  }

  /** The answer of one check: the password hash it matched, or why it was not run. */
  private record Checked(String hash, DomainException refusal) {}

  /**
   * One slow hash, counted as a guess unless the password was right and the user enabled; a
   * refused password is remembered as refused for this hash.
   */
  private boolean check(String key, String guesser, String password, String hash, boolean enabled) {
    limits.takeGuess(guesser);
    boolean right;
    try {
      right = limits.hash(() -> hasher.verify(password, hash));
    } catch (RuntimeException | Error e) {
      limits.giveBack(guesser);
      throw e;
    }
    if (right && enabled) {
      limits.signedIn(guesser);
    } else {
      refused.put(key, refusedAs(hash, !enabled));
    }
    return right;
  }

  @Override
  public void setEnabled(String email, boolean enabled) {
    changed(email, users.setDisabled(address(email), !enabled));
  }

  @Override
  public void setPermissions(String email, Set<Permission> permissions) {
    changed(email, users.setPermissions(address(email), permissions));
  }

  @Override
  public void setShopGroup(String email, Long shopGroup) {
    UserRepository.StoredUser stored = users.findByEmail(address(email))
        .orElseThrow(() -> new DomainException.NotFound("No merchant user has the e-mail address " + email));
    if (shopGroup != null && !isShopGroupOf(stored.user().merchantId(), shopGroup)) {
      throw new DomainException.Invalid("Invalid shop group", List.of(shopGroupViolation(shopGroup)));
    }
    changed(email, users.setShopGroup(address(email), shopGroup));
  }

  @Override
  public List<ListedUser> users(MerchantId merchant) {
    if (!merchants.merchantExists(merchant)) {
      throw new DomainException.Invalid("Invalid merchant", List.of(Violation.of("merchant", "does not exist",
          merchant.value())));
    }
    return users.usersOf(merchant).stream().map(u -> new ListedUser(u.user(), u.disabled())).toList();
  }

  private boolean isShopGroupOf(MerchantId merchant, long shopGroup) {
    return reference.shopGroup(shopGroup).filter(g -> g.merchantId().equals(merchant)).isPresent();
  }

  private static Violation shopGroupViolation(long shopGroup) {
    return Violation.of("shopGroup", "is not a shop group of the user's merchant", shopGroup);
  }

  @Override
  public String resetPassword(String email, String password) {
    if (password != null && badPassword(password)) {
      throw new DomainException.Invalid("Invalid password", List.of(passwordViolation()));
    }
    String secret = password != null ? password : generatePassword();
    changed(email, users.setPasswordHash(address(email), hasher.hash(secret)));
    return secret;
  }

  private static String address(String email) {
    return email == null ? "" : email.toLowerCase(Locale.ROOT).strip();
  }

  /** This process sees its own change at once; other processes within {@link #CHANGES_SEEN_WITHIN}. */
  private void changed(String email, boolean found) {
    if (!found) {
      throw new DomainException.NotFound("No merchant user has the e-mail address " + email);
    }
    current.invalidate(address(email));
  }

  /**
   * The stand-in an unknown address's password is checked against, made on first use by one
   * request while the others wait for it: made by each, a burst of made-up addresses right after
   * a start ran as many slow hashes at once, outside the cap on password checks.
   */
  private String dummyHash() {
    String h = dummyHash;
    if (h == null) {
      synchronized (dummyHashLock) {
        h = dummyHash;
        if (h == null) {
          h = hasher.hash("not a real password " + RANDOM.nextLong());
          dummyHash = h;
        }
      }
    }
    return h;
  }

  @Override
  public CreatedUser create(MerchantId merchant, String email, String password, Set<Permission> permissions,
      Long shopGroup) {
    List<Violation> problems = new ArrayList<>();
    EmailAddress address = null;
    try {
      address = new EmailAddress(email);
    } catch (RuntimeException e) {
      problems.add(Violation.of("email", "must be a valid e-mail address", email));
    }
    if (password != null && badPassword(password)) {
      problems.add(passwordViolation());
    }
    if (!merchants.merchantExists(merchant)) {
      problems.add(Violation.of("merchant", "does not exist", merchant.value()));
    } else if (shopGroup != null && !isShopGroupOf(merchant, shopGroup)) {
      problems.add(shopGroupViolation(shopGroup));
    }
    if (!problems.isEmpty()) {
      throw new DomainException.Invalid("Invalid user", problems);
    }
    String secret = password != null ? password : generatePassword();
    MerchantUser user = users.create(merchant, address.value(), hasher.hash(secret), permissions, shopGroup,
            clock.instant())
        .orElseThrow(() -> new DomainException.Conflict("email_taken", "A user with this e-mail address exists"));
    current.invalidate(address(address.value())); // remembered as unknown until now
    return new CreatedUser(user, secret);
  }

  /** bcrypt reads no more of a password than this, in UTF-8. */
  static final int MAX_PASSWORD_BYTES = 72;

  private static boolean badPassword(String password) {
    return password.length() < 12 || tooLong(password);
  }

  private static Violation passwordViolation() {
    return Violation.of("password", "must be 12 characters to " + MAX_PASSWORD_BYTES + " bytes long", null);
  }

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
