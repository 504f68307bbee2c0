package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.user.Permission;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An operator takes a merchant user's access away with the command line while the server runs
 * on the same database: the merchant API refuses the user within the five seconds the README
 * promises for command-line changes, although a signed-in user's password check is remembered
 * for longer.
 */
class MerchantUserRevocationTest {

  /** The README's bound, and a little for a poll under load. */
  static final Duration WITHIN = Duration.ofSeconds(5).plusMillis(500);

  static TestGateway gw;
  static Map<String, String> env;
  static long bins;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    env = gw.commandLineEnvironment();
    bins = gw.app.services().groups().create(gw.merchant, GroupKind.BIN, "Revocation BINs", false).id();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static CommandLineRun tollgate(String... args) {
    return CommandLineRun.of(env, args);
  }

  private static CommandLineRun succeeds(String... args) {
    CommandLineRun r = tollgate(args);
    assertThat(r.exit()).as(r.err()).isZero();
    return r;
  }

  /** Asks until the answer has the status, and says how long that took; fails after {@link #WITHIN}. */
  private static Duration untilStatus(int status, Supplier<TestGateway.Answer> request) throws InterruptedException {
    long start = System.nanoTime();
    TestGateway.Answer last;
    do {
      last = request.get();
      if (last.status() == status) {
        return Duration.ofNanos(System.nanoTime() - start);
      }
      Thread.sleep(100);
    } while (System.nanoTime() - start < WITHIN.toNanos());
    throw new AssertionError("still " + last + " after " + WITHIN);
  }

  private static TestGateway.Answer addBin(String[] user, String bin) {
    return gw.merchantPost("/merchant-api/v1/bin-groups/" + bins + "/bins", "{\"bins\":[\"" + bin + "\"]}", user);
  }

  @Test
  void a_user_disabled_with_the_command_line_is_refused_within_five_seconds_and_enabled_again() throws Exception {
    String[] user = gw.merchantUser(gw.merchant, "leaver@revocation.example", Permission.SHOP_EDIT);
    assertThat(gw.merchantGet("/merchant-api/v1/shops", user).status()).isEqualTo(200);

    assertThat(succeeds("user", "disable", "--email", "Leaver@Revocation.example").out())
        .contains("user leaver@revocation.example disabled");
    untilStatus(401, () -> gw.merchantGet("/merchant-api/v1/shops", user));
    TestGateway.Answer refused = addBin(user, "411111");
    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.json().get("message").asText()).isEqualTo("Bad credentials");

    succeeds("user", "enable", "--email", "leaver@revocation.example");
    untilStatus(200, () -> gw.merchantGet("/merchant-api/v1/shops", user));
  }

  @Test
  void permissions_taken_away_with_the_command_line_give_403_within_five_seconds() throws Exception {
    String[] user = gw.merchantUser(gw.merchant, "editor@revocation.example", Permission.SHOP_EDIT,
        Permission.SHOP_GROUP_VIEW);
    assertThat(addBin(user, "422222").status()).isEqualTo(201);

    assertThat(succeeds("user", "set-permissions", "--email", "editor@revocation.example", "--permissions",
        "SHOP_GROUP_VIEW").out()).contains("now has permissions [SHOP_GROUP_VIEW]");
    untilStatus(403, () -> addBin(user, "433333"));
    assertThat(gw.merchantGet("/merchant-api/v1/shops", user).status()).as("still signed in").isEqualTo(200);

    assertThat(succeeds("user", "set-permissions", "--email", "editor@revocation.example", "--permissions", "")
        .out()).contains("(none)");
    succeeds("user", "set-permissions", "--email", "editor@revocation.example", "--permissions", "SHOP_EDIT");
    untilStatus(201, () -> addBin(user, "444444"));
  }

  @Test
  void a_password_reset_with_the_command_line_retires_the_old_password_within_five_seconds() throws Exception {
    String[] user = gw.merchantUser(gw.merchant, "forgetful@revocation.example");
    assertThat(gw.merchantGet("/merchant-api/v1/shops", user).status()).isEqualTo(200);

    CommandLineRun reset = succeeds("user", "reset-password", "--email", "forgetful@revocation.example");
    String fresh = reset.out().replaceAll("(?s).*Password: (\\S+).*", "$1");
    assertThat(fresh).hasSize(20);
    untilStatus(401, () -> gw.merchantGet("/merchant-api/v1/shops", user));
    assertThat(gw.merchantGet("/merchant-api/v1/shops", new String[] {user[0], fresh}).status()).isEqualTo(200);

    succeeds("user", "reset-password", "--email", "forgetful@revocation.example", "--password", "chosen-by-ops-1");
    untilStatus(200, () -> gw.merchantGet("/merchant-api/v1/shops", new String[] {user[0], "chosen-by-ops-1"}));
  }

  @Test
  void a_change_made_by_the_servers_own_process_counts_on_the_next_request() {
    String[] user = gw.merchantUser(gw.merchant, "instant@revocation.example", Permission.SHOP_EDIT);
    assertThat(addBin(user, "455555").status()).isEqualTo(201);

    gw.app.services().users().setPermissions(user[0], java.util.Set.of());
    assertThat(addBin(user, "466666").status()).isEqualTo(403);
    gw.app.services().users().setEnabled(user[0], false);
    assertThat(gw.merchantGet("/merchant-api/v1/shops", user).status()).isEqualTo(401);
  }

  @Test
  void the_commands_refuse_an_unknown_user_a_bad_permission_and_a_short_password() {
    CommandLineRun unknown = tollgate("user", "disable", "--email", "nobody@revocation.example");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("No merchant user has the e-mail address nobody@revocation.example");
    gw.merchantUser(gw.merchant, "careful@revocation.example");
    CommandLineRun badPermission = tollgate("user", "set-permissions", "--email", "careful@revocation.example",
        "--permissions", "GOD_MODE");
    assertThat(badPermission.exit()).isNotZero();
    assertThat(badPermission.err()).contains("GOD_MODE");
    CommandLineRun shortPassword = tollgate("user", "reset-password", "--email", "careful@revocation.example",
        "--password", "short");
    assertThat(shortPassword.exit()).isEqualTo(1);
    assertThat(shortPassword.err()).contains("password: must be 12 characters");
  }
}
