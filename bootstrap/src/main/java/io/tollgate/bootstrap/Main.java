package io.tollgate.bootstrap;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.in.ProvisioningUseCase;
import io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand;
import io.tollgate.application.port.in.ProvisioningUseCase.IssuedKeys;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.Permission;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import io.tollgate.persistence.MasterKeyRing;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tollgate <command>}: the server and the operator's provisioning commands. */
// INHERIT: --help (and --version) work on every command, not on the top one only
@Command(name = "tollgate", mixinStandardHelpOptions = true, scope = CommandLine.ScopeType.INHERIT,
    versionProvider = Main.Version.class,
    description = "A self-hostable payment gateway. Configuration comes from TOLLGATE_* environment variables.",
    subcommands = {Main.Serve.class, Main.MerchantCommands.class, Main.ShopCommands.class, Main.UserCommands.class, Main.GroupCommands.class, Main.ImportCommand.class, Main.TerminalCommands.class,
        Main.ConnectorCommands.class, Main.AntifraudCommands.class, Main.ShopGroupCommands.class,
        Main.KeyCommands.class, Main.MasterKeyCommands.class})
public final class Main implements Callable<Integer> {

  /** {@code -V}: the version in the jar's manifest, the one the webhooks' User-Agent gives. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"Tollgate " + Tollgate.VERSION};
    }
  }

  /** The environment the commands read their configuration from; tests pass their own. */
  private static volatile Map<String, String> environment = System.getenv();

