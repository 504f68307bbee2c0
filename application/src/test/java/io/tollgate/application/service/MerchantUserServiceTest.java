package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
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
    List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    ExecutorService pool = poolKeeping(8, threads);
    try {
      List<Future<MerchantUser>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(pool.submit(() -> service.authenticate(EMAIL, PASSWORD)));
      }
      awaitAllWaiting(threads, 8, "all eight requests under way");
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
   * Made-up addresses in a burst right after a start: the stand-in hash an unknown address is
   * checked against is made once, while the others wait for it, not by each at once outside the
   * cap on password checks (200 of them at cost 12 took a 2-core server's cores for tens of seconds).
   */
  @Test
  void unknown_addresses_at_once_wait_for_one_stand_in_hash() throws Exception {
    hasher.hashGate = new CountDownLatch(1);
    int before = hasher.hashes.get();
    List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    ExecutorService pool = poolKeeping(8, threads);
    try {
      List<Future<Throwable>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String who = "nobody" + i + "@x.test";
        String from = "10.0.0." + i;
        answers.add(pool.submit(() -> catchThrowable(() -> service.authenticate(who, "wrong password 1", from))));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (threads.size() < 8 || !threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING
          || t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.BLOCKED)) {
        assertThat(System.nanoTime()).as("all eight requests under way").isLessThan(deadline);
        Thread.onSpinWait();
      }
      assertThat(hasher.mostHashingAtOnce.get()).as("stand-in hashes made at once").isEqualTo(1);
      hasher.hashGate.countDown();
      for (Future<Throwable> answer : answers) {
        assertThat(answer.get(10, TimeUnit.SECONDS)).isInstanceOf(DomainException.Unauthenticated.class);
      }
    } finally {
      hasher.hashGate.countDown();
      pool.shutdownNow();
    }
    assertThat(hasher.hashes.get() - before).as("stand-in hashes made").isEqualTo(1);
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
    List<Integer> hashes = new ArrayList<>();
    for (String guess : List.of("wrong guess one", PASSWORD, "wrong guess one", PASSWORD, "wrong guess two")) {
      int before = hasher.verifications.get();
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess)).isInstanceOf(DomainException.Unauthenticated.class);
      hashes.add(hasher.verifications.get() - before);
    }
    assertThat(hashes).as("each password's first answer takes the slow hash, its repeats none, right or wrong")
        .containsExactly(1, 1, 0, 0, 1);

    service.setEnabled(EMAIL, true);
    assertThat(service.authenticate(EMAIL, PASSWORD).email()).as("enabled again: no longer refused").isEqualTo(EMAIL);
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

  /**
   * Guessing a user's password: ten wrong ones are checked, then the address is refused with
   * 429 before any check, whatever the password, and gets one more guess a minute. Before, one
   * client could have about eighteen guesses a second checked, for as long as it liked.
   */
  @Test
  void guesses_past_the_limit_are_refused_before_any_check_and_come_back_with_time() {
    for (int i = 0; i < SignInLimits.GUESSES; i++) {
      String guess = "wrong guess " + i;
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess)).isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThat(hasher.verifications.get()).isEqualTo(SignInLimits.GUESSES);

    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD))
        .isInstanceOfSatisfying(DomainException.TooManyRequests.class, e -> {
          assertThat(e.getMessage()).isEqualTo("Too many failed sign-ins for this user; retry after 60 s");
          assertThat(e.retryAfterSeconds()).isEqualTo(60);
        });
    assertThat(hasher.verifications.get()).as("not checked").isEqualTo(SignInLimits.GUESSES);

    clock.advance(SignInLimits.GUESS_EVERY.minusSeconds(15));
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD))
        .isInstanceOfSatisfying(DomainException.TooManyRequests.class,
            e -> assertThat(e.retryAfterSeconds()).isEqualTo(15));
    clock.advance(Duration.ofSeconds(15));
    assertThat(service.authenticate(EMAIL, PASSWORD).email()).isEqualTo(EMAIL);
    assertThat(service2User("other@acme.example")).as("another user is not held back").isTrue();
  }

  /** No answer may tell an unknown address from a known one: both are held back alike. */
  @Test
  void an_unknown_address_is_held_back_like_a_known_one() {
    for (int i = 0; i < SignInLimits.GUESSES; i++) {
      String guess = "wrong guess " + i;
      assertThatThrownBy(() -> service.authenticate("nobody@acme.example", guess))
          .isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThatThrownBy(() -> service.authenticate("Nobody@Acme.Example", "another guess"))
        .isInstanceOf(DomainException.TooManyRequests.class);
    assertThat(hasher.verifications.get()).isEqualTo(SignInLimits.GUESSES);
  }

  /**
   * A client held back is told nothing about a password, not even the right one remembered from
   * the user's own recent sign-in: answered 200 for it and 429 at once for each wrong one, it
   * could guess at full speed. The user's own client, elsewhere, keeps working.
   */
  @Test
  void a_client_held_back_is_refused_even_a_remembered_password() {
    service.authenticate(EMAIL, PASSWORD, "198.51.100.7");
    for (int i = 0; i < SignInLimits.GUESSES; i++) {
      String guess = "wrong guess " + i;
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess, "203.0.113.9"))
          .isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD, "203.0.113.9"))
        .isInstanceOf(DomainException.TooManyRequests.class);
    assertThatThrownBy(() -> service.authenticate(EMAIL, "wrong guess 3", "203.0.113.9"))
        .as("nor told which passwords were refused lately").isInstanceOf(DomainException.TooManyRequests.class);
    int checks = hasher.verifications.get();
    assertThat(service.authenticate(EMAIL, PASSWORD, "198.51.100.7").email()).isEqualTo(EMAIL);
    assertThat(hasher.verifications.get()).as("remembered for its own client").isEqualTo(checks);
  }

  /**
   * An integration left with an old password sends it again and again: that is one guess, and
   * one slow hash, not one per request (it would hold its user back for everyone else).
   */
  @Test
  void the_same_wrong_password_again_takes_no_guess_and_no_slow_hash() {
    for (int i = 0; i < 3 * SignInLimits.GUESSES; i++) {
      assertThatThrownBy(() -> service.authenticate(EMAIL, "the old password"))
          .isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThat(hasher.verifications.get()).isEqualTo(1);
    assertThat(service.authenticate(EMAIL, PASSWORD).email()).isEqualTo(EMAIL);

    String fresh = commandLine.resetPassword(EMAIL, "the old password");
    clock.advance(MerchantUserService.CHANGES_SEEN_WITHIN);
    assertThat(service.authenticate(EMAIL, fresh).email()).as("right once it is the password").isEqualTo(EMAIL);
  }

  /** A right password gives back the guess its check took: typing errors before it do not add up for good. */
  @Test
  void a_right_password_gives_its_guess_back() {
    for (int i = 0; i < SignInLimits.GUESSES - 1; i++) {
      String guess = "typo " + i;
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess)).isInstanceOf(DomainException.Unauthenticated.class);
    }
    service.authenticate(EMAIL, PASSWORD);
    assertThatThrownBy(() -> service.authenticate(EMAIL, "one more typo"))
        .isInstanceOf(DomainException.Unauthenticated.class);
    assertThatThrownBy(() -> service.authenticate(EMAIL, "and another"))
        .isInstanceOf(DomainException.TooManyRequests.class);
  }

  /**
   * Guesses sent at once each take their guess before their check runs: thirty at once get ten
   * checks, not thirty.
   */
  @Test
  void guesses_sent_at_once_cannot_overtake_the_limit() throws Exception {
    MerchantUserService roomy = withLimits(new SignInLimits(clock::elapsed, 64, 64, Duration.ofSeconds(10)));
    hasher.gate = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(30);
    try {
      List<Future<Class<?>>> answers = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        String guess = "concurrent guess " + i;
        answers.add(pool.submit(() -> outcome(() -> roomy.authenticate(EMAIL, guess))));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (hasher.verifications.get() < SignInLimits.GUESSES) {
        assertThat(System.nanoTime()).as("ten checks under way").isLessThan(deadline);
        Thread.onSpinWait();
      }
      hasher.gate.countDown();
      Map<Class<?>, Integer> counts = new HashMap<>();
      for (Future<Class<?>> answer : answers) {
        counts.merge(answer.get(10, TimeUnit.SECONDS), 1, Integer::sum);
      }
      assertThat(counts).containsOnly(Map.entry(DomainException.Unauthenticated.class, SignInLimits.GUESSES),
          Map.entry(DomainException.TooManyRequests.class, 30 - SignInLimits.GUESSES));
    } finally {
      hasher.gate.countDown();
      pool.shutdownNow();
    }
    assertThat(hasher.verifications.get()).isEqualTo(SignInLimits.GUESSES);
  }

  /**
   * Made-up credentials cannot take every core: one slow hash runs at a time here, two more
   * wait their turn, and a fourth at once is refused with 503 without being checked. Remembered
   * credentials are answered meanwhile.
   */
  @Test
  void slow_hashes_beyond_the_slots_wait_and_beyond_the_queue_are_refused_at_once() throws Exception {
    MerchantUserService narrow = withLimits(new SignInLimits(clock::elapsed, 1, 2, Duration.ofSeconds(10)));
    narrow.authenticate(EMAIL, PASSWORD);
    hasher.verifications.set(0);
    hasher.gate = new CountDownLatch(1);
    List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    ExecutorService pool = poolKeeping(3, threads);
    try {
      List<Future<Class<?>>> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String address = "made-up-" + i + "@acme.example";
        answers.add(pool.submit(() -> outcome(() -> narrow.authenticate(address, "a made-up password"))));
      }
      awaitAllWaiting(threads, 3, "one check running, two waiting");
      ExecutorService fourth = Executors.newSingleThreadExecutor();
      try {
        Future<Throwable> refused = fourth.submit(() -> catchThrowable(
            () -> narrow.authenticate("made-up-3@acme.example", "a made-up password")));
        assertThat(refused.get(5, TimeUnit.SECONDS)).as("refused at once, not queued")
            .isInstanceOf(DomainException.Unavailable.class)
            .hasMessage("Too many sign-ins are being checked at once; retry in a few seconds");
        assertThat(fourth.submit(() -> narrow.authenticate(EMAIL, PASSWORD).email()).get(5, TimeUnit.SECONDS))
            .as("remembered: no slow hash").isEqualTo(EMAIL);
      } finally {
        fourth.shutdownNow();
      }
      assertThat(hasher.verifications.get()).as("one at a time").isEqualTo(1);

      hasher.gate.countDown();
      for (Future<Class<?>> answer : answers) {
        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(DomainException.Unauthenticated.class);
      }
      assertThat(hasher.verifications.get()).isEqualTo(3);
      assertThat(hasher.mostAtOnce.get()).isEqualTo(1);
    } finally {
      hasher.gate.countDown();
      pool.shutdownNow();
    }
  }

  /**
   * Guesses are counted per client: someone guessing from one address does not hold back the
   * user signing in from another. Counted per e-mail address alone, ten guesses and then one a
   * minute kept the user's own integration out for as long as the guessing went on.
   */
  @Test
  void someone_guessing_from_elsewhere_does_not_hold_back_the_user_s_own_client() {
    for (int i = 0; i < SignInLimits.GUESSES; i++) {
      String guess = "wrong guess " + i;
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess, "203.0.113.9"))
          .isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThatThrownBy(() -> service.authenticate(EMAIL, "one more", "203.0.113.9"))
        .isInstanceOf(DomainException.TooManyRequests.class);
    assertThat(service.authenticate(EMAIL, PASSWORD, "198.51.100.7").email()).isEqualTo(EMAIL);
    assertThatThrownBy(() -> service.authenticate(EMAIL, "yet another guess", "203.0.113.9"))
        .as("the guessing client is still held back").isInstanceOf(DomainException.TooManyRequests.class);
  }

  /**
   * An IPv6 client counts as its /64, but one subscriber may have a /48, 65,536 of them: their
   * guesses also count against the /48, which may have forty, while another /48 and the IPv4
   * clients keep theirs. Before, each /64 had ten guesses of its own.
   */
  @Test
  void the_clients_of_one_ipv6_48_share_a_bound_on_their_guesses() {
    int guesses = 0;
    for (int subnet = 0; guesses < SignInLimits.BLOCK_GUESSES; subnet++) {
      String client = "2001:db8:7:" + Integer.toHexString(subnet) + ":0:0:0:0/64";
      for (int i = 0; i < SignInLimits.GUESSES && guesses < SignInLimits.BLOCK_GUESSES; i++, guesses++) {
        String guess = "wrong guess " + guesses;
        assertThatThrownBy(() -> service.authenticate(EMAIL, guess, client))
            .isInstanceOf(DomainException.Unauthenticated.class);
      }
    }
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD, "2001:db8:7:ffff:0:0:0:0/64"))
        .as("a fresh /64 of the same /48").isInstanceOfSatisfying(DomainException.TooManyRequests.class,
            e -> assertThat(e.retryAfterSeconds()).isEqualTo(60));
    assertThat(hasher.verifications.get()).isEqualTo(SignInLimits.BLOCK_GUESSES);
    assertThat(service.authenticate(EMAIL, PASSWORD, "2001:db8:8:0:0:0:0:0/64").email()).as("another /48")
        .isEqualTo(EMAIL);
    assertThat(service.authenticate(EMAIL, PASSWORD, "198.51.100.7").email()).isEqualTo(EMAIL);

    clock.advance(SignInLimits.GUESS_EVERY);
    assertThat(service.authenticate(EMAIL, PASSWORD, "2001:db8:7:ffff:0:0:0:0/64").email())
        .as("a right password gives the /48's guess back too").isEqualTo(EMAIL);
    assertThat(service.authenticate(EMAIL, PASSWORD, "2001:db8:7:fffe:0:0:0:0/64").email()).isEqualTo(EMAIL);
  }

  /**
   * Someone guessing from a /64 of the /48 the user's integration is in (a hosting provider's
   * customers may share one) does not lock the integration out: a client that gave the right
   * password lately is not held back by its /48, remembered or checked again.
   */
  @Test
  void guesses_from_a_neighbouring_64_do_not_lock_out_a_client_that_signed_in() {
    String integration = "2001:db8:7:1:0:0:0:0/64";
    assertThat(service.authenticate(EMAIL, PASSWORD, integration).email()).isEqualTo(EMAIL);
    for (int i = 0; i < SignInLimits.BLOCK_GUESSES; i++) {
      String guess = "wrong guess " + i;
      String neighbour = "2001:db8:7:" + Integer.toHexString(0x100 + i / SignInLimits.GUESSES) + ":0:0:0:0/64";
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess, neighbour))
          .isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD, "2001:db8:7:ffff:0:0:0:0/64"))
        .as("the /48 holds back a client it does not know").isInstanceOf(DomainException.TooManyRequests.class);
    assertThat(service.authenticate(EMAIL, PASSWORD, integration).email()).as("remembered").isEqualTo(EMAIL);
    clock.advance(MerchantUserService.REMEMBER_FOR.plusSeconds(1));
    for (int i = 0; i < 2; i++) {
      String guess = "later guess " + i;
      // what the /48 got back meanwhile, guessed away again
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess, "2001:db8:7:200:0:0:0:0/64"))
          .isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThat(service.authenticate(EMAIL, PASSWORD, integration).email()).as("checked again").isEqualTo(EMAIL);
  }

  /** Only what ClientAddresses writes for an IPv6 client stands for a /48; nothing else is looked up. */
  @Test
  void only_an_ipv6_client_has_a_48() {
    assertThat(SignInLimits.block("a@b\u00002001:db8:7:ab:0:0:0:0/64")).isEqualTo("a@b\u00002001:db8:7:0:0:0:0:0/48");
    assertThat(SignInLimits.block("a@b\u0000203.0.113.9")).isNull();
    assertThat(SignInLimits.block("a@b\u0000forwarded:example.com/64")).isNull();
    assertThat(SignInLimits.block("a@b\u0000cafe/64")).as("no colon: a host name").isNull();
    assertThat(SignInLimits.block("a@b\u0000")).isNull();
  }

  /**
   * A disabled user's password sent on many connections at once costs one slow hash and is
   * answered as an unknown or enabled user's is: with one check per request, the answers (ten
   * 401s, then 429s) and their time told a disabled user apart.
   */
  @Test
  void a_disabled_user_s_requests_sent_at_once_share_one_check_as_anyone_s() throws Exception {
    commandLine.setEnabled(EMAIL, false);
    for (String email : List.of(EMAIL, "nobody@acme.example")) {
      hasher.verifications.set(0);
      hasher.gate = new CountDownLatch(1);
      List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
      ExecutorService pool = poolKeeping(12, threads);
      try {
        List<Future<Class<?>>> answers = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
          answers.add(pool.submit(() -> outcome(() -> service.authenticate(email, PASSWORD))));
        }
        awaitAllWaiting(threads, 12, "all twelve requests under way");
        hasher.gate.countDown();
        for (Future<Class<?>> answer : answers) {
          assertThat(answer.get(10, TimeUnit.SECONDS)).as(email).isEqualTo(DomainException.Unauthenticated.class);
        }
      } finally {
        hasher.gate.countDown();
        pool.shutdownNow();
      }
      assertThat(hasher.verifications.get()).as(email).isEqualTo(1);
      assertThatThrownBy(() -> service.authenticate(email, "another password")).as(email)
          .isInstanceOf(DomainException.Unauthenticated.class);
    }
  }

  /** A disabled user's right password takes its guess like a wrong one: giving it back would tell it. */
  @Test
  void a_disabled_user_s_right_password_takes_a_guess_like_a_wrong_one() {
    commandLine.setEnabled(EMAIL, false);
    assertThatThrownBy(() -> service.authenticate(EMAIL, PASSWORD)).isInstanceOf(DomainException.Unauthenticated.class);
    for (int i = 1; i < SignInLimits.GUESSES; i++) {
      String guess = "wrong guess " + i;
      assertThatThrownBy(() -> service.authenticate(EMAIL, guess)).isInstanceOf(DomainException.Unauthenticated.class);
    }
    assertThatThrownBy(() -> service.authenticate(EMAIL, "one guess too many"))
        .isInstanceOf(DomainException.TooManyRequests.class);
  }

  /**
   * An unknown address is read from the database no more often than a known one: read on each
   * request, its answers took a round trip more where no slow hash hides it.
   */
  @Test
  void an_unknown_address_is_looked_up_no_more_often_than_a_known_one() {
    for (String email : List.of(EMAIL, "nobody@acme.example")) {
      int before = database.lookups.get();
      for (int i = 0; i < 5; i++) {
        assertThatThrownBy(() -> service.authenticate(email, "the same wrong password")).as(email)
            .isInstanceOf(DomainException.Unauthenticated.class);
      }
      assertThat(database.lookups.get() - before).as(email).isEqualTo(1);
    }
    service.create(MERCHANT, "nobody@acme.example", PASSWORD, EnumSet.of(Permission.SHOP_EDIT));
    assertThat(service.authenticate("nobody@acme.example", PASSWORD).email())
        .as("created by this process: known at once").isEqualTo("nobody@acme.example");
    commandLine.create(MERCHANT, "later@acme.example", PASSWORD, EnumSet.of(Permission.SHOP_EDIT));
    clock.advance(MerchantUserService.CHANGES_SEEN_WITHIN);
    assertThat(service.authenticate("later@acme.example", PASSWORD).email())
        .as("created by another: known within the bound").isEqualTo("later@acme.example");
  }

  /** Waits until {@code count} threads have started and all of them wait (on a lock, a latch or a timed wait). */
  private static void awaitAllWaiting(List<Thread> threads, int count, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (threads.size() < count || !threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING
        || t.getState() == Thread.State.TIMED_WAITING)) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  /** A pool of {@code size} threads, each added to {@code threads} as it starts, to watch them wait. */
  private static ExecutorService poolKeeping(int size, List<Thread> threads) {
    return Executors.newFixedThreadPool(size, r -> {
      Thread t = new Thread(r);
      threads.add(t);
      return t;
    });
  }

  private MerchantUserService withLimits(SignInLimits limits) {
    ShopRepository merchants = mock(ShopRepository.class);
    when(merchants.merchantExists(MERCHANT)).thenReturn(true);
    return new MerchantUserService(database, merchants, mock(ReferenceData.class), hasher, new SecretBox(new byte[32]),
        clock, clock::elapsed, limits);
  }

  private boolean service2User(String email) {
    commandLine.create(MERCHANT, email, PASSWORD, EnumSet.of(Permission.SHOP_EDIT));
    return service.authenticate(email, PASSWORD).email().equals(email);
  }

  /** The kind of error an attempt ended in, or the user's class when it signed in. */
  private static Class<?> outcome(java.util.function.Supplier<MerchantUser> attempt) {
    try {
      return attempt.get().getClass();
    } catch (DomainException e) {
      return e.getClass();
    }
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
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostAtOnce = new AtomicInteger();
    volatile CountDownLatch gate = new CountDownLatch(0);
    final AtomicInteger hashes = new AtomicInteger();
    final AtomicInteger hashing = new AtomicInteger();
    final AtomicInteger mostHashingAtOnce = new AtomicInteger();
    volatile CountDownLatch hashGate = new CountDownLatch(0);

    @Override
    public String hash(String password) {
      hashes.incrementAndGet();
      mostHashingAtOnce.accumulateAndGet(hashing.incrementAndGet(), Math::max);
      try {
        hashGate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        hashing.decrementAndGet();
      }
      return "hash:" + password + ":" + System.nanoTime();
    }

    @Override
    public boolean verify(String password, String hash) {
      verifications.incrementAndGet();
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        running.decrementAndGet();
      }
      return hash.startsWith("hash:" + password + ":");
    }
  }

  static final class InMemoryUsers implements UserRepository {
    private final Map<String, StoredUser> rows = new java.util.concurrent.ConcurrentHashMap<>();
    final AtomicInteger lookups = new AtomicInteger();

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
      lookups.incrementAndGet();
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
