package io.tollgate.domain.shop;

public record ShopId(long value) {
  public ShopId {
    if (value <= 0) {
      throw new IllegalArgumentException("shop id must be positive: " + value);
    }
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
