package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ConfigurationReferenceTest {

  @Test
  void the_readme_table_lists_exactly_the_settings_the_code_reads() throws Exception {
    Path readme = Path.of("..", "README.md");
    String text = Files.readString(readme);
    Set<String> documented = new LinkedHashSet<>();
    Matcher m = Pattern.compile("(?m)^\\| `(TOLLGATE_[A-Z_]+)` \\|").matcher(text);
    while (m.find()) {
      documented.add(m.group(1));
    }
    Set<String> inCode = new LinkedHashSet<>();
    TollgateConfig.SETTINGS.forEach(s -> inCode.add(s.name()));
    assertThat(documented).containsExactlyInAnyOrderElementsOf(inCode);
    for (TollgateConfig.Setting s : TollgateConfig.SETTINGS) {
      assertThat(text).as(s.name()).contains("| `" + s.name() + "` | " + s.defaultValue() + " | " + s.description() + " |");
    }
  }

  @Test
  void production_refuses_to_start_without_a_master_key_or_a_real_database() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_ENVIRONMENT", "production")))
        .hasMessageContaining("TOLLGATE_MASTER_KEY").hasMessageContaining("TOLLGATE_DB_URL");
  }

  @Test
  void bad_values_are_all_reported_at_once() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_PORT", "http", "TOLLGATE_ENVIRONMENT", "staging",
        "TOLLGATE_CRYPTO_CURRENCIES", "BTC")))
        .hasMessageContaining("TOLLGATE_PORT").hasMessageContaining("TOLLGATE_ENVIRONMENT")
        .hasMessageContaining("TOLLGATE_CRYPTO_CURRENCIES");
  }
}
