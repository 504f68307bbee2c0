package io.tollgate.bootstrap;

import io.tollgate.domain.DomainException;
import io.tollgate.rest.common.QueryParams;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The rows of large list pages (a {@code limit} above {@value #SMALL_PAGE}) that one instance
 * builds and writes at once, in both APIs. A page of 10,000 payments is megabytes of objects
 * while it is built and written: 32 of them at once ran a 512 MB heap out. A large page takes
 * its {@code limit} in rows from the budget (the whole budget, when it asks for more) once its
 * caller is authenticated, and gives them back when its answer is written, or the request
 * failed, or its client went away. One that cannot have them within the wait is a 503 with
 * {@code Retry-After}; small pages never wait.
 *
 * <p>Two halves: this servlet filter gives back what the request took, after the servlet wrote
 * the answer (a blocking servlet returns only then) and whatever happened meanwhile; the Jersey
 * filter {@link #binding} puts on every list takes the rows, after authentication, so that a
 * request with made-up credentials holds nothing.
 */
final class LargePageBudget implements Filter {

  /** The largest page that never waits for the budget. */
  static final int SMALL_PAGE = 500;
  /** The largest page any list serves; a larger {@code limit} is refused by the list itself. */
  private static final int LARGEST_PAGE = 10_000;
  /** The request attribute holding what the request took; Jersey's request properties are these attributes. */
  private static final String TAKEN = "tollgate.largePageRows";

  private final int rows;
  private final Semaphore budget;
  private final long waitNanos;

  /** A budget of {@code rows} rows; a page waits at most {@code wait} for its share. */
  LargePageBudget(int rows, Duration wait) {
    this.rows = rows;
    // fair: a page of 10,000 rows waiting is not passed for ever by pages of 600
    this.budget = new Semaphore(rows, true);
    this.waitNanos = wait.toNanos();
  }

  /** What one request took, for the servlet filter to give back. */
  private static final class Taken {
    private int rows;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Taken taken = new Taken();
    request.setAttribute(TAKEN, taken);
    try {
      chain.doFilter(request, response);
    } finally {
      if (taken.rows > 0) {
        budget.release(taken.rows);
        taken.rows = 0;
      }
    }
  }

  /** The Jersey filters that take a large page's rows, bound to the resource methods that read {@code limit}. */
  DynamicFeature binding() {
    return new DynamicFeature() {
      @Override
      public void configure(ResourceInfo resource, FeatureContext context) {
        Method method = resource.getResourceMethod();
        if (method != null && method.isAnnotationPresent(GET.class) && readsLimit(method)) {
          // after authentication, before the parameters are checked
          context.register(new Take(), Priorities.AUTHORIZATION);
        }
      }
    };
  }

  /** Whether a resource method reads a {@code limit} parameter: whether it serves a list. */
  static boolean readsLimit(Method method) {
    for (Annotation[] annotations : method.getParameterAnnotations()) {
      for (Annotation annotation : annotations) {
        if (annotation instanceof QueryParam param && param.value().equals("limit")) {
          return true;
        }
      }
    }
    return false;
  }

  /** Takes a large page's rows from the budget, or refuses the request with a 503. */
  private final class Take implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      take(request);
    }
  }

  private void take(ContainerRequestContext request) {
    if (!(request.getProperty(TAKEN) instanceof Taken taken)) {
      return;
    }
    int limit = largeLimit(request.getUriInfo().getQueryParameters().get("limit"));
    if (limit == 0) {
      return;
    }
    int share = Math.min(limit, rows);
    try {
      if (!budget.tryAcquire(share, waitNanos, TimeUnit.NANOSECONDS)) {
        throw busy();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw busy();
    }
    taken.rows += share;
  }

  private static DomainException.Unavailable busy() {
    return new DomainException.Unavailable("Too many large pages are being built at once; retry shortly, or ask for "
        + "pages of at most " + SMALL_PAGE + " rows, which never wait");
  }

  /**
   * The {@code limit} a request gives once, when it is above {@link #SMALL_PAGE} and one the lists
   * serve; else 0. A malformed, repeated or too large one is refused by the list, taking nothing.
   */
  private static int largeLimit(List<String> given) {
    if (given == null || given.size() != 1) {
      return 0;
    }
    String raw = given.get(0);
    if (raw.length() > 9 || !QueryParams.isAsciiInteger(raw)) {
      return 0;
    }
    int limit = Integer.parseInt(raw);
    return limit > SMALL_PAGE && limit <= LARGEST_PAGE ? limit : 0;
  }
}
