package io.tollgate.bootstrap;

import io.tollgate.domain.shop.Environment;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseEnvironment;

/**
 * A database serves one environment, recorded by the first server that starts on it: a server of
 * the other one refuses to start there, and a command refuses to act in the other one. Payments,
 * balances, the webhook outbox and the jobs' queues are not kept apart by environment, so a
 * sandbox server on a production database would work production's payments with the sandbox
 * acquirer and policies.
 */
final class ServedEnvironment {

  private ServedEnvironment() {}

  /**
   * At a server's start, before it works anything: refuses a database that serves the other
   * environment, then opens the database's secrets with {@code unlock} and only then records
   * {@code server} on a database that serves no environment yet. A server that cannot open them
   * (one started by mistake on a new database of the other environment, without its master key)
   * used to record its own environment first, and that database's own server was then refused.
   * Returns what {@code unlock} gives.
   *
   * @throws IllegalStateException when the database serves the other environment
   */
  static <T> T claim(Database database, Environment server, java.util.function.Supplier<T> unlock) {
    DatabaseEnvironment record = new DatabaseEnvironment(database.jdbi());
    // the refusal that says what is wrong, rather than the other environment's master key refused
    record.recorded().filter(served -> served != server).ifPresent(served -> {
      throw new IllegalStateException(refusal(served, server, "this server runs in", "TOLLGATE_ENVIRONMENT"));
    });
    T unlocked = unlock.get();
    Environment served = record.claim(server);
    if (served != server) {
      throw new IllegalStateException(refusal(served, server, "this server runs in", "TOLLGATE_ENVIRONMENT"));
    }
    return unlocked;
  }

  /**
   * For a command acting in {@code command}, as {@code setting} says: allowed on a database that
   * serves no environment yet (provisioning before the first start), which it leaves so, for the
   * first server to take.
   *
   * @throws IllegalStateException when the database serves the other environment
   */
  static void check(Database database, Environment command, String setting) {
    new DatabaseEnvironment(database.jdbi()).recorded().filter(served -> served != command).ifPresent(served -> {
      throw new IllegalStateException(refusal(served, command, "this command acts in", setting));
    });
  }

  private static String refusal(Environment served, Environment asked, String who, String setting) {
    String fix = setting.startsWith("--") ? "give " + setting + " " + served.lowerName()
        : "set " + setting + "=" + served.lowerName();
    return "this database serves " + served.lowerName() + ", and " + who + " " + asked.lowerName() + " (" + setting
        + "): sandbox and production each need a database of their own; point TOLLGATE_DB_URL at the "
        + asked.lowerName() + " database, or " + fix;
  }
}
