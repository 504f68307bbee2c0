package io.tollgate.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class PublicDestinationsTest {

  /** A resolver that knows a few names and answers IP literals as themselves. */
  static final PublicDestinations POLICY = new PublicDestinations(host -> {
    Map<String, String> names = Map.of(
        "hooks.merchant.example", "93.184.215.14",
        "sneaky.merchant.example", "10.0.0.7",
        "metadata.google.internal", "169.254.169.254",
        "v6.merchant.example", "2606:2800:21f:cb07:6820:80da:af6b:8b2c");
    try {
      if (names.containsKey(host)) {
        return new InetAddress[] {InetAddress.getByName(names.get(host))};
      }
      if (host.matches("[0-9.]+") || host.contains(":")) {
        return new InetAddress[] {InetAddress.getByName(host)};
      }
      return new InetAddress[0];
    } catch (UnknownHostException e) {
      return new InetAddress[0];
    }
  });

  @ParameterizedTest
  @ValueSource(strings = {
      "http://127.0.0.1/hook", "http://127.8.9.10:8080/x", "http://[::1]/hook", "http://localhost.invalid/x",
      "http://10.1.2.3/x", "http://172.16.0.1/x", "http://172.31.255.255/x", "http://192.168.1.1/x",
      "http://169.254.169.254/latest/meta-data", "http://metadata.google.internal/computeMetadata",
      "http://100.64.0.1/x", "http://0.0.0.0/x", "http://[fd00:ec2::254]/x", "http://[fe80::1]/x",
      "http://[::ffff:127.0.0.1]/x", "http://[::ffff:10.0.0.1]/x", "http://sneaky.merchant.example/x",
      "http://224.0.0.1/x", "https://unknown-host.example/x"})
  void refuses_what_is_not_public(String url) {
    assertThat(POLICY.refusal(url)).as(url).isPresent();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "https://hooks.merchant.example/tollgate", "https://93.184.215.14/x", "http://8.8.8.8:8080/x",
      "https://v6.merchant.example/x", "https://[2606:4700:4700::1111]/x", "http://172.32.0.1/x",
      "http://100.128.0.1/x"})
  void allows_public_addresses(String url) {
    assertThat(POLICY.refusal(url)).as(url).isEmpty();
  }

  @Test
  void says_why() {
    assertThat(POLICY.refusal("http://sneaky.merchant.example/x")).get().asString()
        .contains("sneaky.merchant.example").contains("10.0.0.7");
  }
}
