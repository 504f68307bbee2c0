package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.PaymentProcessor;
import io.tollgate.persistence.Database;
import io.tollgate.persistence.DatabaseSettings;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code serve} on its embedded database, stopped by SIGTERM as a service manager or Ctrl+C
 * stops it: what is in flight finishes and is recorded before the database stops.
 */
class GracefulShutdownTest {

  /**
   * A request still sending its body when the service is told to stop is served: while stopping,
   * Jetty closes a connection that has sent nothing for a second unless told otherwise, and a
   * client on a slow link pauses that long in the middle of a body.
   */
  @Test
  void stopping_lets_a_request_still_sending_its_body_finish() throws Exception {
    TestGateway gw = TestGateway.start();
    Thread stop = new Thread(gw::close, "stop-gateway");
    try (Socket client = new Socket("127.0.0.1", gw.app.port())) {
      client.setSoTimeout(30_000);
      String body = "{\"paymentType\":\"DEPOSIT\",\"amount\":5,\"currency\":\"EUR\"}";
      OutputStream out = client.getOutputStream();
      out.write(("POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
          + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n"
          + body.substring(0, body.length() / 2)).getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      assertThat(WebhookReceiver.await(() -> gw.app.requestsInFlight() == 1, Duration.ofSeconds(10))).isTrue();

      stop.start();
      // the client pauses for longer than the second Jetty would give it, counted from the stop,
      // and well within the 3 s of silence a connection now gets while the service stops,
      // counted from the half body sent before the poll above: room for a slow, busy machine
      Thread.sleep(1_250);
      out.write(body.substring(body.length() / 2).getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      String response = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(response).startsWith("HTTP/1.1 200");
    } finally {
      if (stop.getState() == Thread.State.NEW) {
        gw.close();
      }
      stop.join();
    }
  }

  /**
   * A stopping service takes up no more payouts: the batch in hand ends with the payout whose
   * terminal is being asked, and the others stay PENDING and due, for another instance or the
   * next start, instead of being sent to their terminals for the stop to cut off midway.
   */
  @Test
  void a_stopping_service_takes_up_no_more_payouts_of_the_batch_in_hand() throws Exception {
    CountDownLatch asking = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    List<String> asked = new CopyOnWriteArrayList<>();
    // the jobs' first round is an hour away: the test runs the batch itself
    TestGateway gw = TestGateway.start(Map.of("TOLLGATE_JOB_INTERVAL", "PT1H"), sandbox ->
        (PaymentProcessor) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {PaymentProcessor.class}, (proxy, method, args) -> {
              if (method.getName().equals("payout")) {
                asked.add(((PaymentProcessor.CardCharge) args[0]).payment().value());
                asking.countDown();
                answer.await(10, TimeUnit.SECONDS);
              }
              try {
                return method.invoke(sandbox, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            }));
    try {
      List<String> payouts = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        TestGateway.Answer created = gw.post("/api/v1/payments", """
            {"paymentType":"WITHDRAWAL","amount":2.00,"currency":"EUR",
             "card":{"cardNumber":"4000000000000408","expiryMonth":"12","expiryYear":"2045"}}""");
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        payouts.add(created.json().at("/result/id").asText());
      }
      Thread batch = new Thread(() -> gw.app.services().processing().processPayouts(50), "payouts");
      batch.start();
      assertThat(asking.await(10, TimeUnit.SECONDS)).isTrue();
      gw.app.services().processing().stopTakingUp();
      answer.countDown();
      batch.join(10_000);

      assertThat(asked).as("only the payout being taken up when the stop came was sent").hasSize(1);
      for (String id : payouts) {
        String state = gw.get("/api/v1/payments/" + id).json().at("/result/state").asText();
        assertThat(state).as(id).isEqualTo(id.equals(asked.get(0)) ? "COMPLETED" : "PENDING");
      }
    } finally {
      gw.close();
    }
  }

  /**
   * A client that keeps its connection open between requests, as pooling clients and load
   * balancers do, does not hold the stop up for the whole stop timeout (15 s, more than a
   * container's stop gives by default): an idle connection is closed after a few seconds.
   */
  @Test
  void an_idle_keep_alive_connection_does_not_hold_the_stop_up() throws Exception {
    TestGateway gw = TestGateway.start();
    try (Socket client = new Socket("127.0.0.1", gw.app.port())) {
      client.setSoTimeout(30_000);
      client.getOutputStream().write(("GET /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gw.apiKey
          + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      client.getOutputStream().flush();
      byte[] head = new byte[12];
      assertThat(client.getInputStream().readNBytes(head, 0, 12)).isEqualTo(12);
      assertThat(new String(head, StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 200");

      long started = System.nanoTime();
      gw.close();
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("stopped once the idle connection was cut, not after the 15 s stop timeout")
          .isLessThan(Duration.ofSeconds(12));
    }
  }

  /**
   * Sent twice too, as an impatient operator's second Ctrl+C or a service manager repeating its
   * SIGTERM would: the second signal used to end the process at once, in the middle of the drain.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void sigterm_finishes_a_webhook_delivery_in_flight_before_the_embedded_database_stops(int signals)
      throws Exception {
    Path data = ScratchDirectories.create("tollgate-sigterm");
    try (WebhookReceiver receiver = new WebhookReceiver().delayEachAnswer(Duration.ofSeconds(2))) {
      Process child = WebhookReliabilityTest.startChild(WebhookReliabilityTest.instanceEnv(Map.of(
          "TOLLGATE_DATA_DIR", data.toString())));
      try {
        WebhookReliabilityTest.Started started = WebhookReliabilityTest.awaitStarted(child);
        WebhookReliabilityTest.paidDeposit(HttpClient.newHttpClient(), started.base(), started.apiKey(),
            receiver.url("/term"));
        assertThat(WebhookReceiver.await(() -> receiver.arrived() == 1, Duration.ofSeconds(20))).isTrue();
        assertThat(receiver.received()).as("the answer is still 2 s away").isEmpty();

        child.destroy(); // SIGTERM
        for (int i = 1; i < signals; i++) {
          Thread.sleep(200); // well within the drain: the answer is still some 2 s away
          child.destroy();
        }
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isZero();
      } finally {
        child.destroyForcibly();
      }
      assertThat(receiver.received()).hasSize(1);
    }
    // The database the child stopped, opened again: the delivery was recorded, nothing is held.
    try (Database db = Database.start(new DatabaseSettings(null, null, null, data.resolve("postgres"), 2))) {
      assertThat(WebhookReliabilityTest.count(db, "SELECT count(*) FROM webhook_events WHERE status = 'DELIVERED'"))
          .isEqualTo(1);
      assertThat(WebhookReliabilityTest.count(db, "SELECT count(*) FROM webhook_events WHERE lease_token IS NOT NULL"))
          .isZero();
      assertThat(WebhookReliabilityTest.count(db, "SELECT count(*) FROM webhook_attempts WHERE status_code = 200"))
          .isEqualTo(1);
    }
  }
}
