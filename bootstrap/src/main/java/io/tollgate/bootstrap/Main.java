package io.tollgate.bootstrap;

import io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand;
import io.tollgate.application.port.in.ProvisioningUseCase.IssuedKeys;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.Environment;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.Permission;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tollgate <command>}: the server and the operator's provisioning commands. */
@Command(name = "tollgate", mixinStandardHelpOptions = true, version = "Tollgate 0.1.0",
    description = "A self-hostable payment gateway. Configuration comes from TOLLGATE_* environment variables.",
    subcommands = {Main.Serve.class, Main.MerchantCommands.class, Main.ShopCommands.class, Main.UserCommands.class, Main.GroupCommands.class,
        Main.KeyCommands.class})
public final class Main implements Callable<Integer> {

  /** The environment the commands read their configuration from; tests pass their own. */
  private static volatile Map<String, String> environment = System.getenv();

  public static void main(String[] args) {
    org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
    org.slf4j.bridge.SLF4JBridgeHandler.install();
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true), System.getenv()));
  }

  static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env) {
    environment = env;
    CommandLine cli = new CommandLine(new Main());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof DomainException.Invalid invalid) {
        err.println("error: " + invalid.getMessage());
        invalid.violations().forEach(v -> err.println("  " + v.field() + ": " + v.message()));
      } else if (e instanceof DomainException || e instanceof IllegalArgumentException) {
        err.println("error: " + e.getMessage());
      } else {
        throw e;
      }
      return 1;
    });
    return cli.execute(args.length == 0 ? new String[] {"serve"} : args);
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
      Tollgate app = Tollgate.start(config);
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        app.close();
        stopped.countDown();
      }, "shutdown"));
      DemoSeed.seedIfFresh(config, app.services()).ifPresent(demo -> demo.print(spec.commandLine().getOut(), app.publicUrl()));
      spec.commandLine().getOut().println("Tollgate is running at " + app.publicUrl() + " (Ctrl+C stops it)");
      stopped.await();
      return 0;
    }
  }

  /** Runs provisioning against the configured database without starting the HTTP server. */
  abstract static class Provisioning implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public final Integer call() throws Exception {
      TollgateConfig config = TollgateConfig.from(environment);
      try (Database db = Database.start(new DatabaseSettings(config.dbUrl(), config.dbUser(),
          config.dbPassword(), config.dbUrl() == null ? config.dataDirectory().resolve("postgres") : null, 2))) {
        return run(config, Tollgate.Services.wire(config, db, config.publicUrlFor(config.port())), spec.commandLine().getOut());
      }
    }

    abstract int run(TollgateConfig config, Tollgate.Services services, PrintWriter out);
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

  @Command(name = "shop", description = "Manage shops.", subcommands = {ShopCommands.Create.class, ShopCommands.ListShops.class})
  static final class ShopCommands {
    @Command(name = "create", description = "Create a shop for a merchant; prints its id.")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--name", required = true, description = "shop name") String name;
      @Option(names = "--webhook-url", description = "where webhooks go unless a payment says otherwise") String webhookUrl;
      @Option(names = "--return-url", description = "where the checkout page sends the customer back to") String returnUrl;
      @Option(names = "--checkout-timeout", defaultValue = "PT30M",
          description = "ISO-8601 duration a deposit may wait on the checkout page (default ${DEFAULT-VALUE})")
      Duration checkoutTimeout;
      @Option(names = "--check-withdrawal-balance", description = "decline withdrawals above the available balance (1.10)") boolean checkBalance;
      @Option(names = "--requires-approval", description = "withdrawals wait for the merchant's approval") boolean requiresApproval;
      @Option(names = "--base-currency", description = "the shop's base currency, e.g. EUR") String baseCurrency;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        ShopId id = services.shops().createShop(new CreateShopCommand(new MerchantId(merchant), name,
            webhookUrl, returnUrl, checkoutTimeout, checkBalance, requiresApproval, baseCurrency));
        out.println("shop " + id.value() + " created");
        return 0;
      }
    }

    @Command(name = "list", description = "List a merchant's shops.")
    static final class ListShops extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        for (Shop shop : services.shops().shopsOf(new MerchantId(merchant))) {
          out.printf("%d\t%s\twebhook=%s%n", shop.id().value(), shop.name(), shop.webhookUrl());
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
      @Option(names = "--environment", description = "sandbox or production (default: the deployment's)") String environment;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        Environment env = environment == null ? config.environment() : Environment.parse(environment);
        IssuedKeys keys = services.shops().issueKeys(new ShopId(shop), env);
        out.println("shop " + shop + " (" + env.lowerName() + ")");
        out.println("  API key:     " + keys.apiKey());
        out.println("  Signing key: " + keys.signingKey());
        out.println("Store them now: they are not shown again.");
        return 0;
      }
    }
  }

  @Command(name = "user", description = "Manage merchant users (merchant API sign-in).", subcommands = UserCommands.Create.class)
  static final class UserCommands {
    @Command(name = "create", description = "Create a merchant user. Without --password one is generated and "
        + "shown once.")
    static final class Create extends Provisioning {
      @Option(names = "--merchant", required = true, description = "merchant id") long merchant;
      @Option(names = "--email", required = true, description = "sign-in e-mail address") String email;
      @Option(names = "--password", description = "12 to 128 characters; prefer the generated one") String password;
      @Option(names = "--permissions", defaultValue = "",
          description = "comma-separated: SHOP_GROUP_VIEW, SHOP_GROUP_EDIT, SHOP_EDIT, SETTINGS_EDIT, or ALL")
      String permissions;

      @Override
      int run(TollgateConfig config, Tollgate.Services services, PrintWriter out) {
        Set<Permission> granted;
        try {
          granted = Permission.parseList(permissions);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(spec.commandLine(),
              "--permissions: unknown permission in '" + permissions + "'");
        }
        var created = services.users().create(new MerchantId(merchant), email, password, granted);
        out.println("user " + created.user().email() + " created for merchant " + merchant
            + " with permissions " + (granted.isEmpty() ? "(none)" : granted));
        if (password == null) {
          out.println("  Password: " + created.password());
          out.println("Store it now: it is not shown again.");
        }
        return 0;
      }
    }
  }

  @Command(name = "group", description = "Manage a merchant's entry groups.", subcommands = GroupCommands.Create.class)
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
        out.println(type.name().toLowerCase(java.util.Locale.ROOT) + " group " + group.id() + " created");
        return 0;
      }
    }
  }
}
