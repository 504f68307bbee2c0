package io.tollgate.webhook;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executor;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

/**
 * Resolves a receiver's host for Jetty's client through {@link PublicDestinations}: the client
 * connects only to addresses that passed its check, from the very lookup that was checked, and
 * a host with any address that is not public is refused. Were the client to look the host up
 * again by itself, a name whose DNS answer changes between the check and the connection (DNS
 * rebinding) could lead it to an internal address.
 */
final class PublicAddressResolver implements SocketAddressResolver {

  private final PublicDestinations destinations;
  private final Executor executor;

  /** @param executor where lookups wait: the client may ask on its selector thread, which must not. */
  PublicAddressResolver(PublicDestinations destinations, Executor executor) {
    this.destinations = destinations;
    this.executor = executor;
  }

  @Override
  public void resolve(String host, int port, Promise<List<InetSocketAddress>> promise) {
    executor.execute(() -> {
      try {
        promise.succeeded(destinations.publicAddresses(host).stream()
            .map(address -> new InetSocketAddress(address, port)).toList());
      } catch (PublicDestinations.Refused | RuntimeException e) {
        promise.failed(e);
      }
    });
  }
}
