package io.tollgate.rest.common;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.MultivaluedMap;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A query parameter the endpoint reads, given more than once, is a 400 listing each such
 * parameter: JAX-RS would read the first value and ignore the others, and a malformed value is
 * never ignored (CONTRACT section 0). Parameters the endpoint does not read stay ignored,
 * however often they come. Runs after authentication; on a method
 * {@link ParametersCheckedAfterAccess} it refuses nothing but hands the repeated parameters to
 * {@link QueryParams#of}, so that they are refused with the others once the read is allowed.
 *
 * <p>Register {@link Binding}: it gives each resource method that reads query parameters its own
 * filter knowing their names, so that a request costs no reflection, and a request without a
 * query string nothing but a look at it.
 */
public final class RepeatedQueryParameterFilter implements ContainerRequestFilter {

  /** The request property holding, for a method checked after access, the repeated parameters' violations. */
  static final String REPEATED = "tollgate.repeatedQueryParameters";

  private final String[] names;
  private final boolean checkedAfterAccess;

  RepeatedQueryParameterFilter(String[] names, boolean checkedAfterAccess) {
    this.names = names;
    this.checkedAfterAccess = checkedAfterAccess;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    List<Violation> repeated = repeated(request);
    if (repeated.isEmpty()) {
      return;
    }
    if (checkedAfterAccess) {
      request.setProperty(REPEATED, repeated);
      return;
    }
    throw new DomainException.Invalid("Invalid query parameters", repeated);
  }

  /** The parameters of {@link #names} the request gives more than once, one violation each. */
  private List<Violation> repeated(ContainerRequestContext request) {
    if (request.getUriInfo().getRequestUri().getRawQuery() == null) {
      return List.of();
    }
    // decoded once per request by Jersey and kept: the resource method's parameters read the same map
    MultivaluedMap<String, String> given = request.getUriInfo().getQueryParameters();
    List<Violation> repeated = List.of();
    for (String name : names) {
      List<String> values = given.get(name);
      if (values != null && values.size() > 1) {
        repeated = repeated.isEmpty() ? new ArrayList<>() : repeated;
        repeated.add(Violation.of(name, "is given " + values.size() + " times; give it once", String.join(",", values)));
      }
    }
    return repeated;
  }

  /** Binds a {@link RepeatedQueryParameterFilter} to every resource method that reads query parameters. */
  public static final class Binding implements DynamicFeature {

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
      Method method = resource.getResourceMethod();
      if (method == null) {
        return;
      }
      Set<String> names = new LinkedHashSet<>();
      for (Annotation[] annotations : method.getParameterAnnotations()) {
        for (Annotation annotation : annotations) {
          if (annotation instanceof QueryParam param) {
            names.add(param.value());
          }
        }
      }
      if (!names.isEmpty()) {
        context.register(new RepeatedQueryParameterFilter(names.toArray(String[]::new),
            method.isAnnotationPresent(ParametersCheckedAfterAccess.class)), Priorities.USER);
      }
    }
  }
}
