package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sandbox's master key file, generated once in the data directory. */
class MasterKeyFileTest {

  @TempDir
  Path scratch;

  /**
   * Two processes that start at once on a fresh data directory (a service and a command) both
   * end up with the key the file holds, so that what either seals the other, and either after a
   * restart, can open; the file is its owner's alone from the moment it has its name.
   */
  @Test
  void two_starting_at_once_share_the_one_key_the_file_keeps() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 40; round++) {
        Path dir = scratch.resolve("data-" + round);
        TollgateConfig config = TollgateConfig.from(Map.of("TOLLGATE_DATA_DIR", dir.toString()));
        CyclicBarrier together = new CyclicBarrier(2);
        Future<byte[]> first = pool.submit(() -> {
          together.await(5, TimeUnit.SECONDS);
          return MasterKey.load(config);
        });
        Future<byte[]> second = pool.submit(() -> {
          together.await(5, TimeUnit.SECONDS);
          return MasterKey.load(config);
        });
        byte[] a = first.get(10, TimeUnit.SECONDS);
        byte[] b = second.get(10, TimeUnit.SECONDS);
        Path file = dir.resolve("master.key");
        byte[] kept = Base64.getDecoder().decode(Files.readString(file, StandardCharsets.US_ASCII).strip());
        assertThat(a).as("round %d", round).isEqualTo(kept);
        assertThat(b).as("round %d", round).isEqualTo(kept);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        try (var left = Files.list(dir)) {
          assertThat(left.map(p -> p.getFileName().toString())).as("no file half made").containsExactly("master.key");
        }
        assertThat(MasterKey.load(config)).as("read again").isEqualTo(kept);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
