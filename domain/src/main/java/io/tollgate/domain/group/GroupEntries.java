package io.tollgate.domain.group;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Validates the entries of a group edit, reporting every bad one at once. */
public final class GroupEntries {

  /** One refused entry: its position in the request, the value (masked if need be), why. */
  public record EntryViolation(int index, String rejectedValue, String message) {}

  /** The valid entries (duplicates collapsed, order kept) and every violation. */
  public record Parsed<T>(List<T> entries, List<EntryViolation> violations) {
    public Parsed {
      entries = List.copyOf(entries);
      violations = List.copyOf(violations);
    }

    public boolean isValid() {
      return violations.isEmpty();
    }
  }

  private GroupEntries() {}

  public static <T> Parsed<T> parse(List<String> raw, Function<String, T> factory) {
    return parse(raw, factory, Function.identity());
  }

  /**
   * @param display how a refused value is echoed back (e.g. {@link Pan#maskForDisplay})
   */
  public static <T> Parsed<T> parse(List<String> raw, Function<String, T> factory, Function<String, String> display) {
    if (raw == null || raw.isEmpty()) {
      return new Parsed<>(List.of(), List.of(new EntryViolation(-1, null, "must be a non-empty array")));
    }
    Set<T> entries = new LinkedHashSet<>();
    List<EntryViolation> violations = new ArrayList<>();
    for (int i = 0; i < raw.size(); i++) {
      String value = raw.get(i);
      if (value == null || value.isBlank()) {
        violations.add(new EntryViolation(i, value, "must not be empty"));
        continue;
      }
      try {
        entries.add(factory.apply(value));
      } catch (IllegalArgumentException e) {
        violations.add(new EntryViolation(i, display.apply(value), e.getMessage()));
      }
    }
    return new Parsed<>(new ArrayList<>(entries), violations);
  }
}
