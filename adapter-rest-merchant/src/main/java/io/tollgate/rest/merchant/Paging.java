package io.tollgate.rest.merchant;

import io.tollgate.rest.common.QueryParams;

/** The merchant API's pagination: {@code offset} 0..1000000 (0), {@code limit} 1..10000 (50). */
record Paging(int offset, int limit) {

  static final int MAX_OFFSET = 1_000_000;
  static final int MAX_LIMIT = 10_000;

  static Paging read(QueryParams params, String offset, String limit) {
    return new Paging(params.integer("offset", offset, 0, MAX_OFFSET, 0),
        params.integer("limit", limit, 1, MAX_LIMIT, 50));
  }

  static Paging of(String offset, String limit) {
    QueryParams params = new QueryParams();
    Paging paging = read(params, offset, limit);
    params.validate();
    return paging;
  }
}
