package io.tollgate.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.util.Promise;
import org.junit.jupiter.api.Test;

/** What Jetty's client is given to connect to when the destination policy is PublicDestinations. */
class PublicAddressResolverTest {

  private final AtomicInteger lookups = new AtomicInteger();
  /** Knows two names and answers IP literals as themselves, as the system does. */
  private final PublicAddressResolver resolver = new PublicAddressResolver(new PublicDestinations(host -> {
    lookups.incrementAndGet();
    List<String> answer = Map.of(
        "hooks.merchant.example", List.of("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
        "half.merchant.example", List.of("93.184.215.14", "10.0.0.7"))
        .getOrDefault(host, host.contains(":") ? List.of(host) : List.of());
    return answer.stream().map(PublicAddressResolverTest::address).toArray(InetAddress[]::new);
  }), Runnable::run);

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private List<InetSocketAddress> resolve(String host, int port) throws Exception {
    Promise.Completable<List<InetSocketAddress>> promise = new Promise.Completable<>();
    resolver.resolve(host, port, promise);
    return promise.get();
  }

  @Test
  void hands_the_client_every_address_of_the_one_lookup_that_was_checked() throws Exception {
    assertThat(resolve("hooks.merchant.example", 8443)).containsExactly(
        new InetSocketAddress(address("93.184.215.14"), 8443),
        new InetSocketAddress(address("2606:2800:21f:cb07:6820:80da:af6b:8b2c"), 8443));
    assertThat(lookups).hasValue(1);
  }

  @Test
  void refuses_a_host_with_any_address_that_is_not_public_and_says_why() {
    assertThatThrownBy(() -> resolve("half.merchant.example", 443)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(PublicDestinations.Refused.class)
        .hasMessage("host half.merchant.example resolves to a non-public address (10.0.0.7)");
    assertThatThrownBy(() -> resolve("nowhere.merchant.example", 443)).cause()
        .hasMessage("host nowhere.merchant.example does not resolve");
  }

  @Test
  void takes_an_ipv6_host_without_its_brackets() throws Exception {
    assertThat(resolve("[2606:4700:4700::1111]", 443))
        .containsExactly(new InetSocketAddress(address("2606:4700:4700::1111"), 443));
    assertThatThrownBy(() -> resolve("[::1]", 443)).cause().isInstanceOf(PublicDestinations.Refused.class);
  }
}
