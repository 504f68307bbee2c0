package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operator provisions merchants, shops and keys without SQL, and the keys work. */
class CommandLineTest {

  static Database db;
  static Map<String, String> env;

  @BeforeAll
  static void start() throws Exception {
    db = TestDatabase.fresh();
    env = TestGateway.environment(db, "tollgate-cli");
    // the key of the server to come: no server has started on the database
    env.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  private static CommandLineRun run(String... args) {
    return CommandLineRun.of(env, args);
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as("%s in %s", regex, text).isTrue();
    return m.group(1);
  }

  /**
   * The password of a shop's webhook receiver is a secret the operator gave once: the lists and
   * answers of the command line show the URL without it, as the merchant API and the delivery log
   * do; and a list of an unknown merchant, or a key for an unknown environment, is an error that
   * says which option is wrong.
   */
  @Test
  void the_shop_commands_never_print_the_webhook_password_and_refuse_what_does_not_exist() {
    String merchantId = group(run("merchant", "create", "--name", "Hooked").out(), "merchant (\\d+) created");
    CommandLineRun shop = run("shop", "create", "--merchant", merchantId, "--name", "Hooked Web",
        "--webhook-url", "https://hooks:S3cretPw@hooked.example/in");
    assertThat(shop.exit()).as(shop.err()).isZero();
    String shopId = group(shop.out(), "shop (\\d+) created");
    CommandLineRun listed = run("shop", "list", "--merchant", merchantId);
    CommandLineRun updated = run("shop", "update", "--shop", shopId, "--requires-approval", "true");
    assertThat(updated.exit()).as(updated.err()).isZero();
    for (CommandLineRun r : java.util.List.of(shop, listed, updated)) {
      assertThat(r.out() + r.err()).doesNotContain("S3cretPw");
    }
    assertThat(listed.out()).contains("webhook=https://hooks:***@hooked.example/in");
    assertThat(updated.out()).contains("webhook URL https://hooks:***@hooked.example/in");

    CommandLineRun unknown = run("shop", "list", "--merchant", "987654321");
    assertThat(unknown.exit()).isNotZero();
    assertThat(unknown.err()).contains("merchant").contains("does not exist");
    CommandLineRun bogus = run("key", "issue", "--shop", shopId, "--environment", "bogus");
    assertThat(bogus.exit()).isEqualTo(2);
    assertThat(bogus.err()).contains("--environment: sandbox or production").doesNotContain("enum");
  }

  @Test
  void provisions_a_merchant_shop_and_keys_that_the_api_accepts() throws Exception {
    CommandLineRun merchant = run("merchant", "create", "--name", "Acme");
    assertThat(merchant.exit()).as(merchant.err()).isZero();
    String merchantId = group(merchant.out(), "merchant (\\d+) created");

    CommandLineRun shop = run("shop", "create", "--merchant", merchantId, "--name", "Acme Web",
        "--webhook-url", "https://acme.example/hooks", "--requires-approval", "--checkout-timeout", "PT15M");
    assertThat(shop.exit()).as(shop.err()).isZero();
    String shopId = group(shop.out(), "shop (\\d+) created");

    CommandLineRun listed = run("shop", "list", "--merchant", merchantId);
    assertThat(listed.out()).contains(shopId + "\tAcme Web\twebhook=https://acme.example/hooks");

    CommandLineRun keys = run("key", "issue", "--shop", shopId);
    assertThat(keys.exit()).as(keys.err()).isZero();
    String apiKey = group(keys.out(), "API key:\\s+(\\S+)");
    assertThat(group(keys.out(), "Signing key:\\s+(\\S+)")).startsWith("whsec_");

    try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
      var response = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(app.baseUri() + "/api/v1/payments"))
              .header("Authorization", "Bearer " + apiKey).GET().build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
    }
    String stored = db.jdbi().withHandle(h -> h.createQuery("select string_agg(api_key_hash, ',') from shop_keys")
        .mapTo(String.class).one());
    assertThat(stored).doesNotContain(apiKey);
  }

  /**
   * {@code shop update} takes {@code --requires-approval true}, and the README's {@code
   * --check-withdrawal-balance true}, but {@code shop create} took them as flags without a value
   * and refused the {@code true} as an unmatched argument. Both commands take a value now; create
   * still takes the flag alone.
   */
  @Test
  void shop_create_takes_its_withdrawal_settings_with_a_value_as_update_does() {
    String merchantId = group(run("merchant", "create", "--name", "Payouts").out(), "merchant (\\d+) created");
    CommandLineRun valued = run("shop", "create", "--merchant", merchantId, "--name", "Checked",
        "--check-withdrawal-balance", "true", "--requires-approval", "false");
    assertThat(valued.exit()).as(valued.err()).isZero();
    CommandLineRun bare = run("shop", "create", "--merchant", merchantId, "--name", "Approved",
        "--requires-approval", "--check-withdrawal-balance");
    assertThat(bare.exit()).as(bare.err()).isZero();
    CommandLineRun off = run("shop", "create", "--merchant", merchantId, "--name", "Unchecked",
        "--check-withdrawal-balance", "false");
    assertThat(off.exit()).as(off.err()).isZero();
    assertThat(withdrawalSettings(group(valued.out(), "shop (\\d+) created"))).isEqualTo("true,false");
    assertThat(withdrawalSettings(group(bare.out(), "shop (\\d+) created"))).isEqualTo("true,true");
    assertThat(withdrawalSettings(group(off.out(), "shop (\\d+) created"))).isEqualTo("false,false");
  }

  /** A shop's check-withdrawal-balance and requires-approval settings, as stored: "true,false". */
  private static String withdrawalSettings(String shopId) {
    return db.jdbi().withHandle(h -> h.createQuery(
        "select check_withdrawal_balance || ',' || requires_approval from shops where id = " + shopId)
        .mapTo(String.class).one());
  }

  @Test
  void refuses_a_shop_for_an_unknown_merchant_with_a_clear_message() {
    CommandLineRun r = run("shop", "create", "--merchant", "999999", "--name", "Nobody's");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("Merchant 999999 not found");
  }

  /** The checkout sends customers to the shop's returnUrl: a value that is not a URL was a 500 there. */
  @Test
  void refuses_a_shop_whose_urls_or_timeout_cannot_work() {
    String merchantId = group(run("merchant", "create", "--name", "Careless").out(), "merchant (\\d+) created");
    CommandLineRun r = run("shop", "create", "--merchant", merchantId, "--name", "Broken", "--return-url", "shop.example/back",
        "--webhook-url", "ftp://shop.example/h", "--checkout-timeout", "-PT5M");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("returnUrl").contains("webhookUrl").contains("checkoutTimeout")
        .doesNotContain("Exception").doesNotContain("SQL");
  }

  /**
   * A checkout timeout the shop cannot keep as given is refused, naming the setting, and
   * changes nothing. Before, a part of a second was dropped (PT90.5S kept as 90 s), one under a
   * second passed the checks to be refused by the database ("the database refused the change"),
   * and one of years wrapped around (P49711D, meant as never, cancelled checkouts 1.04 after
   * about 17 hours).
   */
  @Test
  void a_checkout_timeout_not_in_whole_seconds_from_a_second_to_a_day_is_refused() {
    String merchantId = group(run("merchant", "create", "--name", "Patient").out(), "merchant (\\d+) created");
    for (String timeout : List.of("PT0.5S", "PT90.5S", "P49711D", "PT24H0.001S")) {
      CommandLineRun created = run("shop", "create", "--merchant", merchantId, "--name", "Patient " + timeout,
          "--checkout-timeout", timeout);
      assertThat(created.exit()).as(timeout).isEqualTo(1);
      assertThat(created.err()).as(timeout).contains("checkoutTimeout").doesNotContain("database");
    }
    String shopId = group(run("shop", "create", "--merchant", merchantId, "--name", "Patient a day",
        "--checkout-timeout", "P1D").out(), "shop (\\d+) created");
    java.util.function.Supplier<Integer> seconds = () -> db.jdbi().withHandle(h -> h.createQuery(
        "select checkout_timeout_seconds from shops where id = :id").bind("id", Long.parseLong(shopId))
        .mapTo(Integer.class).one());
    assertThat(seconds.get()).isEqualTo(86_400);

    CommandLineRun refused = run("shop", "update", "--shop", shopId, "--checkout-timeout", "PT90.5S");
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err()).contains("checkoutTimeout");
    assertThat(seconds.get()).as("nothing changed").isEqualTo(86_400);
    assertThat(run("shop", "update", "--shop", shopId, "--checkout-timeout", "PT1S").exit()).isZero();
    assertThat(seconds.get()).isEqualTo(1);
  }

  /**
   * A run from another directory (no TOLLGATE_MASTER_KEY, so a new sandbox key of its own) would
   * seal a shop's new signing key under a key the service does not have: it is refused.
   */
  @Test
  void a_run_with_another_master_key_is_refused_before_it_seals_anything() throws Exception {
    String merchantId = group(run("merchant", "create", "--name", "Keyed").out(), "merchant (\\d+) created");
    Map<String, String> elsewhere = new HashMap<>(env);
    elsewhere.remove("TOLLGATE_MASTER_KEY");
    elsewhere.put("TOLLGATE_DATA_DIR", ScratchDirectories.create("tollgate-cli-elsewhere").toString());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new String[] {"shop", "create", "--merchant", merchantId, "--name", "Sealed elsewhere"},
        new PrintWriter(out, true), new PrintWriter(err, true), elsewhere);
    assertThat(exit).isNotZero();
    assertThat(err.toString()).startsWith("error: ").contains("sealed with another master key").doesNotContain("\tat ");
    assertThat(run("shop", "create", "--merchant", merchantId, "--name", "Sealed here").exit()).isZero();
  }

  /**
   * A command on a new database, before its server first started, run without TOLLGATE_MASTER_KEY
   * ({@code docker run --rm -e TOLLGATE_DB_URL=... tollgate merchant create}) sealed the database's
   * secrets under a key it made in its own data directory, and the server started next with its
   * own key was refused: "sealed with another master key". Such a run is refused and writes
   * nothing, neither in the database nor in the data directory; given the server's key, the
   * commands provision the database and the server starts on it.
   */
  @Test
  void a_command_on_a_new_database_without_the_master_key_is_refused_and_writes_nothing() throws Exception {
    try (Database fresh = TestDatabase.fresh()) {
      Map<String, String> keyless = TestGateway.environment(fresh, "tollgate-cli-keyless");
      for (String[] args : List.of(new String[] {"merchant", "create", "--name", "Acme"},
          new String[] {"master-key", "rotate"}, new String[] {"master-key", "list"})) {
        CommandLineRun refused = CommandLineRun.of(keyless, args);
        assertOneErrorLine(refused, "set TOLLGATE_MASTER_KEY to the key", "or start the server first");
        assertThat(refused.out()).isEmpty();
      }
      long written = fresh.jdbi().withHandle(h -> h.createQuery(
          "SELECT (SELECT count(*) FROM master_key_ring) + (SELECT count(*) FROM merchants)").mapTo(Long.class).one());
      assertThat(written).as("no key ring, no merchant").isZero();
      assertThat(Path.of(keyless.get("TOLLGATE_DATA_DIR")).resolve("master.key")).doesNotExist();

      Map<String, String> production = new HashMap<>(keyless);
      production.put("TOLLGATE_ENVIRONMENT", "production");
      production.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
      production.put("TOLLGATE_PUBLIC_URL", "https://pay.example.com");
      CommandLineRun provisioned = CommandLineRun.of(production, "merchant", "create", "--name", "Acme");
      assertThat(provisioned.exit()).as(provisioned.err()).isZero();
      try (Tollgate server = Tollgate.start(TollgateConfig.from(production), fresh)) {
        assertThat(server.services().persistence().shops().merchantExists(new io.tollgate.domain.shop.MerchantId(
            Long.parseLong(group(provisioned.out(), "merchant (\\d+) created"))))).isTrue();
      }
    }
  }

  /** Runs {@code args} with {@code changes} to the test settings; a null value removes the setting. */
  private static CommandLineRun runWith(Map<String, String> changes, String... args) {
    Map<String, String> changed = new HashMap<>(env);
    changes.forEach((name, value) -> {
      if (value == null) {
        changed.remove(name);
      } else {
        changed.put(name, value);
      }
    });
    return CommandLineRun.of(changed, args);
  }

  /** One {@code error:} line that names the problem, exit status 1, and no stack trace unless asked for. */
  private static void assertOneErrorLine(CommandLineRun r, String... says) {
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).as("one line").startsWith("error: ").doesNotContain("\tat ").contains(says);
    assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
  }

  /** A port taken or a host that does not resolve was a Java stack trace (found in review). */
  @Test
  void a_server_that_cannot_listen_says_why_in_one_line() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Map<String, String> onTakenPort = Map.of("TOLLGATE_PORT", String.valueOf(taken.getLocalPort()));
      assertOneErrorLine(runWith(onTakenPort, "serve"), "TOLLGATE_PORT", "Failed to bind to /127.0.0.1:"
          + taken.getLocalPort(), "Address already in use");

      Map<String, String> debugging = new HashMap<>(onTakenPort);
      debugging.put("TOLLGATE_DEBUG", "1");
      CommandLineRun traced = runWith(debugging, "serve");
      assertThat(traced.exit()).isEqualTo(1);
      assertThat(traced.err()).as("TOLLGATE_DEBUG=1 shows the trace").startsWith("error: ").contains("\tat ");
    }
    assertOneErrorLine(runWith(Map.of("TOLLGATE_HOST", "no-such-host.invalid"), "serve"), "no-such-host.invalid",
        "unresolved address");
  }

  /** A database that cannot be had was a stack trace; the driver's own message is what tells the operator why. */
  @Test
  void a_database_that_cannot_be_reached_is_named_in_one_line() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      closed = socket.getLocalPort();
    }
    long started = System.nanoTime();
    CommandLineRun unreachable = runWith(Map.of("TOLLGATE_DB_URL", "jdbc:postgresql://127.0.0.1:" + closed + "/tollgate"),
        "merchant", "create", "--name", "Unreachable");
    // the operator is told within seconds, not after the 30 s a starting service waits for its database
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - started)).isLessThan(java.time.Duration.ofSeconds(20));
    assertOneErrorLine(unreachable, "TOLLGATE_DB_URL", "Connection to 127.0.0.1:" + closed + " refused");
    assertOneErrorLine(runWith(Map.of("TOLLGATE_DB_URL", "postgres://db.example/tollgate?password=hunter2"),
        "merchant", "create", "--name", "Not JDBC"),
        "Failed to get driver instance for jdbcUrl=postgres://db.example/tollgate?password=***: No suitable driver");
    assertOneErrorLine(runWith(Map.of("TOLLGATE_DB_URL", "postgres://ops:hunter2@db.example/tollgate"),
        "merchant", "create", "--name", "Not JDBC either"),
        "Failed to get driver instance for jdbcUrl=postgres://ops:***@db.example/tollgate: No suitable driver");
  }

  /**
   * TOLLGATE_DEBUG=1 printed the stack trace as it was, with the database password that the
   * {@code error:} line above it hides in Hikari's message: a trace sent to the developers with a
   * report carried it.
   */
  @Test
  void the_stack_trace_asked_for_hides_the_database_password_as_the_error_line_does() {
    Map<String, String> debugging = new HashMap<>();
    debugging.put("TOLLGATE_DB_URL", "postgres://tollgate:S3cretPw@db/tollgate");
    debugging.put("TOLLGATE_DEBUG", "1");
    CommandLineRun traced = runWith(debugging, "merchant", "create", "--name", "Traced");
    assertThat(traced.exit()).isEqualTo(1);
    assertThat(traced.err()).startsWith("error: ").contains("\tat ")
        .contains("java.lang.RuntimeException: Failed to get driver instance for jdbcUrl=postgres://tollgate:***@db/")
        .doesNotContain("S3cretPw");
  }

  /**
   * A failure no check above names, a programming error, was handed back to picocli, which printed
   * its stack trace as it was: a card number or a database password in a message reached the
   * console and the container log, which mask both. Its trace is still printed, masked, and the
   * exit code is still 1.
   */
  @Test
  void an_unexpected_failure_prints_its_trace_masked() {
    // a setting that cannot be read, for a failure nothing above names
    Map<String, String> failing = new HashMap<>(env) {
      @Override
      public String get(Object name) {
        if ("TOLLGATE_DB_URL".equals(name)) {
          throw new RuntimeException("no terminal answers card 4111111111111111",
              new IllegalStateException("jdbc:postgresql://db/tollgate?user=ops&password=S3cretPw"));
        }
        return super.get(name);
      }
    };
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new String[] {"merchant", "create", "--name", "Unexpected"}, new PrintWriter(out, true),
        new PrintWriter(err, true), failing);
    assertThat(exit).isEqualTo(1);
    assertThat(err.toString()).contains("java.lang.RuntimeException: no terminal answers card 411111******1111")
        .contains("\tat ").contains("Caused by: java.lang.IllegalStateException: jdbc:postgresql://db/tollgate")
        .doesNotContain("4111111111111111").doesNotContain("S3cretPw");
  }

  /** A data directory that cannot be used, or that a running server holds, was a stack trace with the reason buried in it. */
  @Test
  void a_data_directory_that_cannot_be_used_or_is_in_use_is_named_in_one_line() throws Exception {
    Path file = Files.createFile(ScratchDirectories.create("tollgate-cli-file").resolve("not-a-directory"));
    Map<String, String> onFile = new HashMap<>();
    onFile.put("TOLLGATE_DB_URL", null);
    onFile.put("TOLLGATE_DATA_DIR", file.toString());
    assertOneErrorLine(runWith(onFile, "merchant", "create", "--name", "Filed"),
        "error: cannot lock the embedded database's directory " + file.resolve("postgres") + ": " + file
            + ": file already exists");

    Path dataDir = ScratchDirectories.create("tollgate-cli-held");
    Map<String, String> held = new HashMap<>();
    held.put("TOLLGATE_DB_URL", null);
    held.put("TOLLGATE_DATA_DIR", dataDir.toString());
    // the lock a running server keeps on its embedded database
    try (FileChannel channel = FileChannel.open(dataDir.resolve("postgres.lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
      assertOneErrorLine(runWith(held, "merchant", "create", "--name", "Held"), "in use by another Tollgate process");
    }
  }

  /**
   * A command run from a newer release's jar migrated the database it was pointed at, under the
   * older release's instances still running on it, which the upgrade notes forbid. It now leaves a
   * database in use as it is, with one line that names its version, this release's, and what
   * upgrades it: the service, started once the older instances are stopped. A new database, which
   * no server has started on yet, is still made ready by the command that provisions it.
   */
  @Test
  void a_command_upgrades_no_database_in_use_and_the_service_does() throws Exception {
    String inUse = TestDatabase.empty();
    Flyway.configure().dataSource(inUse, TestDatabase.user(), TestDatabase.password())
        .locations("classpath:db/migration").target("46").load().migrate();
    Map<String, String> older = new HashMap<>(env);
    older.put("TOLLGATE_DB_URL", inUse);
    older.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
    String history = migrationHistory(inUse);

    CommandLineRun refused = CommandLineRun.of(older, "user", "list", "--merchant", "2");

    assertOneErrorLine(refused, "at version 46", "stop", "start this release's service");
    assertThat(migrationHistory(inUse)).as("nothing migrated").isEqualTo(history);
    try (Tollgate service = Tollgate.start(TollgateConfig.from(older))) {
      assertThat(migrationHistory(inUse)).as("the service upgrades it").isNotEqualTo(history);
    }
    String latest = migrationHistory(inUse).replaceAll(".*,", "");
    assertThat(refused.err()).contains("needs version " + latest);
    CommandLineRun upgraded = CommandLineRun.of(older, "merchant", "create", "--name", "Upgraded");
    assertThat(upgraded.exit()).as(upgraded.err()).isZero();

    Map<String, String> provisioned = new HashMap<>(older);
    provisioned.put("TOLLGATE_DB_URL", TestDatabase.empty());
    CommandLineRun created = CommandLineRun.of(provisioned, "merchant", "create", "--name", "New");
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(migrationHistory(provisioned.get("TOLLGATE_DB_URL"))).endsWith("," + latest);
  }

  /** The versions of the migrations applied to the database at {@code url}, in the order they were, comma-separated. */
  private static String migrationHistory(String url) throws java.sql.SQLException {
    try (var c = java.sql.DriverManager.getConnection(url, TestDatabase.user(), TestDatabase.password());
        var s = c.createStatement();
        var r = s.executeQuery("SELECT string_agg(version, ',' ORDER BY installed_rank) FROM flyway_schema_history")) {
      r.next();
      return r.getString(1);
    }
  }

  @Test
  void a_programming_error_keeps_its_stack_trace() {
    assertThat(Main.operatorProblem(new NullPointerException("a bug"))).isNull();
    assertThat(Main.operatorProblem(new IllegalStateException("cannot write a JSON column", new RuntimeException())))
        .isNull();
    assertThat(Main.operatorProblem(catchThrowable(() -> Stream.of("a", "a").collect(Collectors.toMap(k -> k, v -> v)))))
        .as("the JDK's IllegalStateException").isNull();
  }

  /** -V said a hard-coded 0.1.0 while the webhooks' User-Agent gave the jar's version (found in review). */
  @Test
  void the_version_shown_is_the_one_webhooks_give() {
    CommandLineRun version = run("-V");
    assertThat(version.exit()).isZero();
    assertThat(version.out().strip()).isEqualTo("Tollgate " + Tollgate.VERSION);
  }

  @Test
  void a_missing_option_prints_usage() {
    CommandLineRun r = run("shop", "create", "--name", "x");
    assertThat(r.exit()).isNotZero();
    assertThat(r.err()).contains("--merchant");
  }

  @Test
  void provisions_merchant_users_and_groups_that_the_merchant_api_serves() throws Exception {
    String merchantId = group(run("merchant", "create", "--name", "Groupie").out(), "merchant (\\d+) created");
    CommandLineRun user = run("user", "create", "--merchant", merchantId, "--email", "Ops@Groupie.example",
        "--permissions", "SHOP_EDIT,SHOP_GROUP_VIEW");
    assertThat(user.exit()).as(user.err()).isZero();
    String password = group(user.out(), "Password: (\\S+)");
    assertThat(user.out()).contains("ops@groupie.example");
    CommandLineRun bins = run("group", "create", "--merchant", merchantId, "--type", "BIN", "--name", "BIN blacklist");
    assertThat(bins.exit()).as(bins.err()).isZero();
    String groupId = group(bins.out(), "bin group (\\d+) created");

    CommandLineRun badPermission = run("user", "create", "--merchant", merchantId, "--email", "x@groupie.example",
        "--permissions", "GOD_MODE");
    assertThat(badPermission.exit()).isNotZero();
    assertThat(badPermission.err()).contains("GOD_MODE");
    CommandLineRun taken = run("user", "create", "--merchant", merchantId, "--email", "ops@groupie.example");
    assertThat(taken.exit()).isNotZero();

    try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
      String auth = "Basic " + java.util.Base64.getEncoder().encodeToString(
          ("ops@groupie.example:" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      var response = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(app.baseUri() + "/merchant-api/v1/bin-groups"))
              .header("Authorization", auth).GET().build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("\"id\":" + groupId).contains("\"groupName\":\"BIN blacklist\"");
    }
  }

  /**
   * A password given on the command line sits in the process list for every local user to read
   * (found in the merchant API review): given without a value, it is read from the terminal or a
   * pipe instead, and works.
   */
  @Test
  void a_password_is_read_from_a_pipe_rather_than_the_command_line() throws Exception {
    String merchantId = group(run("merchant", "create", "--name", "Piped").out(), "merchant (\\d+) created");
    java.io.InputStream stdin = System.in;
    CommandLineRun created;
    try {
      System.setIn(new java.io.ByteArrayInputStream("a piped passphrase 42\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      created = run("user", "create", "--merchant", merchantId, "--email", "piped@example.com", "--password");
    } finally {
      System.setIn(stdin);
    }
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(created.out()).doesNotContain("a piped passphrase 42");
    try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
      for (String[] attempt : List.of(new String[] {"a piped passphrase 42", "200"}, new String[] {"--password", "401"})) {
        String auth = "Basic " + java.util.Base64.getEncoder().encodeToString(
            ("piped@example.com:" + attempt[0]).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        var response = java.net.http.HttpClient.newHttpClient().send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(app.baseUri() + "/merchant-api/v1/shops"))
                .header("Authorization", auth).GET().build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(attempt[0]).isEqualTo(Integer.parseInt(attempt[1]));
      }
    }
  }

  /** A name already taken by a group of the other sort of card numbers was answered with that group. */
  @Test
  void a_card_group_of_a_taken_name_and_the_other_masking_is_refused() {
    String merchantId = group(run("merchant", "create", "--name", "Masker").out(), "merchant (\\d+) created");
    String plain = group(run("group", "create", "--merchant", merchantId, "--type", "CARD", "--name", "Stolen").out(),
        "card group (\\d+) created");
    String again = run("group", "create", "--merchant", merchantId, "--type", "CARD", "--name", "Stolen").out();
    assertThat(group(again, "card group (\\d+) created")).as("the same group again").isEqualTo(plain);
    assertThat(again).as("it does not claim to have made a new one").contains("(or already there by that name)");

    CommandLineRun masked = run("group", "create", "--merchant", merchantId, "--type", "CARD", "--name", "Stolen", "--masked");
    assertThat(masked.exit()).isEqualTo(1);
    assertThat(masked.err()).contains("Card group " + plain + " is named 'Stolen' already and holds full card numbers");
    assertThat(masked.out()).doesNotContain("created");
    Boolean stored = db.jdbi().withHandle(h -> h.createQuery("select masked from entry_groups where id = " + plain)
        .mapTo(Boolean.class).one());
    assertThat(stored).isFalse();

    String maskedId = group(run("group", "create", "--merchant", merchantId, "--type", "CARD", "--name", "Masked",
        "--masked").out(), "card group (\\d+) created");
    CommandLineRun unmasked = run("group", "create", "--merchant", merchantId, "--type", "CARD", "--name", "Masked");
    assertThat(unmasked.exit()).isEqualTo(1);
    assertThat(unmasked.err()).contains("Card group " + maskedId + " is named 'Masked' already and holds masked card numbers");

    CommandLineRun bins = run("group", "create", "--merchant", merchantId, "--type", "BIN", "--name", "Masked BINs", "--masked");
    assertThat(bins.exit()).isEqualTo(1);
    assertThat(bins.err()).contains("masked: applies to card groups only");
  }

  /** A connector whose range no amount fits declined every payment routed to it with 1.08. */
  @Test
  void a_connector_amount_range_must_be_one_payments_can_fall_in() {
    String merchantId = group(run("merchant", "create", "--name", "Bounded").out(), "merchant (\\d+) created");
    String shopId = group(run("shop", "create", "--merchant", merchantId, "--name", "Bounded shop").out(),
        "shop (\\d+) created");
    String terminalId = group(run("terminal", "create", "--merchant", merchantId, "--name", "Yen acquirer").out(),
        "terminal (\\d+) created");

    CommandLineRun upsideDown = run("connector", "create", "--shop", shopId, "--terminal", terminalId, "--currency", "EUR",
        "--min-amount", "100", "--max-amount", "10");
    assertThat(upsideDown.exit()).isEqualTo(1);
    assertThat(upsideDown.err()).contains("--max-amount: must not be below --min-amount (100)");

    CommandLineRun fractionalYen = run("connector", "create", "--shop", shopId, "--terminal", terminalId, "--currency", "JPY",
        "--min-amount", "-1", "--max-amount", "10.5");
    assertThat(fractionalYen.exit()).isEqualTo(1);
    assertThat(fractionalYen.err()).contains("--min-amount: must not be negative")
        .contains("--max-amount: has more decimals than JPY has (0)");
    Integer connectors = db.jdbi().withHandle(h -> h.createQuery("select count(*) from connectors where shop_id = " + shopId)
        .mapTo(Integer.class).one());
    assertThat(connectors).isZero();

    assertThat(run("connector", "create", "--shop", shopId, "--terminal", terminalId, "--currency", "JPY",
        "--min-amount", "10", "--max-amount", "10.00").exit()).as("one amount, written with zeros").isZero();
  }

  @Test
  void a_terminal_name_is_taken_once_per_merchant_whatever_its_case() {
    String merchantId = group(run("merchant", "create", "--name", "Named").out(), "merchant (\\d+) created");
    String terminalId = group(run("terminal", "create", "--merchant", merchantId, "--name", "Acquirer N").out(),
        "terminal (\\d+) created");

    CommandLineRun again = run("terminal", "create", "--merchant", merchantId, "--name", "ACQUIRER n",
        "--api-types", "DEPOSIT");
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err()).contains("Terminal " + terminalId + " of merchant " + merchantId
        + " is named 'Acquirer N' already");
    assertThat(again.out()).doesNotContain("created");
    Integer terminals = db.jdbi().withHandle(h -> h.createQuery(
        "select count(*) from terminals where merchant_id = " + merchantId).mapTo(Integer.class).one());
    assertThat(terminals).isEqualTo(1);

    String other = group(run("merchant", "create", "--name", "Named too").out(), "merchant (\\d+) created");
    CommandLineRun theirs = run("terminal", "create", "--merchant", other, "--name", "Acquirer N");
    assertThat(theirs.exit()).as("another merchant's name").isZero();
  }

  @Test
  void a_terminal_name_is_1_to_255_characters_and_not_blank() {
    String merchantId = group(run("merchant", "create", "--name", "Long names").out(), "merchant (\\d+) created");
    for (String name : new String[] {"x".repeat(3000), "x".repeat(256), "   "}) {
      CommandLineRun refused = run("terminal", "create", "--merchant", merchantId, "--name", name);
      assertThat(refused.exit()).as(name.length() + " characters").isNotZero();
      assertThat(refused.err()).contains("--name: 1 to 255 characters, not blank");
    }
    assertThat(run("terminal", "create", "--merchant", merchantId, "--name", "x".repeat(255)).exit()).isZero();
    Integer terminals = db.jdbi().withHandle(h -> h.createQuery(
        "select count(*) from terminals where merchant_id = " + merchantId).mapTo(Integer.class).one());
    assertThat(terminals).isEqualTo(1);
  }

  @Test
  void a_terminals_api_types_are_replaced_as_they_are_given_at_creation() {
    String merchantId = group(run("merchant", "create", "--name", "Typed").out(), "merchant (\\d+) created");
    String terminalId = group(run("terminal", "create", "--merchant", merchantId, "--name", "Typed T").out(),
        "terminal (\\d+) created");

    CommandLineRun set = run("terminal", "set-api-types", "--terminal", terminalId, "--api-types", "deposit, REFUND");
    assertThat(set.exit()).as(set.err()).isZero();
    assertThat(set.out()).contains("terminal " + terminalId + " now has API types DEPOSIT,REFUND");
    assertThat(apiTypes(terminalId)).isEqualTo("DEPOSIT,REFUND");

    CommandLineRun unknownType = run("terminal", "set-api-types", "--terminal", terminalId, "--api-types",
        "DEPOSIT,CHARGEBACK");
    assertThat(unknownType.exit()).isNotZero();
    assertThat(unknownType.err()).contains("--api-types: unknown type CHARGEBACK");
    assertThat(run("terminal", "set-api-types", "--terminal", terminalId, "--api-types", "").exit()).isNotZero();
    assertThat(run("terminal", "set-api-types", "--terminal", terminalId).exit()).as("types required").isNotZero();
    assertThat(apiTypes(terminalId)).as("unchanged").isEqualTo("DEPOSIT,REFUND");

    CommandLineRun unknownTerminal = run("terminal", "set-api-types", "--terminal", "999999", "--api-types", "DEPOSIT");
    assertThat(unknownTerminal.exit()).isEqualTo(1);
    assertThat(unknownTerminal.err()).contains("terminal: does not exist");
    assertThat(unknownTerminal.out()).doesNotContain("now has");
  }

  private static String apiTypes(String terminalId) {
    return db.jdbi().withHandle(h -> h.createQuery("select array_to_string(api_types, ',') from terminals where id = "
        + terminalId).mapTo(String.class).one());
  }

  /** The same counterparties imported again are updated, not listed twice (found in the merchant API review). */
  @Test
  void counterparties_imported_again_are_updated_not_repeated() throws Exception {
    String merchantId = group(run("merchant", "create", "--name", "Partnered").out(), "merchant (\\d+) created");
    java.nio.file.Path dir = ScratchDirectories.create("tollgate-counterparties");
    String none = "\"affiliateId\":null,\"affiliateName\":null,\"registrationDate\":null,\"counterpartyTypes\":null";
    java.nio.file.Path first = Files.writeString(dir.resolve("first.json"),
        "[{\"name\":\"Partner Ltd\",\"uniqueCode\":\"U1\"," + none + "},"
            + "{\"name\":\"No Code Ltd\",\"uniqueCode\":null," + none + "}]");
    java.nio.file.Path again = Files.writeString(dir.resolve("again.json"),
        "[{\"name\":\"Partner Limited\",\"uniqueCode\":\"U1\",\"affiliateId\":null,\"affiliateName\":null,"
            + "\"registrationDate\":null,\"counterpartyTypes\":\"PROVIDER\"},"
            + "{\"name\":\"No Code Ltd\",\"uniqueCode\":null,\"affiliateId\":\"A-9\",\"affiliateName\":null,"
            + "\"registrationDate\":null,\"counterpartyTypes\":null}]");
    for (java.nio.file.Path file : List.of(first, again, again)) {
      CommandLineRun imported = run("import", "counterparties", "--file", file.toString(), "--merchant", merchantId);
      assertThat(imported.exit()).as(imported.err()).isZero();
    }
    List<String> rows = db.jdbi().withHandle(h -> h.createQuery("""
            select name || ' ' || coalesce(unique_code, '-') || ' ' || coalesce(affiliate_id, '-') || ' '
                || array_to_string(types, ',') from counterparties where merchant_id = :m order by name
            """).bind("m", Long.parseLong(merchantId)).mapTo(String.class).list());
    assertThat(rows).containsExactly("No Code Ltd - A-9 ", "Partner Limited U1 - PROVIDER");
    java.nio.file.Path emptyCodes = Files.writeString(dir.resolve("empty-codes.json"),
        "[{\"name\":\"Alpha Ltd\",\"uniqueCode\":\"\"," + none + "},"
            + "{\"name\":\"Beta GmbH\",\"uniqueCode\":\" \"," + none + "}]");
    assertThat(run("import", "counterparties", "--file", emptyCodes.toString(), "--merchant", merchantId).exit()).isZero();
    Integer distinct = db.jdbi().withHandle(h -> h.createQuery(
            "select count(*) from counterparties where merchant_id = :m and unique_code is null")
        .bind("m", Long.parseLong(merchantId)).mapTo(Integer.class).one());
    assertThat(distinct).as("an empty code is no code: two counterparties beside No Code Ltd").isEqualTo(3);

    // a row that leaves fields out would empty them: Partner Limited keeps its types
    java.nio.file.Path codeOnly = Files.writeString(dir.resolve("code-only.csv"), "name,uniqueCode\nPartner,U1\n");
    CommandLineRun partial = run("import", "counterparties", "--file", codeOnly.toString(), "--merchant", merchantId);
    assertThat(partial.exit()).isNotZero();
    assertThat(partial.err()).contains("row 1 leaves out affiliateId, affiliateName, registrationDate, "
        + "counterpartyTypes");
    List<String> kept = db.jdbi().withHandle(h -> h.createQuery(
            "select name || ' ' || array_to_string(types, ',') from counterparties where unique_code = 'U1' "
                + "and merchant_id = :m").bind("m", Long.parseLong(merchantId)).mapTo(String.class).list());
    assertThat(kept).containsExactly("Partner Limited PROVIDER");

    CommandLineRun unknownMerchant = run("import", "counterparties", "--file", first.toString(), "--merchant", "999999");
    assertThat(unknownMerchant.exit()).isNotZero();
    assertThat(unknownMerchant.err()).as("one line, no stack trace").contains("error: the database refused the change")
        .doesNotContain("\tat ").doesNotContain("INSERT");
  }

  /**
   * An operator changes a shop's settings, a merchant's new webhook endpoint among them,
   * without SQL (found in the merchant API review); a bad value is refused and changes nothing.
   */
  @Test
  void a_shops_settings_are_changed_from_the_command_line() {
    String merchantId = group(run("merchant", "create", "--name", "Moving").out(), "merchant (\\d+) created");
    String shopId = group(run("shop", "create", "--merchant", merchantId, "--name", "Moving shop").out(),
        "shop (\\d+) created");
    CommandLineRun updated = run("shop", "update", "--shop", shopId, "--webhook-url", "https://hooks.example/tollgate",
        "--checkout-timeout", "PT45M", "--requires-approval", "true");
    assertThat(updated.exit()).as(updated.err()).isZero();
    assertThat(updated.out()).contains("shop " + shopId + " updated").contains("https://hooks.example/tollgate");
    java.util.function.Supplier<String> row = () -> db.jdbi().withHandle(h -> h.createQuery("""
            select coalesce(webhook_url, '-') || ' ' || coalesce(return_url, '-') || ' ' || checkout_timeout_seconds
                || ' ' || requires_approval || ' ' || check_withdrawal_balance from shops where id = :id
            """).bind("id", Long.parseLong(shopId)).mapTo(String.class).one());
    assertThat(row.get()).isEqualTo("https://hooks.example/tollgate - 2700 true false");

    CommandLineRun refused = run("shop", "update", "--shop", shopId, "--webhook-url", "ftp://hooks.example",
        "--checkout-timeout", "PT0S");
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err()).contains("webhookUrl").contains("checkoutTimeout");
    assertThat(row.get()).as("nothing changed").isEqualTo("https://hooks.example/tollgate - 2700 true false");

    assertThat(run("shop", "update", "--shop", shopId, "--webhook-url", "", "--requires-approval", "false").exit())
        .isZero();
    assertThat(row.get()).as("an empty URL removes it; the rest stays").isEqualTo("- - 2700 false false");
    CommandLineRun unknown = run("shop", "update", "--shop", "999999", "--requires-approval", "true");
    assertThat(unknown.exit()).isNotZero();
    assertThat(unknown.err()).contains("Shop 999999 not found");
  }

  /** Bad provisioning input is refused with a line that says why, and changes nothing (found in the merchant API review). */
  @Test
  void a_shop_in_an_unknown_currency_or_a_connector_of_negative_weight_is_refused() {
    String merchantId = group(run("merchant", "create", "--name", "Careful").out(), "merchant (\\d+) created");
    CommandLineRun foo = run("shop", "create", "--merchant", merchantId, "--name", "Foo shop", "--base-currency", "FOO");
    assertThat(foo.exit()).isNotZero();
    assertThat(foo.err()).contains("--base-currency: unknown currency FOO");
    String shopId = group(run("shop", "create", "--merchant", merchantId, "--name", "Euro shop", "--base-currency", "EUR")
        .out(), "shop (\\d+) created");
    String terminalId = group(run("terminal", "create", "--merchant", merchantId, "--name", "Careful acquirer").out(),
        "terminal (\\d+) created");
    CommandLineRun negative = run("connector", "create", "--shop", shopId, "--terminal", terminalId, "--currency", "EUR",
        "--weight", "-5");
    assertThat(negative.exit()).isNotZero();
    assertThat(negative.err()).contains("--weight: must not be negative").doesNotContain("\tat ");
    CommandLineRun blank = run("shop-group", "create", "--merchant", merchantId, "--name", "   ");
    assertThat(blank.exit()).isNotZero();
    assertThat(blank.err()).contains("--name: must be 1 to 128 characters");
    Integer shopGroups = db.jdbi().withHandle(h -> h.createQuery("select count(*) from shop_groups where merchant_id = "
        + merchantId).mapTo(Integer.class).one());
    assertThat(shopGroups).isZero();
    Integer shops = db.jdbi().withHandle(h -> h.createQuery("select count(*) from shops where merchant_id = "
        + merchantId).mapTo(Integer.class).one());
    assertThat(shops).isEqualTo(1);
  }

  @Test
  void imports_reference_data_all_or_nothing() throws Exception {
    java.nio.file.Path dir = ScratchDirectories.create("tollgate-imports");
    java.nio.file.Path good = Files.writeString(dir.resolve("bins.csv"),
        "bin,cardBrand,cardType,issuingCountryCode,issuingOrganization\n"
            + "48151623,VISA,DEBIT,de,Lost Bank\n"
            + "222100,Master Card,CREDIT,FR,Banque Deux\n");
    CommandLineRun ok = run("import", "bins", "--file", good.toString());
    assertThat(ok.exit()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("2 bins imported");
    String country = db.jdbi().withHandle(h -> h.createQuery("select issuing_country from bins where bin = '48151623'")
        .mapTo(String.class).one());
    assertThat(country).isEqualTo("DE");
    String brand = db.jdbi().withHandle(h -> h.createQuery("select card_brand from bins where bin = '222100'")
        .mapTo(String.class).one());
    assertThat(brand).as("as payments show it, the reference's name").isEqualTo("MASTERCARD");
    java.nio.file.Path unknownBrand = Files.writeString(dir.resolve("brands.csv"),
        "bin,cardBrand\n" + "51234567,Visa Electron Plus\n");
    CommandLineRun brandRefused = run("import", "bins", "--file", unknownBrand.toString());
    assertThat(brandRefused.exit()).isNotZero();
    assertThat(brandRefused.err()).contains("row 1").contains("cardBrand must be one of");
    // a row that leaves fields out would empty them: the country the card-country rule screens by
    java.nio.file.Path brandOnly = Files.writeString(dir.resolve("brand-only.csv"), "bin,cardBrand\n48151623,VISA\n");
    CommandLineRun partial = run("import", "bins", "--file", brandOnly.toString());
    assertThat(partial.exit()).isNotZero();
    assertThat(partial.err()).contains("row 1 leaves out cardType, issuingCountryCode, issuingOrganization");
    String kept = db.jdbi().withHandle(h -> h.createQuery("select issuing_country from bins where bin = '48151623'")
        .mapTo(String.class).one());
    assertThat(kept).isEqualTo("DE");
    java.nio.file.Path unknownCountry = Files.writeString(dir.resolve("unknown-country.json"),
        "[{\"bin\":\"48151623\",\"cardBrand\":\"VISA\",\"cardType\":\"DEBIT\",\"issuingCountryCode\":null,"
            + "\"issuingOrganization\":\"Lost Bank\"}]");
    assertThat(run("import", "bins", "--file", unknownCountry.toString()).exit()).as("named, if empty").isZero();

    // a key given twice: only its last row would be kept, whatever the output said
    java.nio.file.Path twice = Files.writeString(dir.resolve("twice.csv"),
        "baseCurrency,quoteCurrency,rate\nCHF,ISK,158.5\nCHF,HUF,411.7\nCHF,ISK,1.585\n");
    CommandLineRun typo = run("import", "currency-rates", "--file", twice.toString());
    assertThat(typo.exit()).isNotZero();
    assertThat(typo.err()).contains("row 3 names the same currency pair as row 1");
    java.nio.file.Path sameBank = Files.writeString(dir.resolve("same-bank.csv"),
        "countryCode,bankCode,bankName\nuk,60161331,Bank A\nGB,60161331,Bank B\n");
    CommandLineRun bank = run("import", "bank-codes", "--file", sameBank.toString());
    assertThat(bank.exit()).isNotZero();
    assertThat(bank.err()).as("uk is GB, as stored").contains("row 2 names the same country and bank code as row 1");
    Integer pairs = db.jdbi().withHandle(h -> h.createQuery("select count(*) from currency_rates where base_currency "
        + "= 'CHF' and quote_currency in ('ISK', 'HUF')").mapTo(Integer.class).one());
    assertThat(pairs).as("nothing of the file").isZero();

    java.nio.file.Path bad = Files.writeString(dir.resolve("rates.json"),
        "[{\"baseCurrency\":\"EUR\",\"quoteCurrency\":\"CHF\",\"rate\":\"0.94\"},"
            + "{\"baseCurrency\":\"EUR\",\"quoteCurrency\":\"XYZ\",\"rate\":\"1\"},"
            + "{\"baseCurrency\":\"USD\",\"quoteCurrency\":\"CHF\",\"rate\":\"-2\"}]");
    CommandLineRun refused = run("import", "currency-rates", "--file", bad.toString());
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err()).contains("row 2").contains("XYZ").contains("row 3").contains("positive");
    Integer chf = db.jdbi().withHandle(h -> h.createQuery("select count(*) from currency_rates where quote_currency = 'CHF'")
        .mapTo(Integer.class).one());
    assertThat(chf).isZero();
    assertThat(run("import", "planets", "--file", good.toString()).exit()).isNotZero();
  }

  /**
   * A CSV row with more values than its header names lost the others without a word: a rate written
   * with a decimal comma, {@code EUR,CZK,25,34}, was imported as 25 (and payments routed to a CZK
   * connector converted at it), a BIN's issuer {@code Bank, Inc.} as {@code Bank}; a row with fewer
   * was taken with the missing fields empty. Each is a bad row now, and the file imports nothing.
   */
  @Test
  void refuses_csv_rows_with_more_or_fewer_values_than_the_header_names() throws Exception {
    Path dir = ScratchDirectories.create("tollgate-imports-values");
    Path commas = Files.writeString(dir.resolve("rates.csv"),
        "baseCurrency,quoteCurrency,rate\n" + "EUR,CZK,25,34\n" + "EUR,HUF,402.5\n");
    CommandLineRun rates = run("import", "currency-rates", "--file", commas.toString());
    assertThat(rates.exit()).isEqualTo(1);
    assertThat(rates.out()).doesNotContain("imported");
    assertThat(rates.err()).contains("nothing imported").contains("row 1 has 4 values, the header names 3")
        .doesNotContain("row 2");
    Integer stored = db.jdbi().withHandle(h -> h.createQuery(
        "select count(*) from currency_rates where quote_currency in ('CZK', 'HUF')").mapTo(Integer.class).one());
    assertThat(stored).as("nothing of the file").isZero();

    String header = "bin,cardBrand,cardType,issuingCountryCode,issuingOrganization\n";
    Path bins = Files.writeString(dir.resolve("bins.csv"), header
        + "41111120,VISA,CREDIT,US,Bank, Inc.\n" + "41111121,VISA\n" + "41111122,VISA,CREDIT,US,\"Bank, Inc.\"\n");
    CommandLineRun refused = run("import", "bins", "--file", bins.toString());
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err()).contains("row 1 has 6 values, the header names 5")
        .contains("row 2 has 2 values, the header names 5").doesNotContain("row 3");
    Integer binsStored = db.jdbi().withHandle(h -> h.createQuery(
        "select count(*) from bins where bin like '4111112%'").mapTo(Integer.class).one());
    assertThat(binsStored).isZero();

    Path quoted = Files.writeString(dir.resolve("quoted.csv"), header + "41111122,VISA,CREDIT,US,\"Bank, Inc.\"\n");
    CommandLineRun ok = run("import", "bins", "--file", quoted.toString());
    assertThat(ok.exit()).as(ok.err()).isZero();
    String issuer = db.jdbi().withHandle(h -> h.createQuery(
        "select issuing_organization from bins where bin = '41111122'").mapTo(String.class).one());
    assertThat(issuer).isEqualTo("Bank, Inc.");
  }

  /**
   * A JSON rate was read as a double: 11.123456789012345678 became 11.123456789012346. It is taken
   * as written now, up to the 18 decimals a rate keeps; one with more, which the database would
   * round, is refused.
   */
  @Test
  void imports_a_json_rate_as_written_and_refuses_more_decimals_than_a_rate_keeps() throws Exception {
    Path dir = ScratchDirectories.create("tollgate-imports-json-rates");
    Path exact = Files.writeString(dir.resolve("rates.json"),
        "[{\"baseCurrency\":\"PLN\",\"quoteCurrency\":\"NOK\",\"rate\":2.123456789012345678}]");
    CommandLineRun ok = run("import", "currency-rates", "--file", exact.toString());
    assertThat(ok.exit()).as(ok.err()).isZero();
    assertThat(plnToNok()).isEqualByComparingTo("2.123456789012345678");

    Path tooFine = Files.writeString(dir.resolve("fine.json"),
        "[{\"baseCurrency\":\"PLN\",\"quoteCurrency\":\"NOK\",\"rate\":2.08500000000000000001}]");
    CommandLineRun refused = run("import", "currency-rates", "--file", tooFine.toString());
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err()).contains("row 1: rate must have at most 18 decimals");
    assertThat(plnToNok()).as("unchanged").isEqualByComparingTo("2.123456789012345678");
  }

  /**
   * A JSON number is taken written out in full, and 1e1000000000, a few bytes in the file, is a
   * billion digits written out: the command ran out of memory writing them. A number longer
   * written out than a field may be is a bad row now, as a text too long is, and the file
   * imports nothing.
   */
  @Test
  void refuses_a_json_number_too_long_to_write_out_without_writing_it() throws Exception {
    Path dir = ScratchDirectories.create("tollgate-imports-json-exponents");
    Path rates = Files.writeString(dir.resolve("rates.json"),
        "[{\"baseCurrency\":\"HKD\",\"quoteCurrency\":\"SGD\",\"rate\":1e1000000000},"
            + "{\"baseCurrency\":\"SGD\",\"quoteCurrency\":\"HKD\",\"rate\":5.79}]");
    CommandLineRun refused = run("import", "currency-rates", "--file", rates.toString());
    assertThat(refused.exit()).as(refused.err()).isEqualTo(1);
    assertThat(refused.err()).contains("nothing imported").contains("row 1 has a number too long to write out in rate")
        .doesNotContain("row 2");
    Integer stored = db.jdbi().withHandle(h -> h.createQuery(
        "select count(*) from currency_rates where base_currency in ('HKD', 'SGD') and quote_currency in ('HKD', 'SGD')")
        .mapTo(Integer.class).one());
    assertThat(stored).as("nothing of the file").isZero();

    Path bins = Files.writeString(dir.resolve("bins.json"),
        "[{\"bin\":1e-1000000000,\"cardBrand\":\"VISA\",\"cardType\":null,\"issuingCountryCode\":null,"
            + "\"issuingOrganization\":null},{\"bin\":41111130,\"cardBrand\":\"VISA\",\"cardType\":null,"
            + "\"issuingCountryCode\":null,\"issuingOrganization\":null}]");
    CommandLineRun binRefused = run("import", "bins", "--file", bins.toString());
    assertThat(binRefused.exit()).as(binRefused.err()).isEqualTo(1);
    assertThat(binRefused.err()).contains("row 1 has a number too long to write out in bin").doesNotContain("row 2");
    Integer binsStored = db.jdbi().withHandle(h -> h.createQuery(
        "select count(*) from bins where bin = '41111130'").mapTo(Integer.class).one());
    assertThat(binsStored).isZero();
  }

  private static java.math.BigDecimal plnToNok() {
    return db.jdbi().withHandle(h -> h.createQuery(
        "select rate from currency_rates where base_currency = 'PLN' and quote_currency = 'NOK'")
        .mapTo(java.math.BigDecimal.class).one());
  }

  @Test
  void every_command_answers_help_without_doing_anything() {
    CommandLineRun shopCreate = run("shop", "create", "--help");
    assertThat(shopCreate.exit()).as(shopCreate.err()).isZero();
    assertThat(shopCreate.out()).contains("--merchant").contains("--checkout-timeout");
    CommandLineRun shop = run("shop", "-h");
    assertThat(shop.exit()).as(shop.err()).isZero();
    assertThat(shop.out()).contains("create").contains("update");
    CommandLineRun serve = run("serve", "--help");
    assertThat(serve.exit()).as("prints its help and does not start").isZero();
    assertThat(serve.out()).contains("Start the gateway");
  }

  @Test
  void imports_files_as_spreadsheets_write_them_and_refuse_what_would_be_lost_or_repeated() throws Exception {
    java.nio.file.Path dir = ScratchDirectories.create("tollgate-imports-sheets");
    // a byte order mark first and CRLF line ends, as a spreadsheet saves a CSV file
    java.nio.file.Path sheet = Files.writeString(dir.resolve("rates.csv"),
        "\uFEFFbaseCurrency,quoteCurrency,rate,lastUpdate\r\n" + "EUR,SEK,11.52,2026-11-01T00:00:00Z\r\n"
            + "SEK,EUR,0.0868,2026-11-01T02:00:00+02:00\r\n");
    CommandLineRun ok = run("import", "currency-rates", "--file", sheet.toString());
    assertThat(ok.exit()).as(ok.err()).isZero();
    java.sql.Timestamp updated = db.jdbi().withHandle(h -> h.createQuery(
        "select last_update from currency_rates where base_currency = 'SEK' and quote_currency = 'EUR'")
        .mapTo(java.sql.Timestamp.class).one());
    assertThat(updated.toInstant()).as("the offset taken into account")
        .isEqualTo(java.time.Instant.parse("2026-11-01T00:00:00Z"));

    java.nio.file.Path semicolons = Files.writeString(dir.resolve("bins.csv"),
        "bin;cardBrand;issuingOrganization\n" + "41111111;VISA;Bank\n");
    CommandLineRun header = run("import", "bins", "--file", semicolons.toString());
    assertThat(header.exit()).isNotZero();
    assertThat(header.err()).contains("unknown field bin;cardBrand;issuingOrganization")
        .contains("the fields of bins are bin, cardBrand");
    java.nio.file.Path misspelt = Files.writeString(dir.resolve("misspelt.csv"),
        "bin,issuingOrganisation\n" + "41111112,Bank\n");
    assertThat(run("import", "bins", "--file", misspelt.toString()).err()).contains("unknown field issuingOrganisation");

    java.nio.file.Path huge = Files.writeString(dir.resolve("huge.csv"),
        "bin,issuingOrganization\n" + "41111113," + "B".repeat(5_000) + "\n");
    CommandLineRun tooLong = run("import", "bins", "--file", huge.toString());
    assertThat(tooLong.exit()).isNotZero();
    assertThat(tooLong.err()).contains("row 1: issuingOrganization must be at most 256 characters");
    java.nio.file.Path same = Files.writeString(dir.resolve("same.csv"), "baseCurrency,quoteCurrency,rate\nEUR,EUR,1\n");
    assertThat(run("import", "currency-rates", "--file", same.toString()).err()).contains("must differ");
    Integer bins = db.jdbi().withHandle(h -> h.createQuery("select count(*) from bins where bin like '4111111%'")
        .mapTo(Integer.class).one());
    assertThat(bins).as("nothing of a refused file").isZero();

    CommandLineRun missing = run("import", "bins", "--file", dir.resolve("nowhere.csv").toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err().strip()).isEqualTo("error: cannot read " + dir.resolve("nowhere.csv") + ": no such file");
    java.nio.file.Path truncated = Files.writeString(dir.resolve("cut.json"), "[{\"bin\":\"41111114\"");
    CommandLineRun cut = run("import", "bins", "--file", truncated.toString());
    assertThat(cut.exit()).isEqualTo(1);
    assertThat(cut.err()).startsWith("error: cannot read").doesNotContain("Usage:");
  }

  @Test
  void provisions_terminals_connectors_and_antifraud_profiles() {
    String merchantId = group(run("merchant", "create", "--name", "Router").out(), "merchant (\\d+) created");
    String shopId = group(run("shop", "create", "--merchant", merchantId, "--name", "Routed").out(), "shop (\\d+) created");
    CommandLineRun terminal = run("terminal", "create", "--merchant", merchantId, "--name", "Acquirer X",
        "--api-types", "DEPOSIT,BALANCE");
    assertThat(terminal.exit()).as(terminal.err()).isZero();
    String terminalId = group(terminal.out(), "terminal (\\d+) created");
    String codes = group(run("group", "create", "--merchant", merchantId, "--type", "ERROR_CODE", "--name", "cascade")
        .out(), "error_code group (\\d+) created");
    CommandLineRun connector = run("connector", "create", "--shop", shopId, "--terminal", terminalId, "--currency", "EUR",
        "--cascade-on", codes);
    assertThat(connector.exit()).as(connector.err()).isZero();
    assertThat(run("connector", "create", "--shop", shopId, "--terminal", terminalId, "--currency", "EURO").exit())
        .isNotZero();
    Integer connectors = db.jdbi().withHandle(h -> h.createQuery("select count(*) from connectors where shop_id = " + shopId)
        .mapTo(Integer.class).one());
    CommandLineRun blacklistAlone = run("connector", "create", "--shop", shopId, "--terminal", terminalId,
        "--currency", "EUR", "--never-cascade-on", codes);
    assertThat(blacklistAlone.exit()).as("a blacklist alone would never let any decline cascade").isNotZero();
    assertThat(blacklistAlone.err()).contains("--never-cascade-on needs --cascade-on");
    Integer connectorsAfter = db.jdbi().withHandle(h -> h.createQuery("select count(*) from connectors where shop_id = "
        + shopId).mapTo(Integer.class).one());
    assertThat(connectorsAfter).isEqualTo(connectors);
    // what routing will do, from the command line
    CommandLineRun terminals = run("terminal", "list", "--merchant", merchantId);
    assertThat(terminals.exit()).as(terminals.err()).isZero();
    assertThat(terminals.out().strip()).isEqualTo(terminalId + "\tAcquirer X\tstate=ACTIVE\tprovider=Tollgate Sandbox"
        + "\tapiTypes=DEPOSIT,BALANCE");
    CommandLineRun listed = run("connector", "list", "--shop", shopId);
    assertThat(listed.exit()).as(listed.err()).isZero();
    assertThat(listed.out().strip()).matches("\\d+\tterminal=" + terminalId + " Acquirer X\tstate=ACTIVE\tBASIC_CARD EUR"
        + "\tpriority=1\tweight=100\tamounts=\\.\\.\tcascadeOn=" + codes + "\tneverCascadeOn=-");
    assertThat(run("connector", "list", "--shop", "999999").exit()).isNotZero();
    assertThat(run("terminal", "list", "--merchant", "999999").exit()).isNotZero();
    assertThat(run("connector", "create", "--shop", shopId, "--terminal", terminalId, "--currency", "EUR",
        "--priority", "-1").err()).contains("--priority: must not be negative");

    // a connector made by mistake is taken out of routing, and put back, from the command line
    String connectorId = group(listed.out(), "^(\\d+)\t");
    CommandLineRun off = run("connector", "set-state", "--connector", connectorId, "--state", "inactive");
    assertThat(off.exit()).as(off.err()).isZero();
    assertThat(off.out()).contains("connector " + connectorId + " of shop " + shopId + " is INACTIVE");
    assertThat(run("connector", "list", "--shop", shopId).out()).as("still listed, to be put back")
        .contains(connectorId + "\tterminal=" + terminalId + " Acquirer X\tstate=INACTIVE");
    String state = db.jdbi().withHandle(h -> h.createQuery("select state from connectors where id = " + connectorId)
        .mapTo(String.class).one());
    assertThat(state).isEqualTo("INACTIVE");
    assertThat(run("connector", "set-state", "--connector", connectorId, "--state", "ACTIVE").out()).contains("is ACTIVE");
    assertThat(run("connector", "set-state", "--connector", connectorId, "--state", "PAUSED").exit()).isNotZero();
    assertThat(run("connector", "set-state", "--connector", "999999", "--state", "ACTIVE").exit()).isNotZero();

    String bins = group(run("group", "create", "--merchant", merchantId, "--type", "BIN", "--name", "bad bins").out(),
        "bin group (\\d+) created");
    CommandLineRun profile = run("antifraud-profile", "create", "--merchant", merchantId, "--name", "Strict",
        "--rule", "BIN_BLACKLIST=" + bins, "--rule", "DECLINED_DEPOSITS_PER_CARD=3/60");
    assertThat(profile.exit()).as(profile.err()).isZero();
    String profileId = group(profile.out(), "antifraud profile (\\d+) created");
    assertThat(run("antifraud-profile", "create", "--merchant", merchantId, "--name", "Wrong",
        "--rule", "EMAIL_BLACKLIST=" + bins).exit()).as("a BIN group is no e-mail group").isNotZero();
    CommandLineRun attached = run("antifraud-profile", "attach", "--shop", shopId, "--profile", profileId);
    assertThat(attached.exit()).as(attached.err()).isZero();
    Long attachedProfile = db.jdbi().withHandle(h -> h.createQuery("select antifraud_profile_id from shops where id = " + shopId)
        .mapTo(Long.class).one());
    assertThat(attachedProfile).isEqualTo(Long.parseLong(profileId));
    assertThat(run("shop-group", "create", "--merchant", merchantId, "--name", "All").exit()).isZero();
  }
}
