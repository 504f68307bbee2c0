package io.tollgate.bootstrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Data directories of the services the tests start, deleted with their contents (an embedded
 * database, a master key) when the test JVM exits, so that running the suite leaves nothing
 * in the temporary folder. At exit rather than after each test: some are still in use by a
 * child process or a service another test class shares.
 */
final class ScratchDirectories {

  private static final Set<Path> CREATED = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> CREATED.forEach(ScratchDirectories::delete),
        "scratch-directories"));
  }

  private ScratchDirectories() {}

  static Path create(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    CREATED.add(dir);
    return dir;
  }

  private static void delete(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort: a file removed meanwhile, or one the JVM cannot delete, stays
    }
  }
}
