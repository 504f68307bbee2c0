package io.tollgate.domain.shop;

public record MerchantId(long value) {
  public MerchantId {
    if (value <= 0) {
      throw new IllegalArgumentException("merchant id must be positive: " + value);
    }
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
