package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import io.tollgate.persistence.testing.TestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A database serves one environment, the one of the first server that started on it. Only the
 * API key lookup used to tell sandbox from production: a sandbox instance pointed at the
 * production database, or a {@code tg_test_} key issued there, read and changed production's
 * payments, and the sandbox instance's jobs "paid" production's withdrawals and refunds through
 * the sandbox acquirer, moving no money.
 */
class OneEnvironmentPerDatabaseTest {

  private final HttpClient http = HttpClient.newHttpClient();

  /**
   * A server of the other environment is refused before it works anything (a sandbox server no
   * longer loads its test BINs into a production database), with one line that names both
   * environments and what to do; the first environment's server starts again and its keys work.
   */
  @ParameterizedTest
  @EnumSource(Environment.class)
  void a_server_of_the_other_environment_is_refused_and_the_first_starts_again(Environment first) throws Exception {
    Environment other = first == Environment.SANDBOX ? Environment.PRODUCTION : Environment.SANDBOX;
    try (Database db = TestDatabase.fresh()) {
      String key;
      try (Tollgate app = start(db, first)) {
        key = keyOfANewShop(app, first);
      }
      long bins = count(db, "bins");

      Exception refused = refusedStart(db, other);
      assertThat(refused).isInstanceOf(IllegalStateException.class)
          .hasMessage("this database serves " + first.lowerName() + ", and this server runs in " + other.lowerName()
              + " (TOLLGATE_ENVIRONMENT): sandbox and production each need a database of their own; point "
              + "TOLLGATE_DB_URL at the " + other.lowerName() + " database, or set TOLLGATE_ENVIRONMENT="
              + first.lowerName());
      assertThat(Main.operatorProblem(refused)).as("`serve` prints it as its one error: line")
          .isEqualTo(refused.getMessage());
      assertThat(count(db, "bins")).as("the refused server loaded nothing").isEqualTo(bins);

      try (Tollgate again = start(db, first)) {
        assertThat(status(again, key)).isEqualTo(200);
      }
    }
  }

  /**
   * A database an earlier release kept, which records no environment, serves the one of the first
   * server that starts on it after the upgrade; a sandbox instance pointed at it next, while
   * production runs, is refused.
   */
  @Test
  void a_database_from_before_the_record_serves_the_first_server_started_after_the_upgrade() throws Exception {
    String url = TestDatabase.empty();
    Flyway.configure().dataSource(url, TestDatabase.user(), TestDatabase.password())
        .locations("classpath:db/migration").target("46").load().migrate();
    var settings = new DatabaseSettings(url, TestDatabase.user(), TestDatabase.password(), null, 10);
    try (Database db = Database.start(settings); Tollgate production = start(db, Environment.PRODUCTION)) {
      String key = keyOfANewShop(production, Environment.PRODUCTION);
      assertThat(refusedStart(db, Environment.SANDBOX)).hasMessageStartingWith(
          "this database serves production, and this server runs in sandbox");
      assertThat(status(production, key)).isEqualTo(200);
    }
  }

  /**
   * A sandbox server started by mistake on a new production database, provisioned with
   * production's master key before its server first started, failed on its own key but had
   * recorded the database as sandbox's first: production's server was then refused there. A
   * server that cannot open the database's secrets records nothing, and production starts.
   */
  @Test
  void a_server_that_cannot_open_the_secrets_does_not_take_the_database() throws Exception {
    try (Database db = TestDatabase.fresh()) {
      Map<String, String> production = settings(db, Environment.PRODUCTION);
      String merchant = group(cli(production, "merchant", "create", "--name", "Live"), "merchant (\\d+) created");
      String shop = group(cli(production, "shop", "create", "--merchant", merchant, "--name", "Live Web"),
          "shop (\\d+) created");
      String live = group(cli(production, "key", "issue", "--shop", shop), "API key:\\s+(\\S+)");
      Map<String, String> sandbox = settings(db, Environment.SANDBOX);
      sandbox.put("TOLLGATE_MASTER_KEY", java.util.Base64.getEncoder().encodeToString(
          io.tollgate.application.crypto.SecretBox.randomKey()));

      Throwable refused = org.assertj.core.api.Assertions.catchThrowable(
          () -> Tollgate.start(TollgateConfig.from(sandbox), db).close());

      assertThat(refused).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("sealed with another master key");
      try (Tollgate app = start(db, Environment.PRODUCTION)) {
        assertThat(status(app, live)).isEqualTo(200);
      }
    }
  }

