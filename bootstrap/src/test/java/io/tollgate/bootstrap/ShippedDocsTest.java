package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What the README and SECURITY.md tell an operator is what ships. */
class ShippedDocsTest {

  /** The README said the Dockerfile runs the benchmarks' JVM flags; it ran a share of the container's memory instead. */
  @Test
  void the_dockerfile_runs_the_jvm_flags_the_readme_recommends() throws Exception {
    Matcher recommended = Pattern.compile("`java ((?:-\\S+ )+)-jar tollgate\\.jar serve`")
        .matcher(Files.readString(Path.of("..", "README.md")));
    assertThat(recommended.find()).as("the README's java command line").isTrue();
    String entrypoint = Files.readAllLines(Path.of("..", "Dockerfile")).stream()
        .filter(line -> line.startsWith("ENTRYPOINT")).findFirst().orElseThrow();
    assertThat(Arrays.asList(recommended.group(1).strip().split(" "))).containsExactlyInAnyOrder("-XX:+UseParallelGC", "-Xmx512m");
    assertThat(entrypoint).contains(Arrays.stream(recommended.group(1).strip().split(" "))
        .map(flag -> "\"" + flag + "\"").toList()).doesNotContain("MaxRAMPercentage");
  }

  /** SECURITY.md sent an operator to the data directory itself for the embedded superuser's password. */
  @Test
  void security_md_names_the_file_the_embedded_superusers_password_is_in() throws Exception {
    Path dataDir = ScratchDirectories.create("tollgate-docs");
    CommandLineRun run = CommandLineRun.of(Map.of("TOLLGATE_DATA_DIR", dataDir.toString()),
        "merchant", "create", "--name", "Documented");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(Files.readString(Path.of("..", "SECURITY.md"))).contains("`<TOLLGATE_DATA_DIR>/postgres/tollgate-password`");
    assertThat(dataDir.resolve("postgres").resolve("tollgate-password")).isNotEmptyFile();
  }
}
