package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.persistence.Database;
import io.tollgate.persistence.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The README's provisioning commands work as written on a fresh sandbox, in their order. */
class ReadmeProvisioningTest {

  static Database db;
  static Map<String, String> env;

  @BeforeAll
  static void start() throws Exception {
    db = TestDatabase.fresh();
    env = TestGateway.environment(db, "tollgate-readme");
    // a fresh sandbox: the first start seeds the demo merchant, whose records take the first ids
    try (Tollgate app = Tollgate.start(TollgateConfig.from(env), db)) {
      assertThat(DemoSeed.seedIfFresh(TollgateConfig.from(env), app.services())).isPresent();
    }
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void every_provisioning_command_of_the_readme_succeeds_on_a_fresh_sandbox() throws Exception {
    List<List<String>> commands = provisioningCommands(Files.readString(Path.of("..", "README.md")));
    assertThat(commands).as("the README's provisioning block").hasSizeGreaterThan(10);
    for (List<String> args : commands) {
      if (args.contains("--file")) {
        continue; // imports read the operator's own files
      }
      CommandLineRun run = CommandLineRun.of(env, args.toArray(String[]::new));
      assertThat(run.exit()).as("%s\n%s%s", String.join(" ", args), run.out(), run.err()).isZero();
    }
  }

  /** The commands of the sh block under "Operating Tollgate", each as its arguments. */
  private static List<List<String>> provisioningCommands(String readme) {
    String section = readme.substring(readme.indexOf("## Operating Tollgate"));
    int start = section.indexOf("```sh\n") + "```sh\n".length();
    String block = section.substring(start, section.indexOf("```", start)).replace("\\\n", " ");
    String prefix = "java -jar bootstrap/target/tollgate.jar ";
    List<List<String>> commands = new ArrayList<>();
    for (String line : block.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      assertThat(line).startsWith(prefix);
      commands.add(words(line.substring(prefix.length())));
    }
    return commands;
  }

  /** A command line split as a shell would: double quotes group words, {@code #} starts a comment. */
  private static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    boolean quoted = false;
    for (char c : line.toCharArray()) {
      if (c == '"') {
        quoted = !quoted;
        word = word == null ? new StringBuilder() : word;
      } else if (!quoted && c == '#' && word == null) {
        break;
      } else if (!quoted && Character.isWhitespace(c)) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }
}
