package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.shop.ShopId;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The operator rotates the master key with the command line: the service starts with the new
 * key and reads the secrets sealed before, and once the old key is retired, it opens nothing.
 */
class MasterKeyRotationTest {

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as("%s in %s", regex, text).isTrue();
    return m.group(1);
  }

  private static CommandLineRun ok(Map<String, String> env, String... args) {
    CommandLineRun r = CommandLineRun.of(env, args);
    assertThat(r.exit()).as(r.err()).isZero();
    return r;
  }

  @Test
  void a_rotated_master_key_opens_the_secrets_sealed_before_and_a_retired_one_nothing() throws Exception {
    try (Database db = TestDatabase.fresh()) {
      Map<String, String> old = TestGateway.environment(db, "tollgate-rotation");
      old.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
      String merchant = group(ok(old, "merchant", "create", "--name", "Rotating").out(), "merchant (\\d+) created");
      String shop = group(ok(old, "shop", "create", "--merchant", merchant, "--name", "Rotating shop").out(),
          "shop (\\d+) created");
      String signingKey = group(ok(old, "key", "issue", "--shop", shop).out(), "Signing key:\\s+(\\S+)");

      CommandLineRun rotated = ok(old, "master-key", "rotate");
      String newKey = group(rotated.out(), "New master key:\\s+(\\S+)");
      assertThat(rotated.out()).contains("master-key retire");
      Map<String, String> renewed = new HashMap<>(old);
      renewed.put("TOLLGATE_MASTER_KEY", newKey);
      assertThat(ok(renewed, "master-key", "list").out().lines()).hasSize(2)
          .filteredOn(line -> line.startsWith("* ")).hasSize(1);

      for (Map<String, String> env : java.util.List.of(old, renewed)) {
        try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
          assertThat(app.services().shops().signingKeys(new ShopId(Long.parseLong(shop))).active())
              .as("both keys open the secrets until the old one is retired").isEqualTo(signingKey);
        }
      }

      assertThat(ok(renewed, "master-key", "retire").out()).contains("retired 1 master key");
      try (Tollgate app = Tollgate.start(TollgateConfig.from(renewed), db)) {
        assertThat(app.services().shops().signingKeys(new ShopId(Long.parseLong(shop))).active()).isEqualTo(signingKey);
      }
      CommandLineRun refused = CommandLineRun.of(old, "shop", "list", "--merchant", merchant);
      assertThat(refused.exit()).isEqualTo(1);
      assertThat(refused.err()).startsWith("error: ").contains("sealed with another master key")
          .doesNotContain("\tat ");
      assertThat(refused.err().lines().count()).isEqualTo(1);
    }
  }

  /**
   * In sandbox without TOLLGATE_MASTER_KEY, the key is the data directory's master.key: a
   * rotation writes the new one there (never printing it), and the service starts with it.
   */
  @Test
  void in_sandbox_the_new_key_replaces_the_data_directory_s() throws Exception {
    try (Database db = TestDatabase.fresh()) {
      Map<String, String> env = TestGateway.environment(db, "tollgate-rotation-sandbox");
      env.remove("TOLLGATE_MASTER_KEY");
      // the server's first start seals the database under the data directory's key, which the commands share
      Tollgate.start(TollgateConfig.from(env), db).close();
      String merchant = group(ok(env, "merchant", "create", "--name", "Sandbox").out(), "merchant (\\d+) created");
      String shop = group(ok(env, "shop", "create", "--merchant", merchant, "--name", "Sandbox shop").out(),
          "shop (\\d+) created");
      String signingKey = group(ok(env, "key", "issue", "--shop", shop).out(), "Signing key:\\s+(\\S+)");
      Path file = Path.of(env.get("TOLLGATE_DATA_DIR")).resolve("master.key");
      String before = Files.readString(file);

      CommandLineRun rotated = ok(env, "master-key", "rotate");
      String after = Files.readString(file);
      assertThat(after).isNotEqualTo(before).matches("[A-Za-z0-9+/]{43}=\n");
      assertThat(rotated.out()).contains(file.toString()).doesNotContain(after.strip());
      assertThat(Files.getPosixFilePermissions(file)).containsExactlyInAnyOrder(
          java.nio.file.attribute.PosixFilePermission.OWNER_READ, java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
      assertThat(ok(env, "master-key", "retire").out()).contains("retired 1 master key");
      try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
        assertThat(app.services().shops().signingKeys(new ShopId(Long.parseLong(shop))).active()).isEqualTo(signingKey);
      }
    }
  }
}
