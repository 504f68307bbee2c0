package io.tollgate.application.port.in;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The items of an array in a request body, in order, as far as the adapter could read each as
 * a {@code T}. An item of another type (a number where a string belongs, a string where a shop
 * id belongs) is null in {@link #items}, and {@link #wrongType} holds, by position, how it was
 * written. A body the adapter could not read such an array from at all (not declared as JSON,
 * no JSON object, no array, an empty one) is {@link #unreadable}: the adapter's error that says
 * why (a 400, or a 415 for a body of another media type). The use case checks ownership and
 * permissions first, whatever the body, and then answers one 400 that lists these items
 * together with every item its own rules refuse, or the unreadable body's error.
 *
 * @param unreadable why no items could be read, or null
 */
public record SubmittedItems<T>(List<T> items, Map<Integer, String> wrongType, RuntimeException unreadable) {

  public SubmittedItems {
    items = Collections.unmodifiableList(new ArrayList<>(items));
    wrongType = Map.copyOf(wrongType);
  }

  public SubmittedItems(List<T> items, Map<Integer, String> wrongType) {
    this(items, wrongType, null);
  }

  /** Items that were all of the right type. */
  public static <T> SubmittedItems<T> of(List<T> items) {
    return new SubmittedItems<>(items, Map.of());
  }

  /** A body with no items to read, and the error that says why. */
  public static <T> SubmittedItems<T> unreadable(RuntimeException why) {
    return new SubmittedItems<>(List.of(), Map.of(), why);
  }

  /** Throws the body's error when no items could be read from it; a use case calls it once the edit is allowed. */
  public void requireReadable() {
    if (unreadable != null) {
      throw unreadable;
    }
  }
}