  /** A sandbox and a production server starting at once on a new database: exactly one of them runs. */
  @Test
  void of_two_servers_starting_at_once_in_each_environment_one_runs() throws Exception {
    try (Database db = TestDatabase.fresh()) {
      ExecutorService pool = Executors.newFixedThreadPool(2);
      List<Tollgate> started = new ArrayList<>();
      try {
        CountDownLatch ready = new CountDownLatch(2);
        List<Future<Tollgate>> starts = new ArrayList<>();
        for (Environment environment : Environment.values()) {
          starts.add(pool.submit(() -> {
            ready.countDown();
            ready.await();
            return start(db, environment);
          }));
        }
        List<Throwable> refused = new ArrayList<>();
        for (Future<Tollgate> start : starts) {
          try {
            started.add(start.get());
          } catch (java.util.concurrent.ExecutionException e) {
            refused.add(e.getCause());
          }
        }
        assertThat(started).hasSize(1);
        assertThat(refused).singleElement().asString().contains("this database serves "
            + started.get(0).services().environment().lowerName());
      } finally {
        started.forEach(Tollgate::close);
        pool.shutdownNow();
      }
    }
  }

  /**
   * The command line may provision a new database in either environment before its first server
   * starts, and takes nothing for it: a sandbox run there does not keep production out. Once a
   * production server has started, a sandbox key is refused, whether asked with {@code
   * --environment} or by a run whose TOLLGATE_ENVIRONMENT was left at sandbox, and so is any
   * command of such a run; production keys are still issued. It used to issue {@code tg_test_}
   * keys that read and changed production's payments on a sandbox instance.
   */
  @Test
  void the_command_line_refuses_the_other_environment_once_a_server_started() throws Exception {
    try (Database db = TestDatabase.fresh()) {
      Map<String, String> production = settings(db, Environment.PRODUCTION);
      Map<String, String> sandbox = settings(db, Environment.SANDBOX);
      String merchant = group(cli(production, "merchant", "create", "--name", "Live"), "merchant (\\d+) created");
      String shop = group(cli(production, "shop", "create", "--merchant", merchant, "--name", "Live Web"),
          "shop (\\d+) created");
      assertThat(group(cli(sandbox, "key", "issue", "--shop", shop), "API key:\\s+(\\S+)"))
          .as("nothing recorded yet").startsWith("tg_test_");
      assertThat(group(cli(production, "key", "issue", "--shop", shop, "--environment", "sandbox"),
          "API key:\\s+(\\S+)")).startsWith("tg_test_");
      String live = group(cli(production, "key", "issue", "--shop", shop), "API key:\\s+(\\S+)");

      try (Tollgate app = start(db, Environment.PRODUCTION)) {
        assertThat(status(app, live)).as("the sandbox runs before did not take the database").isEqualTo(200);
      }

      CommandLineRun asked = CommandLineRun.of(production, "key", "issue", "--shop", shop, "--environment", "sandbox");
      assertThat(asked.exit()).isEqualTo(1);
      assertThat(asked.out()).doesNotContain("tg_test_");
      assertThat(asked.err().strip()).isEqualTo("error: this database serves production, and this command acts in "
          + "sandbox (--environment): sandbox and production each need a database of their own; point TOLLGATE_DB_URL "
          + "at the sandbox database, or give --environment production");
      CommandLineRun defaulted = CommandLineRun.of(sandbox, "key", "issue", "--shop", shop);
      assertThat(defaulted.exit()).isEqualTo(1);
      assertThat(defaulted.out()).doesNotContain("tg_test_");
      assertThat(defaulted.err()).startsWith("error: this database serves production, and this command acts in "
          + "sandbox (TOLLGATE_ENVIRONMENT)").contains("set TOLLGATE_ENVIRONMENT=production");
      CommandLineRun other = CommandLineRun.of(sandbox, "merchant", "create", "--name", "Test");
      assertThat(other.exit()).isEqualTo(1);
      assertThat(other.err()).startsWith("error: this database serves production");

      assertThat(group(cli(production, "key", "issue", "--shop", shop, "--environment", "production"),
          "API key:\\s+(\\S+)")).startsWith("tg_live_");
    }
  }

