package io.tollgate.rest.common;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MultivaluedMap;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * A query parameter the endpoint reads, given more than once, is a 400 listing each such
 * parameter: JAX-RS would read the first value and ignore the others, and a malformed value is
 * never ignored (CONTRACT section 0). Parameters the endpoint does not read stay ignored,
 * however often they come. Runs after authentication.
 */
@Priority(Priorities.USER)
public final class RepeatedQueryParameterFilter implements ContainerRequestFilter {

  @Context private ResourceInfo resource;

  @Override
  public void filter(ContainerRequestContext request) {
    Method method = resource.getResourceMethod();
    if (method == null) {
      return;
    }
    MultivaluedMap<String, String> given = request.getUriInfo().getQueryParameters();
    List<Violation> repeated = new ArrayList<>();
    for (Annotation[] annotations : method.getParameterAnnotations()) {
      for (Annotation annotation : annotations) {
        if (annotation instanceof QueryParam param) {
          List<String> values = given.get(param.value());
          if (values != null && values.size() > 1) {
            repeated.add(Violation.of(param.value(), "is given " + values.size() + " times; give it once",
                String.join(",", values)));
          }
        }
      }
    }
    if (!repeated.isEmpty()) {
      throw new DomainException.Invalid("Invalid query parameters", repeated);
    }
  }
}
