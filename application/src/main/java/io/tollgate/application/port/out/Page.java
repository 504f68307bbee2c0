package io.tollgate.application.port.out;

import java.util.List;
import java.util.function.Function;

/** One page of a list and whether at least one more record exists past it. */
public record Page<T>(List<T> items, boolean hasMore) {
  public Page {
    items = List.copyOf(items);
  }

  public <R> Page<R> map(Function<T, R> mapper) {
    return new Page<>(items.stream().map(mapper).toList(), hasMore);
  }
}