  public static void main(String[] args) {
    // Before logging starts: logback's ${TOLLGATE_LOG_FORMAT:-text} keeps an empty value, which
    // names no log format and silenced every log line; blank means unset here as for every setting.
    // A value that names no format is refused with the other settings' problems; until then the
    // log is text, rather than logback's whole start-up status printed above that one error.
    String format = System.getenv("TOLLGATE_LOG_FORMAT");
    if (System.getProperty("TOLLGATE_LOG_FORMAT") == null) {
      System.setProperty("TOLLGATE_LOG_FORMAT", format != null && format.strip().equals("json") ? "json" : "text");
    }
    org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
    org.slf4j.bridge.SLF4JBridgeHandler.install();
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true), System.getenv()));
  }

  static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env) {
    environment = env;
    CommandLine cli = new CommandLine(new Main());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> report(e, err, env));
    return cli.execute(args.length == 0 ? new String[] {"serve"} : args);
  }

  /**
   * What the operator reads when a command fails, and its exit code (1): one line for a failure
   * they can act on, with the stack trace under it when asked for; the stack trace always for
   * anything else, a programming error. Every trace masked as the log masks one: picocli printed
   * a programming error's as it was, with any card number or database password in its messages.
   */
  static int report(Exception e, PrintWriter err, Map<String, String> env) {
    boolean traced = showsStackTraces(env);
    if (e instanceof DomainException.Invalid invalid) {
      err.println("error: " + invalid.getMessage());
      invalid.violations().forEach(v -> err.println("  " + v.field() + ": " + v.message()));
    } else if (e instanceof DomainException || e instanceof IllegalArgumentException) {
      err.println("error: " + e.getMessage());
    } else if (refusedByTheDatabase(e) != null) {
      // a constraint the checks above do not cover: its one line, not a stack trace with the SQL in it
      err.println("error: the database refused the change: " + refusedByTheDatabase(e));
    } else if (operatorProblem(e) != null) {
      err.println("error: " + operatorProblem(e));
    } else {
      traced = true;
    }
    if (traced) {
      // a message may hold a JDBC URL with the database password in it (Hikari's "Failed to get
      // driver instance for jdbcUrl=..."), which the line above hides, or a card number
      java.io.StringWriter trace = new java.io.StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      err.print(MaskedMessageConverter.mask(trace.toString()));
    }
    err.flush();
    return 1;
  }

  /** The first line of the database's refusal among the causes of {@code e} (a constraint it broke); null when none is. */
  static String refusedByTheDatabase(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
        String message = String.valueOf(sql.getMessage());
        return message.lines().findFirst().orElse(message).replaceFirst("^ERROR: ", "");
      }
    }
    return null;
  }

  /**
   * Whether an error the command line reports in one line is followed by its stack trace:
   * {@code TOLLGATE_DEBUG=1} (or {@code true}), for a report to the developers.
   */
  static boolean showsStackTraces(Map<String, String> env) {
    String debug = env.get("TOLLGATE_DEBUG");
    return debug != null && (debug.strip().equals("1") || debug.strip().equalsIgnoreCase("true"));
  }

  /** SQL state classes of a database that cannot be had: connection, authorization, no such database, out of resources, shut down. */
  private static final Set<String> UNREACHABLE_DATABASE = Set.of("08", "28", "3D", "53", "57");

  /**
   * What an operator can act on when a command fails for a reason outside the program: a port
   * taken, a host that does not resolve, a database URL that is not JDBC, a database that cannot
   * be reached or refuses the connection, a data directory that cannot be used or that another
   * process holds, another master key. The messages of the cause chain that say something new,
   * joined ("Failed to bind to /0.0.0.0:8080: Address already in use"); for a database, down to
   * the driver's own words. Null for anything else: a programming error, whose stack trace is
   * what helps.
   */
  static String operatorProblem(Throwable e) {
    Throwable last = null;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().length() >= 2
          && UNREACHABLE_DATABASE.contains(sql.getSQLState().substring(0, 2))) {
        last = t;
      }
    }
    // Tollgate's own words about the machine (a lock held, another master key) are
    // IllegalStateExceptions it throws without a cause; one with a cause, or the JDK's, is a bug.
    boolean outside = last != null || e instanceof IOException || e instanceof UncheckedIOException
        || e instanceof IllegalStateException && e.getCause() == null && e.getStackTrace().length > 0
            && e.getStackTrace()[0].getClassName().startsWith("io.tollgate.");
    if (!outside) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException) {
        // which setting to change, not only what the socket said
        parts.add("TOLLGATE_PORT (or TOLLGATE_HOST) names an address in use or not this machine's");
      }
      if (last != null && t == e) {
        parts.add("the database of TOLLGATE_DB_URL did not answer");
      }
      Throwable current = t;
      String part = describe(t);
      // a wrapper that repeats its cause ("Failed to initialize pool: <the driver's>", or its toString()) says nothing more
      parts.removeIf(earlier -> earlier.contains(part) || earlier.equals(current.toString()));
      parts.add(part);
      if (t == last) {
        break; // the driver's words; below them only the socket's ("Connection refused")
      }
    }
    return String.join(": ", parts);
  }

  /** One throwable's first line, or what its type says when it has no message (UnresolvedAddressException). */
  private static String describe(Throwable t) {
    String message = t.getMessage() == null ? "" : t.getMessage().lines().findFirst().orElse("").strip();
    // a JDBC URL may carry the database password; the message goes to the console and container logs
    // ("...?password=secret", or "postgres://user:secret@host/db" as pasted from elsewhere), masked
    // by the log's rule so that the two never differ
    message = MaskedMessageConverter.maskPasswords(message.replaceFirst("^(FATAL|ERROR): ", ""));
    String type = t.getClass().getSimpleName().replaceFirst("Exception$", "")
        .replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    if (t instanceof FileSystemException fs && fs.getReason() == null) {
      return message + ": " + type; // only the file's name otherwise: "/srv/tollgate: file already exists"
    }
    return message.isEmpty() ? type : message;
  }

  @Override
  public Integer call() {
    new CommandLine(this).usage(System.out);
    return 0;
  }

  @Command(name = "serve", description = "Start the gateway (the default command).")
  static final class Serve implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      TollgateConfig config = TollgateConfig.from(environment);
      Tollgate app = Tollgate.start(config, (demo, publicUrl) -> demo.print(spec.commandLine().getOut(), publicUrl));
      Stop stop = new Stop(app::close);
      Runtime.getRuntime().addShutdownHook(new Thread(stop, "shutdown"));
      // The embedded PostgreSQL stops itself from a JVM shutdown hook of its own, which would run
      // alongside ours and take the database away while requests and webhook deliveries drain.
      // So SIGTERM and Ctrl+C drain first, and only then let the JVM exit (and its hooks run).
      for (String name : new String[] {"TERM", "INT"}) {
        try {
          sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> new Thread(
              () -> onStopSignal(stop, System::exit), "shutdown-" + name.toLowerCase(Locale.ROOT)).start());
        } catch (IllegalArgumentException e) {
          // The JVM keeps the signal (-Xrs): only the shutdown hook above stops the service.
          spec.commandLine().getErr().println("warning: SIG" + name + " is not handled (" + e.getMessage()
              + "); on the embedded database a stop may not drain");
        }
      }
      spec.commandLine().getOut().println("Tollgate is running at " + app.publicUrl() + " (Ctrl+C stops it)");
      return stop.awaitStopped() ? 0 : 1;
    }

    /**
     * What SIGTERM or SIGINT does, on a thread of its own: stop the service, then end the process
     * (1 when the stop failed). A second signal, an impatient Ctrl+C or a service manager that
     * repeats its SIGTERM, waits for the stop the first began: it used to end the process at once,
     * its exit running the embedded database's shutdown hook in the middle of the drain.
     */
    static void onStopSignal(Stop stop, java.util.function.IntConsumer exit) {
      int status = 1; // a drain that failed still ends the process
      try {
        status = stop.stop() ? 0 : 1;
      } finally {
        exit.accept(status);
      }
    }
  }

  /** Stops the service once, whoever asks first; every later asker waits until that stop is over. */
  static final class Stop implements Runnable {
    private final Runnable close;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean failed;

    Stop(Runnable close) {
      this.close = close;
    }

    @Override
    public void run() {
      stop();
    }

    /** Stops the service, or waits for the stop under way; whether it went without an error. */
    boolean stop() {
      if (!stopping.getAndSet(true)) {
        try {
          close.run();
        } catch (RuntimeException | Error e) {
          failed = true;
          throw e;
        } finally {
          stopped.countDown();
        }
        return true;
      }
      boolean interrupted = false;
      try {
        while (true) {
          try {
            return awaitStopped();
          } catch (InterruptedException e) {
            // the drain goes on all the same: returning now would let the process exit under it
            interrupted = true;
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /** Waits until the service is stopped; whether it stopped without an error. */
    boolean awaitStopped() throws InterruptedException {
      stopped.await();
      return !failed;
    }
  }

  /** Runs provisioning against the configured database without starting the HTTP server. */
  abstract static class Provisioning implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public final Integer call() throws Exception {
      TollgateConfig config = TollgateConfig.from(environment);
      try (Database db = commandDatabase(config)) {
        ServedEnvironment.check(db, environment(config), environmentSetting());
        requireTheServersMasterKey(config, db);
        return run(config, Tollgate.Services.wire(config, db, config.publicUrlFor(config.port())), spec.commandLine().getOut());
      }
    }

    /** The environment the command acts in: the deployment's, unless an option of the command names another. */
    Environment environment(TollgateConfig config) {
      return config.environment();
    }

    /** What names {@link #environment}, for the refusal on a database that serves the other one. */
    String environmentSetting() {
      return "TOLLGATE_ENVIRONMENT";
    }

    abstract int run(TollgateConfig config, Tollgate.Services services, PrintWriter out);
  }

  /**
   * The configured database, for a command: a small pool. An external one is migrated only while
   * it has no schema yet, and refused at an older version: the older release's instances may still
   * run on it, and the upgrade is the service's, once they are stopped. The embedded one belongs to
   * this process alone while it runs, and is migrated as the service would.
   */
  static Database commandDatabase(TollgateConfig config) {
    return Database.start(new DatabaseSettings(config.dbUrl(), config.dbUser(), config.dbPassword(),
        config.dbUrl() == null ? config.dataDirectory().resolve("postgres") : null, 2,
        DatabaseSettings.COMMAND_START_WAIT),
        config.dbUrl() == null ? Database.Upgrade.ANY : Database.Upgrade.ONLY_A_NEW_DATABASE);
  }

  /**
   * Refuses a command on an external database whose key ring is still empty (no server has
   * started on it yet) when TOLLGATE_MASTER_KEY is not set: the command would seal the database's
   * secrets under a key it makes in its own data directory, and the server, started next with the
   * key it is given, would be refused as holding another master key. The embedded database is its
   * data directory's, and so is the key of that directory.
   */
  static void requireTheServersMasterKey(TollgateConfig config, Database db) {
    if (config.dbUrl() != null && config.masterKey() == null && new MasterKeyRing(db.jdbi()).keys().isEmpty()) {
      throw new IllegalStateException("no server has started on this database yet and TOLLGATE_MASTER_KEY is not "
          + "set: this command would seal the database's secrets under a key of its own data directory, which its "
          + "server would not open; set TOLLGATE_MASTER_KEY to the key its server will use, or start the server "
          + "first");
    }
  }

  @Command(name = "master-key", description = "Rotate the master key (TOLLGATE_MASTER_KEY, or in sandbox the data "
      + "directory's master.key) that opens the database's secrets: `rotate` adds a new one, `retire` then stops the "
      + "others from opening it.",
      subcommands = {MasterKeyCommands.Rotate.class, MasterKeyCommands.Retire.class, MasterKeyCommands.ListKeys.class})
  static final class MasterKeyCommands {

    /** Runs against the database's key ring with this process's master key, without the services. */
    abstract static class RingCommand implements Callable<Integer> {
      @CommandLine.Spec CommandLine.Model.CommandSpec spec;

      @Override
      public final Integer call() throws Exception {
        TollgateConfig config = TollgateConfig.from(environment);
        try (Database db = commandDatabase(config)) {
          // as every command, and before the key is loaded: in sandbox that can write a new one to the data directory
          ServedEnvironment.check(db, config.environment(), "TOLLGATE_ENVIRONMENT");
          requireTheServersMasterKey(config, db);
          return run(config, new MasterKeyRing(db.jdbi()), MasterKey.load(config), spec.commandLine().getOut());
        }
      }

      abstract int run(TollgateConfig config, MasterKeyRing ring, byte[] masterKey, PrintWriter out);
    }

    @Command(name = "rotate", description = "Add a new master key: the database opens with it and with the old one "
        + "until `master-key retire`. Without --new-key one is generated: shown once, or in sandbox without "
        + "TOLLGATE_MASTER_KEY written to the data directory's master.key.")
    static final class Rotate extends RingCommand {
      @Option(names = "--new-key", arity = "0..1", interactive = true,
          description = "base64 of 32 random bytes. Given without a value it is asked for (or read from a pipe), out "
              + "of the process list and the shell's history")
      String newKey;

      @Override
      int run(TollgateConfig config, MasterKeyRing ring, byte[] masterKey, PrintWriter out) {
        byte[] next = newKey == null ? SecretBox.randomKey() : MasterKey.decode(newKey, "--new-key");
        ring.add(masterKey, next);
        if (config.masterKey() == null) {
          java.nio.file.Path file;
          try {
            file = MasterKey.replaceSandboxKey(config, next);
          } catch (UncheckedIOException e) {
            throw new IllegalStateException("the new master key was added to the database, but " + e.getMessage()
                + " (" + e.getCause().getMessage() + "): the old key, still in master.key, opens the database; run "
                + "`master-key rotate` again once the directory can be written");
          }
          out.println("master key rotated: " + file + " holds the new key");
          out.println("The old key opens the database until `master-key retire`.");
          return 0;
        }
        out.println("master key added: the database opens with the new key, and with the old one until "
            + "`master-key retire`");
        if (newKey == null) {
          out.println("  New master key: " + Base64.getEncoder().encodeToString(next));
          out.println("Store it now: it is not shown again.");
        }
        out.println("Next: give every instance the new key as TOLLGATE_MASTER_KEY and restart it, then run "
            + "`master-key retire` with the new key.");
        return 0;
      }
    }

    @Command(name = "retire", description = "Retire the master keys added before this process's, which must be the "
        + "newest: they open the database no more. Run it once every instance runs with this key.")
    static final class Retire extends RingCommand {
      @Override
      int run(TollgateConfig config, MasterKeyRing ring, byte[] masterKey, PrintWriter out) {
        List<String> retired = ring.retire(masterKey);
        String mine = SecretBox.masterKeyId(masterKey);
        if (retired.isEmpty()) {
          out.println("only this master key (" + mine + ") opens the database: none to retire");
        } else {
          out.println("retired " + retired.size() + " master key" + (retired.size() == 1 ? "" : "s") + " ("
              + String.join(", ", retired) + "): only this one (" + mine + ") opens the database now");
        }
        return 0;
      }
    }

    @Command(name = "list", description = "List the master keys that open the database, oldest first, by id (a "
        + "digest, never the key); * marks this process's.")
    static final class ListKeys extends RingCommand {
      @Override
      int run(TollgateConfig config, MasterKeyRing ring, byte[] masterKey, PrintWriter out) {
        String mine = SecretBox.masterKeyId(masterKey);
        List<MasterKeyRing.Entry> keys = ring.keys();
        if (keys.isEmpty()) {
          out.println("no master key recorded yet: the next start of the service records the one it is given");
        }
        for (MasterKeyRing.Entry key : keys) {
          out.println((key.keyId().equals(mine) ? "* " : "  ") + key.keyId() + "\tadded " + key.added());
        }
        return 0;
      }
    }
  }

  @Command(name = "merchant", description = "Manage merchants.", subcommands = MerchantCommands.Create.class)
  static final class MerchantCommands {
    @Command(name = "create", description = "Create a merchant; prints its id.")
    static final class Create extends Provisioning {
      @Option(names = "--name", required = true, description = "merchant name") String name;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        MerchantId id = services.shops().createMerchant(name);
        out.println("merchant " + id.value() + " created");
        return 0;
      }
    }
  }

  @Command(name = "shop", description = "Manage shops.",
      subcommands = {ShopCommands.Create.class, ShopCommands.Update.class, ShopCommands.ListShops.class})
  static final class ShopCommands {
    @Command(name = "create", description = "Create a shop for a merchant; prints its id.")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--name", required = true, description = "shop name") String name;
      @Option(names = "--webhook-url", description = "where webhooks go unless a payment says otherwise") String webhookUrl;
      @Option(names = "--return-url", description = "where the checkout page sends the customer back to") String returnUrl;
      @Option(names = "--checkout-timeout", defaultValue = "PT30M",
          description = "ISO-8601 duration a deposit may wait on the checkout page, in whole seconds from PT1S"
              + " to PT24H (default ${DEFAULT-VALUE})")
      Duration checkoutTimeout;
      // a value is optional, so that `--requires-approval true` works here as it does for `shop update`
      @Option(names = "--check-withdrawal-balance", arity = "0..1",
          description = "decline withdrawals above the available balance (1.10): true (alone too) or false")
      boolean checkBalance;
      @Option(names = "--requires-approval", arity = "0..1",
          description = "withdrawals wait for the merchant's approval: true (alone too) or false")
      boolean requiresApproval;
      @Option(names = "--base-currency", description = "the shop's base currency, e.g. EUR") String baseCurrency;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        if (baseCurrency != null
            && new io.tollgate.domain.money.Currencies(config.cryptoCurrencies()).find(baseCurrency).isEmpty()) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--base-currency: unknown currency " + baseCurrency);
        }
        ShopId id = services.shops().createShop(new CreateShopCommand(new MerchantId(merchant), name,
            webhookUrl, returnUrl, checkoutTimeout, checkBalance, requiresApproval, baseCurrency));
        out.println("shop " + id.value() + " created");
        return 0;
      }
    }

    @Command(name = "update", description = "Change a shop's settings; what is not given stays, an empty URL removes it.")
    static final class Update extends Provisioning {
      @Option(names = "--shop", required = true, description = "shop id") long shop;
      @Option(names = "--webhook-url", description = "where webhooks go unless a payment says otherwise") String webhookUrl;
      @Option(names = "--return-url", description = "where the checkout page sends the customer back to") String returnUrl;
      @Option(names = "--checkout-timeout",
          description = "ISO-8601 duration a deposit may wait on the checkout page, in whole seconds from PT1S"
              + " to PT24H")
      Duration checkoutTimeout;
      @Option(names = "--check-withdrawal-balance", arity = "1", description = "true or false") Boolean checkBalance;
      @Option(names = "--requires-approval", arity = "1", description = "true or false") Boolean requiresApproval;
      @Option(names = "--base-currency", description = "the shop's base currency, e.g. EUR") String baseCurrency;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        if (baseCurrency != null && !baseCurrency.isBlank()
            && new io.tollgate.domain.money.Currencies(config.cryptoCurrencies()).find(baseCurrency).isEmpty()) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--base-currency: unknown currency " + baseCurrency);
        }
        var updated = services.shops().updateShop(new ShopId(shop), new ProvisioningUseCase.UpdateShopCommand(
            webhookUrl, returnUrl, checkoutTimeout, checkBalance, requiresApproval, baseCurrency));
        // the receiver's password, a secret, as the merchant API and the delivery log show it
        out.println("shop " + shop + " updated: webhook URL "
            + (updated.webhookUrl() == null ? "none" : Shop.withoutPassword(updated.webhookUrl()))
            + ", return URL " + (updated.returnUrl() == null ? "none" : updated.returnUrl()) + ", checkout timeout "
            + updated.checkoutTimeout() + ", check withdrawal balance " + updated.checkWithdrawalBalance()
            + ", requires approval " + updated.requiresApproval() + ", base currency "
            + (updated.baseCurrency() == null ? "none" : updated.baseCurrency()));
        return 0;
      }
    }

    @Command(name = "list", description = "List a merchant's shops.")
    static final class ListShops extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        // an unknown merchant is an error, as for the other lists, not a merchant with no shops
        for (Shop shop : services.shops().shopsOf(existingMerchant(services, merchant))) {
          out.printf("%d\t%s\twebhook=%s%n", shop.id().value(), shop.name(), Shop.withoutPassword(shop.webhookUrl()));
        }
        return 0;
      }
    }
  }

  @Command(name = "key", description = "Manage shop keys.", subcommands = KeyCommands.Issue.class)
  static final class KeyCommands {
    @Command(name = "issue", description = "Issue a new API key and signing key for a shop, revoking the old pair. "
        + "The keys are shown once.")
    static final class Issue extends Provisioning {
      @Option(names = "--shop", required = true, description = "shop id") long shop;
      @Option(names = "--environment", description = "sandbox or production (default: the deployment's); once a "
          + "server has started on the database, only the environment it serves") String environment;

      @Override
      Environment environment(TollgateConfig config) {
        try {
          return environment == null ? config.environment() : Environment.parse(environment);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--environment: sandbox or production");
        }
      }

      @Override
      String environmentSetting() {
        return environment == null ? super.environmentSetting() : "--environment";
      }

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        Environment env = environment(config);
        IssuedKeys keys = services.shops().issueKeys(new ShopId(shop), env);
        out.println("shop " + shop + " (" + env.lowerName() + ")");
        out.println("  API key:     " + keys.apiKey());
        out.println("  Signing key: " + keys.signingKey());
        out.println("Store them now: they are not shown again.");
        return 0;
      }
    }
  }

  @Command(name = "user", description = "Manage merchant users (merchant API sign-in). A change to a user reaches "
      + "running servers within 5 seconds.",
      subcommands = {UserCommands.Create.class, UserCommands.ListUsers.class, UserCommands.Disable.class,
          UserCommands.Enable.class, UserCommands.SetPermissions.class, UserCommands.SetShopGroup.class,
          UserCommands.ResetPassword.class})
  static final class UserCommands {

    static Set<Permission> permissions(CommandLine.Model.CommandSpec spec, String list) {
      try {
        return Permission.parseList(list);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--permissions: unknown permission in '" + list + "'");
      }
    }

    static String describe(Set<Permission> permissions) {
      return permissions.isEmpty() ? "(none)" : permissions.toString();
    }

    static String describeScope(Long shopGroup) {
      return shopGroup == null ? "every shop of its merchant" : "the shops of shop group " + shopGroup;
    }

    @Command(name = "create", description = "Create a merchant user. Without --password one is generated and "
        + "shown once.")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--email", required = true, description = "sign-in e-mail address") String email;
      @Option(names = "--password", arity = "0..1", interactive = true,
          description = "12 characters to 72 bytes (bcrypt reads no more); prefer the generated one. Given without a "
              + "value it is asked for (or read from a pipe), out of the process list and the shell's history")
      String password;
      @Option(names = "--permissions", defaultValue = "",
          description = "comma-separated: SHOP_GROUP_VIEW, SHOP_GROUP_EDIT, SHOP_EDIT, SETTINGS_EDIT, or ALL")
      String permissions;
      @Option(names = "--shop-group",
          description = "scope the user to this shop group of the merchant: it sees only the group's shops") Long shopGroup;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        Set<Permission> granted = permissions(spec, permissions);
        var created = services.users().create(new MerchantId(merchant), email, password, granted, shopGroup);
        out.println("user " + created.user().email() + " created for merchant " + merchant
            + " with permissions " + describe(granted) + ", seeing " + describeScope(shopGroup));
        if (password == null) {
          out.println("  Password: " + created.password());
          out.println("Store it now: it is not shown again.");
        }
        return 0;
      }
    }

    @Command(name = "list", description = "List a merchant's users: e-mail address, permissions, whether disabled, "
        + "and the shop group each is scoped to (\"-\" for every shop).")
    static final class ListUsers extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        for (var listed : services.users().users(new MerchantId(merchant))) {
          var user = listed.user();
          out.printf("%s\tpermissions=%s\tdisabled=%s\tshopGroup=%s%n", user.email(),
              user.permissions().stream().map(Enum::name).sorted().collect(java.util.stream.Collectors.joining(",")),
              listed.disabled(), user.shopGroupId() == null ? "-" : user.shopGroupId());
        }
        return 0;
      }
    }

    @Command(name = "set-shop-group", description = "Scope a merchant user to a shop group of its merchant (it then "
        + "sees only the records of the group's shops), or with --none let it see every shop again.")
    static final class SetShopGroup extends Provisioning {
      @Option(names = "--email", required = true, description = "the user's e-mail address") String email;
      @CommandLine.ArgGroup(exclusive = true, multiplicity = "1") Scope scope;

      static final class Scope {
        @Option(names = "--shop-group", required = true, description = "shop group id") Long shopGroup;
        @Option(names = "--none", required = true, description = "take the scope away: every shop of the merchant")
        boolean none;
      }

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        Long group = scope.none ? null : scope.shopGroup;
        services.users().setShopGroup(email, group);
        out.println("user " + email.strip().toLowerCase(Locale.ROOT) + " now sees " + describeScope(group));
        return 0;
      }
    }

    @Command(name = "disable", description = "Disable a merchant user: its credentials are refused (401) until it is "
        + "enabled again.")
    static final class Disable extends Provisioning {
      @Option(names = "--email", required = true, description = "the user's e-mail address") String email;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        services.users().setEnabled(email, false);
        out.println("user " + email.strip().toLowerCase(Locale.ROOT) + " disabled");
        return 0;
      }
    }

    @Command(name = "enable", description = "Enable a disabled merchant user again.")
    static final class Enable extends Provisioning {
      @Option(names = "--email", required = true, description = "the user's e-mail address") String email;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        services.users().setEnabled(email, true);
        out.println("user " + email.strip().toLowerCase(Locale.ROOT) + " enabled");
        return 0;
      }
    }

    @Command(name = "set-permissions", description = "Replace a merchant user's permissions (an empty list takes "
        + "them all away).")
    static final class SetPermissions extends Provisioning {
      @Option(names = "--email", required = true, description = "the user's e-mail address") String email;
      @Option(names = "--permissions", required = true,
          description = "comma-separated: SHOP_GROUP_VIEW, SHOP_GROUP_EDIT, SHOP_EDIT, SETTINGS_EDIT, ALL, or \"\" for none")
      String permissions;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        Set<Permission> granted = permissions(spec, permissions);
        services.users().setPermissions(email, granted);
        out.println("user " + email.strip().toLowerCase(Locale.ROOT) + " now has permissions " + describe(granted));
        return 0;
      }
    }

    @Command(name = "reset-password", description = "Give a merchant user a new password; the old one stops working. "
        + "Without --password one is generated and shown once.")
    static final class ResetPassword extends Provisioning {
      @Option(names = "--email", required = true, description = "the user's e-mail address") String email;
      @Option(names = "--password", arity = "0..1", interactive = true,
          description = "12 characters to 72 bytes (bcrypt reads no more); prefer the generated one. Given without a "
              + "value it is asked for (or read from a pipe), out of the process list and the shell's history")
      String password;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        String secret = services.users().resetPassword(email, password);
        out.println("password of user " + email.strip().toLowerCase(Locale.ROOT) + " reset");
        if (password == null) {
          out.println("  Password: " + secret);
          out.println("Store it now: it is not shown again.");
        }
        return 0;
      }
    }
  }

  @Command(name = "group", description = "Manage a merchant's entry groups.",
      subcommands = {GroupCommands.Create.class, GroupCommands.History.class})
  static final class GroupCommands {
    @Command(name = "create", description = "Create an entry group; prints its id. Its entries are edited through "
        + "the merchant API.")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--type", required = true,
          description = "one of: ${COMPLETION-CANDIDATES}") GroupKind type;
      @Option(names = "--name", required = true, description = "group name") String name;
      @Option(names = "--masked", description = "a card group of masked numbers instead of full card numbers")
      boolean masked;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        var group = services.groups().create(new MerchantId(merchant), type, name, masked);
        // a group of that name and kind is the answer when there is one, as for shop groups
        out.println(type.name().toLowerCase(java.util.Locale.ROOT) + " group " + group.id()
            + " created (or already there by that name)");
        return 0;
      }
    }

    @Command(name = "history", description = "Show who changed a merchant's entry groups and shop groups, newest "
        + "first: time (UTC), user, ADD or REMOVE, the group, and the entries that changed (card numbers masked, "
        + "a shop group's shop ids). An edit that changed nothing is not shown.")
    static final class History extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--group", description = "only this group's edits (with --type for a shop group, whose ids "
          + "are counted apart)") Long group;
      @Option(names = "--type", description = "only groups of this type: BIN, EMAIL, CARD, COUNTRY, ERROR_CODE or SHOP")
      String type;
      @Option(names = "--limit", defaultValue = "100", description = "at most this many edits (default: ${DEFAULT-VALUE})")
      int limit;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        String kind = type == null ? null : type.strip().toUpperCase(java.util.Locale.ROOT);
        if (kind != null && !kind.equals("SHOP")
            && java.util.Arrays.stream(GroupKind.values()).noneMatch(k -> k.name().equals(kind))) {
          throw new CommandLine.ParameterException(spec.commandLine(),
              "--type: one of BIN, EMAIL, CARD, COUNTRY, ERROR_CODE or SHOP, not '" + type + "'");
        }
        if (limit < 1 || limit > 10_000) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--limit: 1 to 10000");
        }
        MerchantId owner = existingMerchant(services, merchant);
        for (var e : services.persistence().groups().edits(owner, group, kind, limit)) {
          out.printf("%s\t%s\t%s\t%s group %d%s\t%s%n", e.edited().truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
              e.editedBy(), e.action(), e.groupKind(), e.groupId(),
              e.groupName() == null ? "" : " (" + e.groupName() + ")", String.join(", ", e.entries()));
        }
        return 0;
      }
    }
  }

  @Command(name = "import", description = "Import reference data from a CSV file (header row) or a JSON array: "
      + "bins, currency-rates, bank-codes, bank-code-mappings, counterparties. The whole file is checked first; "
      + "a file with any bad row imports nothing.")
  static final class ImportCommand extends Provisioning {
    @CommandLine.Parameters(index = "0", description = "bins | currency-rates | bank-codes | bank-code-mappings | counterparties")
    String kind;
    @Option(names = "--file", required = true, description = "the CSV or JSON file") java.nio.file.Path file;
    @Option(names = "--merchant", description = "merchant id (counterparties)") Long merchant;

    @Override
    int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
      ReferenceImport.Kind k;
      try {
        k = ReferenceImport.Kind.parse(kind);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "unknown kind '" + kind
            + "': bins, currency-rates, bank-codes, bank-code-mappings or counterparties");
      }
      try {
        var importer = new ReferenceImport(services.persistence().referenceData(),
            services.persistence().transactionRunner(), new io.tollgate.domain.money.Currencies(config.cryptoCurrencies()));
        int n = importer.importRows(k, ReferenceImport.rows(java.nio.file.Files.readString(file)),
            merchant == null ? null : new MerchantId(merchant));
        out.println(n + " " + kind + " imported");
        return 0;
      } catch (java.nio.file.NoSuchFileException e) {
        // a file that is not there, or not readable, is no misuse of the command: one line, exit 1
        throw new IllegalArgumentException("cannot read " + file + ": no such file");
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
      } catch (ReferenceImport.ImportFailed e) {
        spec.commandLine().getErr().println("nothing imported:\n" + e.getMessage());
        return 1;
      }
    }
  }

  @Command(name = "terminal", description = "Manage terminals (a merchant's accounts at acquirers).",
      subcommands = {TerminalCommands.Create.class, TerminalCommands.SetApiTypes.class, TerminalCommands.ListTerminals.class})
  static final class TerminalCommands {

    static final String API_TYPES = "what the acquirer's API does, and so which payments are routed to it: DEPOSIT,"
        + " WITHDRAWAL, REFUND, BALANCE";

    static java.util.List<String> apiTypes(CommandLine.Model.CommandSpec spec, String list) {
      java.util.List<String> types = java.util.Arrays.stream(list.split(",")).map(String::strip)
          .map(t -> t.toUpperCase(java.util.Locale.ROOT)).distinct().toList();
      for (String t : types) {
        if (!java.util.Set.of("DEPOSIT", "WITHDRAWAL", "REFUND", "BALANCE").contains(t)) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--api-types: unknown type " + t);
        }
      }
      return types;
    }

    @Command(name = "create", description = "Create a terminal; prints its id. Its name must differ from those of "
        + "the merchant's other terminals in more than case.")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--name", required = true, description = "terminal name, shown on payments") String name;
      @Option(names = "--provider", defaultValue = "Tollgate Sandbox", description = "acquirer (default ${DEFAULT-VALUE})")
      String provider;
      @Option(names = "--api-types", defaultValue = "DEPOSIT,WITHDRAWAL,REFUND",
          description = API_TYPES + " (default ${DEFAULT-VALUE})")
      String apiTypes;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        // shown on every payment, and kept in a unique index (V27) that takes no key much over 2 KB
        if (name.isBlank() || name.length() > 255) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--name: 1 to 255 characters, not blank");
        }
        java.util.List<String> types = apiTypes(spec, apiTypes);
        long id = services.persistence().referenceData().createTerminal(new io.tollgate.application.port.out.ReferenceData
            .Terminal(0, existingMerchant(services, merchant), name, "ACTIVE", provider, "SANDBOX", "Tollgate sandbox acquirer",
            types, java.time.Instant.now()));
        out.println("terminal " + id + " created");
        return 0;
      }
    }

    @Command(name = "list", description = "List a merchant's terminals: id, name, state, provider and API types.")
    static final class ListTerminals extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        var reference = services.persistence().referenceData();
        MerchantId owner = existingMerchant(services, merchant);
        int page = 1000;
        for (int offset = 0; ; offset += page) {
          var terminals = reference.terminals(owner, offset, page);
          for (var t : terminals) {
            out.printf("%d\t%s\tstate=%s\tprovider=%s\tapiTypes=%s%n", t.id(), t.name(), t.state(), t.providerName(),
                String.join(",", t.apiTypes()));
          }
          if (terminals.size() < page) {
            return 0;
          }
        }
      }
    }

    @Command(name = "set-api-types", description = "Replace a terminal's API types. Routing reads them from the "
        + "terminal, so they apply to every connector to it; a running server sees the change within 5 seconds.")
    static final class SetApiTypes extends Provisioning {
      @Option(names = "--terminal", required = true, description = "terminal id") long terminal;
      @Option(names = "--api-types", required = true, description = API_TYPES) String apiTypes;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        java.util.List<String> types = apiTypes(spec, apiTypes);
        var reference = services.persistence().referenceData();
        if (!reference.setTerminalApiTypes(terminal, types)) {
          throw new DomainException.Invalid(io.tollgate.domain.Violation.of("terminal", "does not exist", terminal));
        }
        out.println("terminal " + terminal + " now has API types " + String.join(",", types));
        return 0;
      }
    }
  }

  static MerchantId existingMerchant(Tollgate.Services services, long id) {
    MerchantId merchant = new MerchantId(id);
    if (!services.persistence().shops().merchantExists(merchant)) {
      throw new DomainException.Invalid(io.tollgate.domain.Violation.of("merchant", "does not exist", id));
    }
    return merchant;
  }

  @Command(name = "connector", description = "Route a shop's payments to a terminal.",
      subcommands = {ConnectorCommands.Create.class, ConnectorCommands.ListConnectors.class,
          ConnectorCommands.SetState.class})
  static final class ConnectorCommands {
    @Command(name = "set-state", description = "Take a connector out of routing (INACTIVE) or put it back (ACTIVE); "
        + "payments already routed to its terminal finish there.")
    static final class SetState extends Provisioning {
      @Option(names = "--connector", required = true, description = "connector id (connector list)") long connector;
      @Option(names = "--state", required = true, description = "ACTIVE or INACTIVE") String state;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        String s = state.strip().toUpperCase(java.util.Locale.ROOT);
        if (!s.equals("ACTIVE") && !s.equals("INACTIVE")) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--state: ACTIVE or INACTIVE");
        }
        var changed = services.persistence().referenceData().setConnectorState(connector, s).orElseThrow(() ->
            new DomainException.Invalid(io.tollgate.domain.Violation.of("connector", "does not exist", connector)));
        out.println("connector " + changed.id() + " of shop " + changed.shopId() + " is " + changed.state());
        return 0;
      }
    }

    @Command(name = "list", description = "List a shop's connectors by priority (routing tries the lowest first): id, "
        + "terminal, state, payment method, currency, priority, weight, amount range and cascade groups.")
    static final class ListConnectors extends Provisioning {
      @Option(names = "--shop", required = true, description = "shop id") long shop;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        if (services.persistence().shops().find(new ShopId(shop)).isEmpty()) {
          throw new DomainException.Invalid(io.tollgate.domain.Violation.of("shop", "does not exist", shop));
        }
        // every connector, an inactive one too: set-state puts it back
        var connectors = new java.util.ArrayList<>(services.persistence().referenceData().allConnectorsOf(shop));
        connectors.sort(java.util.Comparator.comparingInt(ReferenceData.Connector::priority)
            .thenComparingLong(ReferenceData.Connector::id));
        for (var c : connectors) {
          out.printf("%d\tterminal=%d %s\tstate=%s\t%s %s\tpriority=%d\tweight=%d\tamounts=%s..%s"
                  + "\tcascadeOn=%s\tneverCascadeOn=%s%n", c.id(), c.terminalId(), c.terminalName(), c.state(),
              c.paymentMethod(), c.terminalCurrency(), c.priority(), c.weight(),
              c.minAmount() == null ? "" : c.minAmount().toPlainString(),
              c.maxAmount() == null ? "" : c.maxAmount().toPlainString(),
              c.cascadingWhitelistGroupId() == null ? "-" : c.cascadingWhitelistGroupId(),
              c.cascadingBlacklistGroupId() == null ? "-" : c.cascadingBlacklistGroupId());
        }
        return 0;
      }
    }

    @Command(name = "create", description = "Create a connector; prints its id.")
    static final class Create extends Provisioning {
      @Option(names = "--shop", required = true, description = "shop id") long shop;
      @Option(names = "--terminal", required = true, description = "terminal id") long terminal;
      @Option(names = "--currency", required = true, description = "the terminal's currency, e.g. EUR") String currency;
      @Option(names = "--payment-method", defaultValue = "BASIC_CARD", description = "BASIC_CARD or BANKTRANSFER")
      String method;
      @Option(names = "--priority", defaultValue = "1", description = "lower goes first (default ${DEFAULT-VALUE})") int priority;
      @Option(names = "--weight", defaultValue = "100", description = "share among connectors of one priority") int weight;
      @Option(names = "--min-amount", description = "smallest amount routed here, in the terminal's currency (inclusive)")
      java.math.BigDecimal min;
      @Option(names = "--max-amount", description = "largest amount routed here, in the terminal's currency (inclusive)")
      java.math.BigDecimal max;
      @Option(names = "--cascade-on", description = "error-code group: declines with these codes move to the next connector")
      Long cascadeOn;
      @Option(names = "--never-cascade-on", description = "error-code group: declines with these codes never cascade")
      Long neverCascadeOn;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        var shopRecord = services.persistence().shops().find(new ShopId(shop)).orElseThrow(() ->
            new DomainException.Invalid(io.tollgate.domain.Violation.of("shop", "does not exist", shop)));
        var term = services.persistence().referenceData().terminal(terminal)
            .filter(t -> t.merchantId().equals(shopRecord.merchantId())).orElseThrow(() ->
                new DomainException.Invalid(io.tollgate.domain.Violation.of("terminal", "is not a terminal of the shop's merchant", terminal)));
        var terminalCurrency = new io.tollgate.domain.money.Currencies(config.cryptoCurrencies()).find(currency)
            .orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(), "--currency: unknown currency " + currency));
        if (!method.equals("BASIC_CARD") && !method.equals("BANKTRANSFER")) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--payment-method: BASIC_CARD or BANKTRANSFER");
        }
        checkAmounts(terminalCurrency);
        if (weight < 0) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--weight: must not be negative");
        }
        if (priority < 0) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--priority: must not be negative");
        }
        if (neverCascadeOn != null && cascadeOn == null) {
          // a decline cascades only when its code is in --cascade-on: alone, this group would do nothing
          throw new CommandLine.ParameterException(spec.commandLine(),
              "--never-cascade-on needs --cascade-on: a decline cascades only when its code is in the --cascade-on group");
        }
        for (Long g : new Long[] {cascadeOn, neverCascadeOn}) {
          if (g != null && services.persistence().groups().find(g)
              .filter(x -> x.kind() == GroupKind.ERROR_CODE && x.merchantId().equals(shopRecord.merchantId())).isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "group " + g + " is not an error-code group of the merchant");
          }
        }
        // no terminal name or API types: a connector stores neither, routing reads the terminal's
        long id = services.persistence().referenceData().createConnector(new io.tollgate.application.port.out.ReferenceData
            .Connector(0, shop, term.id(), null, "ACTIVE", method, currency, priority, weight, min, max,
            cascadeOn, neverCascadeOn, null), java.time.Instant.now());
        out.println("connector " + id + " created");
        return 0;
      }

      /**
       * A minimum above the maximum would decline every payment routed here (1.08), and a bound
       * finer than the currency's minor unit (10.5 JPY) names an amount no payment can have.
       */
      private void checkAmounts(io.tollgate.domain.money.Currency terminalCurrency) {
        var problems = new java.util.ArrayList<io.tollgate.domain.Violation>();
        checkAmount(problems, "--min-amount", min, terminalCurrency);
        checkAmount(problems, "--max-amount", max, terminalCurrency);
        if (min != null && max != null && min.compareTo(max) > 0) {
          problems.add(io.tollgate.domain.Violation.of("--max-amount", "must not be below --min-amount (" + min.toPlainString()
              + "): no amount would be routed here", max));
        }
        if (!problems.isEmpty()) {
          throw new DomainException.Invalid("Invalid connector amounts", problems);
        }
      }

      private static void checkAmount(java.util.List<io.tollgate.domain.Violation> problems, String option,
          java.math.BigDecimal amount, io.tollgate.domain.money.Currency terminalCurrency) {
        if (amount != null && amount.signum() < 0) {
          problems.add(io.tollgate.domain.Violation.of(option, "must not be negative", amount));
        }
        if (amount != null && !io.tollgate.domain.money.Money.fitsScale(amount, terminalCurrency)) {
          problems.add(io.tollgate.domain.Violation.of(option, "has more decimals than " + terminalCurrency + " has ("
              + terminalCurrency.scale() + ")", amount));
        }
      }
    }
  }

  @Command(name = "antifraud-profile", description = "Manage anti-fraud profiles.",
      subcommands = {AntifraudCommands.Create.class, AntifraudCommands.Attach.class})
  static final class AntifraudCommands {
    @Command(name = "create", description = "Create a profile with its rules; prints its id. A rule is TYPE=GROUP_ID "
        + "(BIN_BLACKLIST, CARD_BLACKLIST, CARD_WHITELIST, EMAIL_BLACKLIST, CARD_COUNTRY_RESTRICTED, "
        + "BILLING_COUNTRY_RESTRICTED, CITIZENSHIP_COUNTRY_RESTRICTED) or TYPE=COUNT/MINUTES "
        + "(COMPLETED_DEPOSITS_PER_CARD, DECLINED_DEPOSITS_PER_CARD).")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--name", required = true, description = "profile name") String name;
      @Option(names = "--rule", description = "a rule, repeatable") java.util.List<String> rules = new java.util.ArrayList<>();

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        MerchantId owner = existingMerchant(services, merchant);
        var parsed = new java.util.ArrayList<io.tollgate.application.port.out.ReferenceData.AntifraudRule>();
        for (String rule : rules) {
          parsed.add(AntifraudRules.parse(rule, owner, services.persistence().groups()));
        }
        var reference = services.persistence().referenceData();
        long id = services.persistence().transactionRunner().inTransaction(() -> {
          long profile = reference.createAntifraudProfile(owner, name, "UTC", java.time.Instant.now());
          parsed.forEach(r -> reference.addAntifraudRule(profile, r));
          return profile;
        });
        out.println("antifraud profile " + id + " created");
        return 0;
      }
    }

    @Command(name = "attach", description = "Attach a profile to a shop (its next payments are checked).")
    static final class Attach extends Provisioning {
      @Option(names = "--shop", required = true, description = "shop id") long shop;
      @Option(names = "--profile", required = true, description = "profile id") long profile;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        var shopRecord = services.persistence().shops().find(new ShopId(shop)).orElseThrow(() ->
            new DomainException.Invalid(io.tollgate.domain.Violation.of("shop", "does not exist", shop)));
        services.persistence().referenceData().antifraudProfile(profile)
            .filter(p -> p.merchantId().equals(shopRecord.merchantId())).orElseThrow(() ->
                new DomainException.Invalid(io.tollgate.domain.Violation.of("profile", "is not a profile of the shop's merchant", profile)));
        services.persistence().referenceData().attachAntifraudProfile(shop, profile);
        out.println("antifraud profile " + profile + " attached to shop " + shop);
        return 0;
      }
    }
  }

  @Command(name = "shop-group", description = "Manage shop groups.", subcommands = ShopGroupCommands.Create.class)
  static final class ShopGroupCommands {
    @Command(name = "create", description = "Create a shop group; prints its id.")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--name", required = true, description = "group name") String name;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        if (name.isBlank() || name.strip().length() > 128) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--name: must be 1 to 128 characters");
        }
        long id = services.persistence().referenceData().createShopGroup(existingMerchant(services, merchant),
            name.strip(), java.time.Instant.now());
        // a group of that name already is the answer, as for entry groups
        out.println("shop group " + id + " created (or already there by that name)");
        return 0;
      }
    }
  }
}
