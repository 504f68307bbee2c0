package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Who a request counts as, for the limits per client, with and behind trusted proxies. */
class ClientAddressesTest {

  private static ClientAddresses trusting(String spec) {
    List<String> problems = new ArrayList<>();
    List<ClientAddresses.Range> ranges = ClientAddresses.parse(spec, problems);
    assertThat(problems).isEmpty();
    return new ClientAddresses(ranges);
  }

  /** A request from {@code remote} with these {@code X-Forwarded-For} headers. */
  private record From(String remote, List<String> forwardedFor) {}

  private static From from(String remote, String... forwardedFor) {
    return new From(remote, List.of(forwardedFor));
  }

  private static String clientOf(ClientAddresses clients, From request) {
    return clients.of(request.remote(), request.forwardedFor());
  }

  @Test
  void a_forwarded_for_header_counts_only_from_a_trusted_proxy() {
    ClientAddresses clients = trusting("10.0.0.0/8, 192.0.2.7");
    assertThat(clientOf(clients, from("10.1.2.3", "203.0.113.9"))).isEqualTo("203.0.113.9");
    assertThat(clientOf(clients, from("192.0.2.7", "198.51.100.1, 203.0.113.9"))).as("the nearest hop")
        .isEqualTo("203.0.113.9");
    assertThat(clientOf(clients, from("198.51.100.20", "203.0.113.9"))).as("anyone else writes it themselves")
        .isEqualTo("198.51.100.20");
    assertThat(clientOf(trusting(""), from("10.1.2.3", "203.0.113.9"))).as("no proxy trusted").isEqualTo("10.1.2.3");
  }

  /** A client cannot pass for another by putting addresses before its own: only trusted hops are skipped. */
  @Test
  void the_hops_are_read_from_the_nearest_and_stop_at_the_first_untrusted_one() {
    ClientAddresses clients = trusting("10.0.0.0/8");
    assertThat(clientOf(clients, from("10.0.0.1", "1.1.1.1", "203.0.113.9, 10.0.0.2"))).isEqualTo("203.0.113.9");
    assertThat(clientOf(clients, from("10.0.0.1", "not-an-address, 10.0.0.2")))
        .as("unreadable, as the trusted hop wrote it: its own key, not the proxy's")
        .isEqualTo("forwarded:not-an-address");
    assertThat(clientOf(clients, from("10.0.0.1"))).as("no header").isEqualTo("10.0.0.1");
    assertThat(clientOf(clients, from("10.0.0.1", "evil.example"))).as("no name is looked up")
        .isEqualTo("forwarded:evil.example");
    assertThat(clientOf(clients, from("10.0.0.1", "203.0.113.9:51234"))).as("with a port, as some proxies write it")
        .isEqualTo("203.0.113.9");
    assertThat(clientOf(clients, from("10.0.0.1", "[2001:db8:1:2::1]:443"))).isEqualTo("2001:db8:1:2:0:0:0:0/64");
    assertThat(ClientAddresses.literal(".a:b")).as("never handed to the resolver").isNull();
  }

  /** An IPv6 subscriber has a /64 to itself: each of its addresses counts as one client. */
  @Test
  void an_ipv6_client_counts_as_its_64() {
    ClientAddresses clients = trusting("");
    assertThat(clientOf(clients, from("2001:db8:1:2:aaaa::1")))
        .isEqualTo(clientOf(clients, from("2001:db8:1:2:bbbb::9")))
        .isEqualTo("2001:db8:1:2:0:0:0:0/64");
    assertThat(clientOf(clients, from("2001:db8:1:3::1"))).isNotEqualTo(clientOf(clients, from("2001:db8:1:2::1")));
    assertThat(clientOf(trusting("fd00::/8"), from("fd00::5", "[2001:db8:9:9::7]")))
        .isEqualTo("2001:db8:9:9:0:0:0:0/64");
  }

  @Test
  void a_setting_it_cannot_read_stops_the_start() {
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_TRUSTED_PROXIES", "0.0.0.0/0")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("would trust every client to name itself");
    assertThatThrownBy(() -> TollgateConfig.from(Map.of("TOLLGATE_TRUSTED_PROXIES", "10.0.0.0/8, 10.0.0.0/33, lb")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TOLLGATE_TRUSTED_PROXIES: \"10.0.0.0/33\" is no IP address or CIDR block")
        .hasMessageContaining("TOLLGATE_TRUSTED_PROXIES: \"lb\" is no IP address or CIDR block");
  }
}
