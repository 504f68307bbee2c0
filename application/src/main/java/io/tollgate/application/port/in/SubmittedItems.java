package io.tollgate.application.port.in;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The items of an array in a request body, in order, as far as the adapter could read each as
 * a {@code T}. An item of another type (a number where a string belongs, a string where a shop
 * id belongs) is null in {@link #items}, and {@link #wrongType} holds, by position, how it was
 * written. The use case checks ownership and permissions first and then answers one 400 that
 * lists these items together with every item its own rules refuse.
 */
public record SubmittedItems<T>(List<T> items, Map<Integer, String> wrongType) {

  public SubmittedItems {
    items = Collections.unmodifiableList(new ArrayList<>(items));
    wrongType = Map.copyOf(wrongType);
  }

  /** Items that were all of the right type. */
  public static <T> SubmittedItems<T> of(List<T> items) {
    return new SubmittedItems<>(items, Map.of());
  }
}
