package io.tollgate.bench;

import io.tollgate.bootstrap.Tollgate;
import io.tollgate.bootstrap.TollgateConfig;
import io.tollgate.domain.user.Permission;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * How fast the list endpoints answer on a large table: seeds N payments (default 1,000,000,
 * spread over the last N seconds) with one operation each, for one merchant with two shops, then
 * times pages of the merchant and gateway lists over real HTTP and prints the query plans.
 *
 * <p>Run: {@code ./mvnw -q -Pbench -DskipTests install && ./mvnw -q -Pbench -pl bench exec:java}
 * (add {@code -Dexec.args=200000} for a smaller table).
 */
public final class ListQueriesBench {

  private static final DateTimeFormatter FILTER = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    // The database of a million payments is over a GB: it goes with the run.
    Path dir = Files.createTempDirectory("tollgate-bench");
    try {
      run(rows, dir);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void run(int rows, Path dir) throws Exception {
    Map<String, String> env = Map.of("TOLLGATE_PORT", "0", "TOLLGATE_HOST", "127.0.0.1",
        "TOLLGATE_DATA_DIR", dir.toString(), "TOLLGATE_JOB_INTERVAL", "PT60S", "TOLLGATE_RATE_LIMIT", "0");
    try (Database db = Database.start(new DatabaseSettings(null, null, null, dir.resolve("postgres"), 16));
        Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
      var shops = app.services().shops();
      var merchant = shops.createMerchant("Bench Merchant");
      var shopA = shops.createShop(new io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand(
          merchant, "Bench A", null, null, null, false, false, "EUR"));
      var shopB = shops.createShop(new io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand(
          merchant, "Bench B", null, null, null, false, false, "EUR"));
      String apiKey = shops.issueKeys(shopA, app.services().environment()).apiKey();
      String password = app.services().users().create(merchant, "bench@tollgate.test", null,
          EnumSet.allOf(Permission.class)).password();

      long t0 = System.nanoTime();
      db.jdbi().useHandle(h -> {
        h.execute("""
            INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth,
                created, updated, version)
            SELECT md5(i::text), CASE WHEN i % 2 = 0 THEN ? ELSE ? END, 'DEPOSIT',
                (ARRAY['COMPLETED','DECLINED','CANCELLED'])[1 + i % 3], 'BASIC_CARD', 1 + i % 1000, 'EUR', false,
                now() - i * interval '1 second', now() - i * interval '1 second', 1
            FROM generate_series(1, ?) i
            """, shopA.value(), shopB.value(), rows);
        h.execute("""
            INSERT INTO payment_operations (payment_id, shop_id, operation, started, completed, payment_state)
            SELECT id, shop_id, 'CREATE_PAYMENT', created, created, state FROM payments
            """);
        h.execute("ANALYZE payments");
        h.execute("ANALYZE payment_operations");
      });
      System.out.printf("seeded %,d payments and operations in %.1f s%n", rows, (System.nanoTime() - t0) / 1e9);

      String since = LocalDateTime.now(ZoneOffset.UTC).minusSeconds(rows + 60L).format(FILTER);
      String merchantAuth = "Basic " + Base64.getEncoder().encodeToString(
          ("bench@tollgate.test:" + password).getBytes(StandardCharsets.UTF_8));
      Map<String, String[]> cases = new LinkedHashMap<>();
      cases.put("merchant payments, first page", new String[] {"/merchant-api/v1/payments?limit=50", merchantAuth});
      cases.put("merchant payments, whole table, offset 10000", new String[] {
          "/merchant-api/v1/payments?limit=50&offset=10000&created.gte=" + since, merchantAuth});
      cases.put("merchant payments, limit 1000", new String[] {
          "/merchant-api/v1/payments?limit=1000&created.gte=" + since, merchantAuth});
      cases.put("merchant operations, CREATE_PAYMENT of COMPLETED", new String[] {
          "/merchant-api/v1/operations?limit=50&operation.in=CREATE_PAYMENT&paymentState.in=COMPLETED&completed.gte="
              + since, merchantAuth});
      cases.put("gateway payments of one shop", new String[] {"/api/v1/payments?limit=50", "Bearer " + apiKey});

      HttpClient http = HttpClient.newHttpClient();
      System.out.println();
      System.out.printf("%-52s %8s %8s %8s%n", "request (" + rows + " rows)", "p50 ms", "p95 ms", "max ms");
      for (var c : cases.entrySet()) {
        double[] ms = time(http, app.baseUri(), c.getValue()[0], c.getValue()[1], 30, 200);
        System.out.printf("%-52s %8.2f %8.2f %8.2f%n", c.getKey(), ms[0], ms[1], ms[2]);
      }

      System.out.println();
      System.out.println("plan of the merchant payments page:");
      db.jdbi().useHandle(h -> h.createQuery("""
              EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM payments WHERE merchant_id = :m
                AND created >= now() - interval '30 days' AND created < 'infinity'
              ORDER BY created DESC, id DESC LIMIT 51 OFFSET 10000
              """).bind("m", merchant.value()).mapTo(String.class).list().forEach(System.out::println));
    }
  }

  /** Deletes what it can under {@code dir}, and says so if something stays. */
  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    }
    if (Files.exists(dir)) {
      System.err.println("could not delete all of " + dir);
    }
  }

  private static double[] time(HttpClient http, URI base, String path, String auth, int warmup, int runs)
      throws Exception {
    HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).header("Authorization", auth).GET().build();
    for (int i = 0; i < warmup; i++) {
      check(http.send(request, HttpResponse.BodyHandlers.ofString()), path);
    }
    double[] samples = new double[runs];
    for (int i = 0; i < runs; i++) {
      long t = System.nanoTime();
      check(http.send(request, HttpResponse.BodyHandlers.discarding()), path);
      samples[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(samples);
    return new double[] {samples[runs / 2], samples[(int) (runs * 0.95)], samples[runs - 1]};
  }

  private static void check(HttpResponse<?> response, String path) {
    if (response.statusCode() != 200) {
      throw new IllegalStateException(path + " answered " + response.statusCode() + ": " + response.body());
    }
  }

  private ListQueriesBench() {}

}
