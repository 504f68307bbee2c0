package io.tollgate.application.port.out;

import java.util.Optional;

/**
 * Decides whether the gateway may call or send a customer to a URL. In production a URL whose
 * host resolves to a loopback, private, link-local or cloud metadata address is refused, so a
 * merchant cannot point our webhooks at our own network.
 */
public interface DestinationPolicy {

  /** Why the URL is refused, or empty when it may be used. */
  Optional<String> refusal(String url);

  DestinationPolicy ALLOW_ALL = url -> Optional.empty();
}