  /**
   * The master-key commands did not ask which environment the database serves: a run with
   * TOLLGATE_ENVIRONMENT left at sandbox listed production's master keys and added one to them
   * with {@code rotate}. They are refused like every other command, before they do anything: a
   * run without a master key no longer makes the sandbox one in its data directory first.
   */
  @Test
  void the_master_key_commands_refuse_the_other_environment_before_doing_anything() throws Exception {
    try (Database db = TestDatabase.fresh()) {
      try (Tollgate app = start(db, Environment.PRODUCTION)) {
        assertThat(app.services().environment()).isEqualTo(Environment.PRODUCTION);
      }
      long keys = count(db, "master_key_ring");
      Map<String, String> leftAtSandbox = settings(db, Environment.PRODUCTION);
      leftAtSandbox.remove("TOLLGATE_ENVIRONMENT");
      Map<String, String> withoutKey = new HashMap<>(leftAtSandbox);
      withoutKey.remove("TOLLGATE_MASTER_KEY");
      for (CommandLineRun refused : List.of(CommandLineRun.of(leftAtSandbox, "master-key", "list"),
          CommandLineRun.of(leftAtSandbox, "master-key", "rotate"),
          CommandLineRun.of(withoutKey, "master-key", "list"))) {
        assertThat(refused.exit()).as(refused.err()).isEqualTo(1);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err()).startsWith("error: this database serves production, and this command acts in "
            + "sandbox (TOLLGATE_ENVIRONMENT)").contains("set TOLLGATE_ENVIRONMENT=production");
      }
      assertThat(count(db, "master_key_ring")).as("no key added").isEqualTo(keys);
      assertThat(Path.of(withoutKey.get("TOLLGATE_DATA_DIR")).resolve("master.key"))
          .as("no sandbox key made").doesNotExist();
    }
  }

  /** The settings of a server or command line in {@code environment} on {@code db}, with the same master key. */
  private static Map<String, String> settings(Database db, Environment environment) throws java.io.IOException {
    Map<String, String> settings = TestGateway.environment(db, "tollgate-environment");
    settings.put("TOLLGATE_ENVIRONMENT", environment.lowerName());
    settings.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
    if (environment == Environment.PRODUCTION) {
      settings.put("TOLLGATE_PUBLIC_URL", "https://pay.example.com");
    }
    return settings;
  }

  private static Tollgate start(Database db, Environment environment) throws Exception {
    return Tollgate.start(TollgateConfig.from(settings(db, environment)), db);
  }

  /** Why a server in {@code environment} could not start on {@code db}; null when it started. */
  private static Exception refusedStart(Database db, Environment environment) {
    try (Tollgate started = start(db, environment)) {
      return null;
    } catch (Exception e) {
      return e;
    }
  }

  private static String keyOfANewShop(Tollgate app, Environment environment) {
    MerchantId merchant = app.services().shops().createMerchant("Merchant");
    var shop = app.services().shops().createShop(new io.tollgate.application.port.in.ProvisioningUseCase
        .CreateShopCommand(merchant, "Shop", null, null, null, false, false, "EUR"));
    return app.services().shops().issueKeys(shop, environment).apiKey();
  }

  private int status(Tollgate app, String key) throws Exception {
    return http.send(HttpRequest.newBuilder(app.baseUri().resolve("/api/v1/payments"))
        .header("Authorization", "Bearer " + key).GET().build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  private static long count(Database db, String table) {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one());
  }

  private static CommandLineRun cli(Map<String, String> settings, String... args) {
    CommandLineRun run = CommandLineRun.of(settings, args);
    assertThat(run.exit()).as(run.err()).isZero();
    return run;
  }

  private static String group(CommandLineRun run, String regex) {
    Matcher m = Pattern.compile(regex).matcher(run.out());
    assertThat(m.find()).as("%s in %s", regex, run.out()).isTrue();
    return m.group(1);
  }
}
