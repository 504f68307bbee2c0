package io.tollgate.bootstrap;

import jakarta.servlet.http.HttpServletRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Who sent a request, for what is limited per client (refused credentials, guessed passwords):
 * the connection's address, or, when that is one of the operator's trusted proxies
 * ({@code TOLLGATE_TRUSTED_PROXIES}), the nearest address in {@code X-Forwarded-For} that is not
 * one. A forwarded-for header from anyone else is the client's to write, and ignored. An IPv6
 * client counts as its /64, the block one subscriber is given: one address each, a single
 * subscriber had as many clients as it liked.
 */
final class ClientAddresses {

  private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
      + "(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:][0-9A-Fa-f:.]{1,44}");
  /** An IPv4 address with a port, as some proxies forward it ({@code 203.0.113.9:51234}). */
  private static final Pattern IPV4_PORT = Pattern.compile("([0-9.]{7,15}):[0-9]{1,5}");
  /** An IPv6 address in brackets, with or without a port ({@code [2001:db8::1]:443}). */
  private static final Pattern IPV6_BRACKETS = Pattern.compile("\\[([^\\]]{2,45})\\](?::[0-9]{1,5})?");

  /** An address range: the leading {@code bits} of {@code network}. */
  record Range(byte[] network, int bits) {
    boolean contains(InetAddress address) {
      byte[] a = address.getAddress();
      if (a.length != network.length) {
        return false;
      }
      for (int i = 0; i < bits; i++) {
        int mask = 0x80 >> (i % 8);
        if ((a[i / 8] & mask) != (network[i / 8] & mask)) {
          return false;
        }
      }
      return true;
    }
  }

  private final List<Range> trusted;

  ClientAddresses(List<Range> trusted) {
    this.trusted = List.copyOf(trusted);
  }

  /**
   * The ranges {@code spec} names, comma-separated addresses or CIDR blocks
   * ({@code 10.0.0.0/8, 192.0.2.7, fd00::/8}); each one it cannot read is added to {@code problems}.
   */
  static List<Range> parse(String spec, List<String> problems) {
    if (spec == null || spec.isBlank()) {
      return List.of();
    }
    List<Range> ranges = new ArrayList<>();
    for (String part : spec.split(",")) {
      String entry = part.strip();
      int slash = entry.indexOf('/');
      InetAddress address = literal(slash < 0 ? entry : entry.substring(0, slash));
      int bits = address == null ? -1 : address.getAddress().length * 8;
      if (address != null && slash >= 0) {
        String prefix = entry.substring(slash + 1);
        bits = prefix.matches("[0-9]{1,3}") && Integer.parseInt(prefix) <= bits ? Integer.parseInt(prefix) : -1;
      }
      if (bits < 0) {
        problems.add("TOLLGATE_TRUSTED_PROXIES: \"" + entry + "\" is no IP address or CIDR block");
      } else if (bits == 0) {
        problems.add("TOLLGATE_TRUSTED_PROXIES: \"" + entry + "\" would trust every client to name itself");
      } else {
        ranges.add(new Range(address.getAddress(), bits));
      }
    }
    return Collections.unmodifiableList(ranges);
  }

  /** The client of {@code request}, as {@link ClientAddresses} says, written for a limit's key. */
  String of(HttpServletRequest request) {
    List<String> forwardedFor = new ArrayList<>();
    java.util.Enumeration<String> headers = request.getHeaders("X-Forwarded-For");
    while (headers != null && headers.hasMoreElements()) {
      forwardedFor.add(headers.nextElement());
    }
    return of(request.getRemoteAddr(), forwardedFor);
  }

  /** The client of a request from {@code remote} with these {@code X-Forwarded-For} headers. */
  String of(String remote, List<String> forwardedFor) {
    if (trusted.isEmpty() && remote != null && remote.indexOf(':') < 0) {
      return remote; // an IPv4 connection with no proxy to read past: as it is, unparsed, on every request
    }
    InetAddress connection = literal(remote);
    if (connection == null) {
      return remote;
    }
    InetAddress client = connection;
    if (isTrusted(connection)) {
      List<String> hops = new ArrayList<>();
      for (String header : forwardedFor) {
        for (String hop : header.split(",")) {
          hops.add(hop.strip());
        }
      }
      // from the nearest hop back: each trusted proxy names who sent to it
      for (int i = hops.size() - 1; i >= 0; i--) {
        InetAddress hop = literal(hops.get(i));
        if (hop == null) {
          // unreadable, but written by a trusted proxy (every hop nearer was one): it names the
          // client as that proxy saw it, so it is the key, not the proxy, which all would share
          String seen = hops.get(i);
          return "forwarded:" + (seen.length() > 64 ? seen.substring(0, 64) : seen);
        }
        client = hop;
        if (!isTrusted(hop)) {
          break;
        }
      }
    }
    return keyOf(client);
  }

  private boolean isTrusted(InetAddress address) {
    for (Range range : trusted) {
      if (range.contains(address)) {
        return true;
      }
    }
    return false;
  }

  /** An IPv4 address as it is; an IPv6 address as its /64. */
  static String keyOf(InetAddress address) {
    byte[] a = address.getAddress();
    if (a.length == 4) {
      return address.getHostAddress();
    }
    byte[] network = java.util.Arrays.copyOf(java.util.Arrays.copyOf(a, 8), 16);
    try {
      return InetAddress.getByAddress(network).getHostAddress() + "/64";
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The address {@code text} spells as a literal, or null; never a name lookup. */
  static InetAddress literal(String text) {
    if (text == null) {
      return null;
    }
    String t = text.strip();
    java.util.regex.Matcher bracketed = IPV6_BRACKETS.matcher(t);
    java.util.regex.Matcher withPort = IPV4_PORT.matcher(t);
    if (bracketed.matches()) {
      t = bracketed.group(1);
    } else if (withPort.matches()) {
      t = withPort.group(1);
    }
    boolean v4 = IPV4.matcher(t).matches();
    if (!v4 && !(t.indexOf(':') >= 0 && IPV6.matcher(t).matches())) {
      return null;
    }
    try {
      return InetAddress.getByName(t); // a literal: no lookup
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
