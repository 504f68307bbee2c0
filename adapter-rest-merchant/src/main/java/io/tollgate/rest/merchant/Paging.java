package io.tollgate.rest.merchant;

import io.tollgate.application.port.in.PageRequest;
import io.tollgate.domain.DomainException;
import io.tollgate.rest.common.QueryParams;
import jakarta.ws.rs.container.ContainerRequestContext;

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

  /**
   * The page a {@link io.tollgate.rest.common.ParametersCheckedAfterAccess} method asks for, left
   * to the use case to refuse, when it is bad, once the read is allowed.
   */
  static PageRequest request(ContainerRequestContext request, String offset, String limit) {
    QueryParams params = QueryParams.of(request);
    Paging paging = read(params, offset, limit);
    DomainException.Invalid problems = params.problems();
    return problems == null ? PageRequest.of(paging.offset(), paging.limit()) : PageRequest.invalid(problems);
  }
}
