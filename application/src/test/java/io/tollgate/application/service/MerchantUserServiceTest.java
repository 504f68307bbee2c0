package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.PasswordHasher;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.UserRepository;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import io.tollgate.domain.user.Permission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Signing in stays cheap (the slow hash runs once per burst) while what an operator changes
 * about a user counts within seconds: another process's change within the documented bound,
 * this process's at once.
 */
class MerchantUserServiceTest {

  static final MerchantId MERCHANT = new MerchantId(7);
  static final String EMAIL = "ops@acme.example";
  static final String PASSWORD = "correct horse battery";

  final MutableClock clock = new MutableClock();
  final InMemoryUsers database = new InMemoryUsers();
  final CountingHasher hasher = new CountingHasher();
  MerchantUserService service;
  /** Another process on the same database: the command line. */
  MerchantUserService commandLine;

  @BeforeEach
  void setUp() {
    ShopRepository merchants = mock(ShopRepository.class);
    when(merchants.merchantExists(MERCHANT)).thenReturn(true);
    SecretBox secrets = new SecretBox(new byte[32]);
    service = new MerchantUserService(database, merchants, hasher, secrets, clock);
    commandLine = new MerchantUserService(database, merchants, hasher, secrets, clock);
    commandLine.create(MERCHANT, EMAIL, PASSWORD, EnumSet.of(Permission.SHOP_EDIT));
  }

  @Test
  void the_slow_hash_runs_once_for_a_burst_of_requests() {
    for (int i = 0; i < 10; i++) {
      service.authenticate(EMAIL, PASSWORD);
      clock.advance(Duration.ofSeconds(3));
    }
    assertThat(hasher.verifications).isEqualTo(1);
  }

  @Test
  void a_user_disabled_elsewhere_is_refused_within_the_bound_and_enabled_again_likewise() {
    service.authenticate(EMAIL, PASSWORD);
    commandLine.setEnabled(EMAIL, false);

    clock.advance(MerchantUserService.CHANGES_SEEN_WITHIN);
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD)).isInstanceOf(DomainException.Unauthenticated.class);

    commandLine.setEnabled(EMAIL, true);
    clock.advance(MerchantUserService.CHANGES_SEEN_WITHIN);
    assertThat(service.authenticate(EMAIL, PASSWORD).email()).isEqualTo(EMAIL);
    assertThat(hasher.verifications).as("the password itself was checked once").isEqualTo(1);
  }

  @Test
  void permissions_changed_elsewhere_count_within_the_bound() {
    assertThat(service.authenticate(EMAIL, PASSWORD).may(Permission.SHOP_EDIT)).isTrue();
    commandLine.setPermissions(EMAIL, Set.of(Permission.SHOP_GROUP_VIEW));

    clock.advance(MerchantUserService.CHANGES_SEEN_WITHIN);
    MerchantUser user = service.authenticate(EMAIL, PASSWORD);
    assertThat(user.permissions()).containsExactly(Permission.SHOP_GROUP_VIEW);
  }

  @Test
  void a_change_made_in_this_process_counts_at_once() {
    service.authenticate(EMAIL, PASSWORD);
    service.setPermissions(EMAIL, Set.of());
    assertThat(service.authenticate(EMAIL, PASSWORD).permissions()).isEmpty();
    service.setEnabled(EMAIL, false);
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD)).isInstanceOf(DomainException.Unauthenticated.class);
  }

  @Test
  void a_reset_password_replaces_the_old_one_even_while_the_old_check_is_remembered() {
    service.authenticate(EMAIL, PASSWORD);
    String fresh = commandLine.resetPassword(EMAIL, null);
    assertThat(fresh).hasSize(20);

    clock.advance(MerchantUserService.CHANGES_SEEN_WITHIN);
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD)).isInstanceOf(DomainException.Unauthenticated.class);
    assertThat(service.authenticate(EMAIL, fresh).email()).isEqualTo(EMAIL);
  }

  @Test
  void changes_to_an_unknown_user_or_with_a_short_password_are_refused() {
    assertThatThrownBy(() -> service.setEnabled("nobody@acme.example", false))
        .isInstanceOf(DomainException.NotFound.class).hasMessageContaining("nobody@acme.example");
    assertThatThrownBy(() -> service.setPermissions("nobody@acme.example", Set.of()))
        .isInstanceOf(DomainException.NotFound.class);
    assertThatThrownBy(() -> service.resetPassword(EMAIL, "short")).isInstanceOf(DomainException.Invalid.class);
    assertThat(service.authenticate(EMAIL, PASSWORD).email()).isEqualTo(EMAIL);
  }

  static final class MutableClock extends Clock {
    Instant now = Instant.parse("2026-11-22T09:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  /** Not a slow hash: a tagged copy, and a count of the checks. */
  static final class CountingHasher implements PasswordHasher {
    int verifications;

    @Override
    public String hash(String password) {
      return "hash:" + password + ":" + System.nanoTime();
    }

    @Override
    public boolean verify(String password, String hash) {
      verifications++;
      return hash.startsWith("hash:" + password + ":");
    }
  }

  static final class InMemoryUsers implements UserRepository {
    private final Map<String, StoredUser> rows = new HashMap<>();

    @Override
    public Optional<MerchantUser> create(MerchantId merchant, String email, String passwordHash,
        Set<Permission> permissions, Instant now) {
      if (rows.containsKey(email)) {
        return Optional.empty();
      }
      MerchantUser user = new MerchantUser(rows.size() + 1, merchant, "Acme", email, permissions);
      rows.put(email, new StoredUser(user, passwordHash, false));
      return Optional.of(user);
    }

    @Override
    public Optional<StoredUser> findByEmail(String email) {
      return Optional.ofNullable(rows.get(email));
    }

    @Override
    public boolean setDisabled(String email, boolean disabled) {
      return rows.computeIfPresent(email, (e, u) -> new StoredUser(u.user(), u.passwordHash(), disabled)) != null;
    }

    @Override
    public boolean setPermissions(String email, Set<Permission> permissions) {
      return rows.computeIfPresent(email, (e, u) -> new StoredUser(new MerchantUser(u.user().id(),
          u.user().merchantId(), u.user().merchantName(), email, permissions), u.passwordHash(), u.disabled())) != null;
    }

    @Override
    public boolean setPasswordHash(String email, String passwordHash) {
      return rows.computeIfPresent(email, (e, u) -> new StoredUser(u.user(), passwordHash, u.disabled())) != null;
    }
  }
}
