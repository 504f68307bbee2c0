package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.out.PasswordHasher;
import io.tollgate.application.port.out.ReferenceData;
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
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    service = new MerchantUserService(database, merchants, mock(ReferenceData.class), hasher, secrets, clock,
        clock::elapsed);
    commandLine = new MerchantUserService(database, merchants, mock(ReferenceData.class), hasher, secrets, clock,
        clock::elapsed);
    commandLine.create(MERCHANT, EMAIL, PASSWORD, EnumSet.of(Permission.SHOP_EDIT));
  }

  @Test
  void the_slow_hash_runs_once_for_a_burst_of_requests() {
    for (int i = 0; i < 10; i++) {
      service.authenticate(EMAIL, PASSWORD);
      clock.advance(Duration.ofSeconds(3));
    }
    assertThat(hasher.verifications.get()).isEqualTo(1);
  }

  /**
   * A busy integration's connections all present the same credentials at once. While the
   * first request's slow hash runs, the others wait for its answer: bcrypt runs once, not once
   * per connection (16 at cost 12 stalled a 2-core server for over 2 s).
   */
  @Test
  void requests_arriving_while_the_slow_hash_runs_wait_for_its_answer() throws Exception {
    hasher.gate = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r);
      threads.add(t);
      return t;
    });
    try {
      List<Future<MerchantUser>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(pool.submit(() -> service.authenticate(EMAIL, PASSWORD)));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (threads.size() < 8 || !threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING)) {
        assertThat(System.nanoTime()).as("all eight requests under way").isLessThan(deadline);
        Thread.onSpinWait();
      }
      hasher.gate.countDown();
      for (Future<MerchantUser> answer : answers) {
        assertThat(answer.get(10, TimeUnit.SECONDS).email()).isEqualTo(EMAIL);
      }
    } finally {
      hasher.gate.countDown();
      pool.shutdownNow();
    }
    assertThat(hasher.verifications.get()).isEqualTo(1);
  }

  /**
   * Credentials in steady use are not checked again every few minutes (which would stall each
   * busy integration that often); credentials left unused are forgotten.
   */
  @Test
  void credentials_in_steady_use_stay_remembered_and_unused_ones_are_forgotten() {
    for (int i = 0; i < 12; i++) {
      service.authenticate(EMAIL, PASSWORD);
      clock.advance(MerchantUserService.REMEMBER_FOR.dividedBy(2));
    }
    assertThat(hasher.verifications.get()).as("six windows of steady use").isEqualTo(1);

    clock.advance(MerchantUserService.REMEMBER_FOR);
    service.authenticate(EMAIL, PASSWORD);
    assertThat(hasher.verifications.get()).as("checked again after a window unused").isEqualTo(2);
  }

  /**
   * The bound holds when the wall clock is set back meanwhile: sign-ins were remembered by the
   * wall clock, so a step back of an hour kept a disabled user signed in for that hour.
   */
  @Test
  void a_user_disabled_elsewhere_is_refused_within_the_bound_though_the_clock_was_set_back() {
    service.authenticate(EMAIL, PASSWORD);
    commandLine.setEnabled(EMAIL, false);

    clock.stepBack(Duration.ofHours(1));
    clock.advance(MerchantUserService.CHANGES_SEEN_WITHIN);
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD)).isInstanceOf(DomainException.Unauthenticated.class);
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
    assertThat(hasher.verifications.get()).as("checked once while enabled, and in full while disabled").isEqualTo(2);
  }

  /**
   * A disabled user is refused whatever the password; the answer must not take less time for
   * the right one. A right password was remembered, and answered without the slow hash, so
   * trying each guess twice told the right one.
   */
  @Test
  void a_disabled_user_s_right_password_costs_the_slow_hash_like_a_wrong_one() {
    service.authenticate(EMAIL, PASSWORD);
    service.setEnabled(EMAIL, false);
    int before = hasher.verifications.get();
    for (String guess : List.of("wrong guess one", PASSWORD, PASSWORD, "wrong guess two", PASSWORD)) {
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess)).isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThat(hasher.verifications.get() - before).as("each of the five answers took the slow hash").isEqualTo(5);
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

  /** A wall clock, and the monotonic time that has passed, which a step of the wall clock leaves alone. */
  static final class MutableClock extends Clock {
    Instant now = Instant.parse("2026-11-22T09:00:00Z");
    long elapsed;

    void advance(Duration d) {
      now = now.plus(d);
      elapsed += d.toNanos();
    }

    /** What NTP does to a clock found ahead: sets it back, while time goes on. */
    void stepBack(Duration d) {
      now = now.minus(d);
    }

    long elapsed() {
      return elapsed;
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

  /** Not a slow hash: a tagged copy, and a count of the checks, which a gate can hold. */
  static final class CountingHasher implements PasswordHasher {
    final AtomicInteger verifications = new AtomicInteger();
    volatile CountDownLatch gate = new CountDownLatch(0);

    @Override
    public String hash(String password) {
      return "hash:" + password + ":" + System.nanoTime();
    }

    @Override
    public boolean verify(String password, String hash) {
      verifications.incrementAndGet();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return hash.startsWith("hash:" + password + ":");
    }
  }

  static final class InMemoryUsers implements UserRepository {
    private final Map<String, StoredUser> rows = new HashMap<>();

    @Override
    public Optional<MerchantUser> create(MerchantId merchant, String email, String passwordHash,
        Set<Permission> permissions, Long shopGroup, Instant now) {
      if (rows.containsKey(email)) {
        return Optional.empty();
      }
      MerchantUser user = new MerchantUser(rows.size() + 1, merchant, "Acme", email, permissions, shopGroup);
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
    public java.util.List<StoredUser> usersOf(MerchantId merchant) {
      return rows.values().stream().filter(u -> u.user().merchantId().equals(merchant)).toList();
    }

    @Override
    public boolean setShopGroup(String email, Long shopGroup) {
      return rows.computeIfPresent(email, (e, u) -> new StoredUser(new MerchantUser(u.user().id(),
          u.user().merchantId(), u.user().merchantName(), email, u.user().permissions(), shopGroup), u.passwordHash(),
          u.disabled())) != null;
    }

    @Override
    public boolean setPasswordHash(String email, String passwordHash) {
      return rows.computeIfPresent(email, (e, u) -> new StoredUser(u.user(), passwordHash, u.disabled())) != null;
    }
  }
}
