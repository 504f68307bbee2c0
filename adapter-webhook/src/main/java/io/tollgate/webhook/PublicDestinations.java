package io.tollgate.webhook;

import io.tollgate.application.port.out.DestinationPolicy;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The production destination policy: a URL may be used only when every address its host
 * resolves to is a public one. Refused: loopback, private (RFC 1918, IPv6 unique local),
 * link-local (which holds the cloud metadata address 169.254.169.254), shared address space
 * (100.64/10), unspecified and multicast addresses, and hosts that do not resolve. Webhooks
 * connect through it too ({@link PublicAddressResolver}), so that they reach an address it let
 * through and not whatever a later lookup answers.
 */
public final class PublicDestinations implements DestinationPolicy {

  private final Function<String, InetAddress[]> resolver;

  public PublicDestinations() {
    this(host -> {
      try {
        return InetAddress.getAllByName(host);
      } catch (UnknownHostException e) {
        return new InetAddress[0];
      }
    });
  }

  /** With a resolver of one's own (tests). It answers an empty array for an unknown host. */
  public PublicDestinations(Function<String, InetAddress[]> resolver) {
    this.resolver = resolver;
  }

  @Override
  public Optional<String> refusal(String url) {
    Optional<String> malformed = refusalWithoutLookup(url);
    if (malformed.isPresent()) {
      return malformed;
    }
    String host = URI.create(url).getHost();
    try {
      publicAddresses(host);
      return Optional.empty();
    } catch (Refused e) {
      return Optional.of(e.getMessage());
    }
  }

  /** Why the URL is refused before its host is looked up (it is no URL, or names no host), or empty. */
  static Optional<String> refusalWithoutLookup(String url) {
    String host;
    try {
      host = new URI(url).getHost();
    } catch (URISyntaxException e) {
      return Optional.of("is not a valid URL");
    }
    return host == null ? Optional.of("has no host") : Optional.empty();
  }

  /**
   * The addresses {@code host} resolves to, looked up once, when every one of them is public:
   * those a connection to the host may go to.
   *
   * @throws Refused when the host does not resolve or one of its addresses is not public
   */
  List<InetAddress> publicAddresses(String host) throws Refused {
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    InetAddress[] addresses = resolver.apply(host);
    if (addresses.length == 0) {
      throw new Refused("host " + host + " does not resolve");
    }
    for (InetAddress a : addresses) {
      if (!isPublic(a)) {
        throw new Refused("host " + host + " resolves to a non-public address (" + a.getHostAddress() + ")");
      }
    }
    return List.of(addresses);
  }

  /** Why a host may not be connected to. */
  static final class Refused extends Exception {
    Refused(String why) {
      // an answer, not a fault: no stack trace to fill in
      super(why, null, false, false);
    }
  }

  static boolean isPublic(InetAddress a) {
    if (a.isLoopbackAddress() || a.isSiteLocalAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress()
        || a.isMulticastAddress()) {
      return false;
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      boolean sharedSpace = first == 100 && second >= 64 && second <= 127;
      boolean thisNetwork = first == 0;
      boolean reserved = first >= 240;
      return !(sharedSpace || thisNetwork || reserved);
    }
    if (a instanceof Inet6Address) {
      boolean uniqueLocal = (b[0] & 0xfe) == 0xfc;
      boolean siteLocalOld = (b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0xc0;
      boolean v4Compatible = isV4Embedded(b);
      return !(uniqueLocal || siteLocalOld || v4Compatible);
    }
    return false;
  }

  /** {@code ::a.b.c.d} and NAT64 {@code 64:ff9b::a.b.c.d}: judged by the embedded IPv4 address. */
  private static boolean isV4Embedded(byte[] b) {
    boolean zeroPrefix = true;
    for (int i = 0; i < 12; i++) {
      zeroPrefix &= b[i] == 0;
    }
    boolean nat64 = (b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
    if (!zeroPrefix && !nat64) {
      return false;
    }
    try {
      InetAddress v4 = InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
      return !isPublic(v4);
    } catch (UnknownHostException e) {
      return true;
    }
  }
}
