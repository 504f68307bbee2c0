package io.tollgate.bootstrap;

import io.tollgate.domain.DomainException;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.rest.merchant.MerchantApi;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Each merchant's share of the database for the merchant API's lists, per instance: at most
 * {@code share} of one merchant's list requests are served at once, up to {@value #WAITING} times as
 * many more wait (at most {@code wait}), and any beyond those, or one that waited in vain, are a
 * 503 with {@code Retry-After}. Within its rate limit, one merchant's deep pages (a large {@code offset}
 * is read and skipped row by row) held all 16 connections, and the other merchants' lists, the
 * gateway's payments and the jobs then waited up to 5 s for one, some in vain. The gateway API
 * takes no part: its requests never wait here.
 *
 * <p>The merchants' lists together are served at most {@code total} at once: two heavy merchants
 * at their share each held the whole pool as one had before. A list holds its merchant's place
 * and then one of the total; it waits for the total holding its merchant's place, which no request
 * holding a place of the total ever waits for, so the two cannot deadlock. A merchant's second and
 * further lists are served only while fewer than {@code share} lists are in all, and never in the
 * total's last place: the rest of the total stays with merchants that have none being served,
 * however many lists heavy merchants have waiting. A list waits for both places within the one
 * {@code wait}.
 *
 * <p>Wired as {@link LargePageBudget} is: the Jersey filter {@link #binding} puts on every list
 * takes a place once the user is authenticated (so made-up credentials hold none), before the
 * large-page budget (so a request waiting for its merchant's turn holds no rows the other
 * merchants' pages could use); a Jersey response filter gives it back once the list is read,
 * before the answer is written (writing needs no connection, and a slow client holds up no other
 * request of its merchant); and this servlet filter gives it back after whatever happened to the
 * request, when nothing did before. Only merchants with requests here have an entry, so the
 * memory is bounded by the requests in flight, however many merchants there are.
 */
final class MerchantListShare implements Filter {

  /** The request attribute holding what the request took; Jersey's request properties are these attributes. */
  private static final String TAKEN = "tollgate.merchantListShare";

  /**
   * How many times its share a merchant's lists may wait. A bound, so that one merchant cannot
   * hold every HTTP thread waiting (within its rate limit, 2 s of lists are 400); a loose one,
   * since a client that drops its connections and opens as many again (wrk between two runs, a
   * load balancer's retries) has both its old requests and its new ones here for a moment: with
   * as many waiting as served, S3's 16 connections were then 503s.
   */
  static final int WAITING = 3;

  private final int share;
  private final int total;
  /**
   * A merchant's second and further lists are served only while fewer than this are in all: its
   * share, and at least one place of the total below it, kept for merchants with none served
   * even when the total is set to the share.
   */
  private final int secondListsBelow;
  private final long waitNanos;
  private final ConcurrentHashMap<MerchantId, Places> merchants = new ConcurrentHashMap<>();
  // fair: the list waiting longest for a place of the total is the first to look at a freed one
  private final ReentrantLock totalLock = new ReentrantLock(true);
  private final Condition placeFreed = totalLock.newCondition();
  /** Lists holding a place of the total; guarded by {@link #totalLock}. */
  private int served;

  /**
   * At most {@code share} list requests of one merchant at once and {@code total} of all merchants
   * (none when 0, else at least {@code share}); more wait at most {@code wait}.
   */
  MerchantListShare(int share, int total, Duration wait) {
    if (total != 0 && total < share) {
      throw new IllegalArgumentException("the total " + total + " is below one merchant's share " + share);
    }
    this.share = share;
    this.total = total;
    this.secondListsBelow = Math.min(share, total - 1);
    this.waitNanos = wait.toNanos();
  }

  /** One merchant's places. */
  private final class Places {
    // fair: a request waiting is not passed by the merchant's later ones until it gives up
    final Semaphore free = new Semaphore(share, true);
    /** Requests holding or waiting for a place; changed only in the map's compute, which removes the entry at 0. */
    int requests;
    /** Requests holding a place of the total; guarded by {@link #totalLock}. */
    int serving;
  }

  /** What one request took, for the filters to give back once. */
  private static final class Taken {
    private MerchantId merchant;
    private Places places;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Taken taken = new Taken();
    request.setAttribute(TAKEN, taken);
    try {
      chain.doFilter(request, response);
    } finally {
      giveBack(taken);
    }
  }

  /** The Jersey filters that take and give back a place, bound to the lists (a GET reading {@code limit}). */
  DynamicFeature binding() {
    return new DynamicFeature() {
      @Override
      public void configure(ResourceInfo resource, FeatureContext context) {
        Method method = resource.getResourceMethod();
        if (method != null && method.isAnnotationPresent(GET.class) && LargePageBudget.readsLimit(method)) {
          // after authentication, before the large-page budget (at AUTHORIZATION)
          context.register(new Take(), Priorities.AUTHORIZATION - 100);
        }
      }
    };
  }

  /** Takes a place of the request's merchant, or refuses the request with a 503; gives it back once it is read. */
  private final class Take implements ContainerRequestFilter, ContainerResponseFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      take(request);
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
      if (request.getProperty(TAKEN) instanceof Taken taken) {
        giveBack(taken);
      }
    }
  }

  private void take(ContainerRequestContext request) {
    MerchantId merchant = MerchantApi.authenticatedMerchant(request);
    if (!(request.getProperty(TAKEN) instanceof Taken taken) || merchant == null || taken.places != null) {
      return;
    }
    boolean[] full = {false};
    Places places = merchants.compute(merchant, (m, p) -> {
      Places mine = p == null ? new Places() : p;
      if (mine.requests >= (1 + WAITING) * share) {
        full[0] = true;
      } else {
        mine.requests++;
      }
      return mine;
    });
    if (full[0]) {
      throw busy();
    }
    long deadline = System.nanoTime() + waitNanos;
    boolean ofMerchant = false;
    boolean ofTotal = false;
    try {
      ofMerchant = places.free.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
      ofTotal = ofMerchant && takeOfTotal(places, deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!ofTotal) {
      if (ofMerchant) {
        places.free.release();
      }
      leave(merchant);
      throw ofMerchant ? busyInAll() : busy();
    }
    taken.merchant = merchant;
    taken.places = places;
  }

  /**
   * Takes a place of the total for a list holding its merchant's place, waiting until {@code deadline}:
   * false when none was free by then.
   */
  private boolean takeOfTotal(Places places, long deadline) throws InterruptedException {
    totalLock.lock();
    try {
      while (total > 0 && (served >= total || places.serving > 0 && served >= secondListsBelow)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        placeFreed.awaitNanos(left);
      }
      served++;
      places.serving++;
      return true;
    } finally {
      totalLock.unlock();
    }
  }

  private void giveBack(Taken taken) {
    Places places = taken.places;
    if (places != null) {
      taken.places = null;
      totalLock.lock();
      try {
        boolean wasFull = served >= total;
        served--;
        places.serving--;
        // Only when a list waiting may now go: a first list waits only while the total is full,
        // a second one while secondListsBelow are served, and this merchant's lists waiting are
        // first lists again once it has none served. All then, since the one woken could be a
        // second list that must wait on; under overload a signal per place given back woke some
        // hundred waiting threads to go back to sleep.
        if (wasFull || served < secondListsBelow || places.serving == 0) {
          placeFreed.signalAll();
        }
      } finally {
        totalLock.unlock();
      }
      places.free.release();
      leave(taken.merchant);
    }
  }

  /** One request of the merchant no longer holds or waits for a place; the last one removes the entry. */
  private void leave(MerchantId merchant) {
    merchants.computeIfPresent(merchant, (m, p) -> --p.requests == 0 ? null : p);
  }

  /** Merchants with list requests served or waiting now: for tests that check the memory is given back. */
  int merchantsInFlight() {
    return merchants.size();
  }

  /** Lists holding a place of the total now: for tests that check each place is given back once. */
  int listsServed() {
    totalLock.lock();
    try {
      return served;
    } finally {
      totalLock.unlock();
    }
  }

  private static DomainException.Unavailable busy() {
    return new DomainException.Unavailable("Too many list requests of your merchant are being served at once; "
        + "retry shortly, or send fewer at a time");
  }

  private static DomainException.Unavailable busyInAll() {
    return new DomainException.Unavailable("Too many merchants' list requests are being served at once; "
        + "retry shortly");
  }
}
