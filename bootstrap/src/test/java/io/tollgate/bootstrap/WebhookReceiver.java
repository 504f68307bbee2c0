package io.tollgate.bootstrap;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.ToIntBiFunction;

/** A merchant's webhook endpoint on a free port: records what arrives, answers as scripted. */
final class WebhookReceiver implements AutoCloseable {

  /** One request as received: the raw body bytes, the headers (names lower-case) and the status it was answered. */
  record Received(byte[] body, Map<String, String> headers, String path, int status) {
    String header(String name) {
      return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    String bodyText() {
      return new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private final HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger arrived = new java.util.concurrent.atomic.AtomicInteger();
  /** The Webhook-Id of each request that has come in, in order, held or answered. */
  private final List<String> arrivedIds = new CopyOnWriteArrayList<>();
  /** Where a delivery differed from the gateway document's {@code paymentResult} webhook; {@link #close} fails on any. */
  private final List<String> contractProblems = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<Integer> script = new ConcurrentLinkedQueue<>();
  /** The answer to a request that no script is left for, decided from its headers and body. */
  private volatile ToIntBiFunction<Map<String, String>, byte[]> defaultStatus = (headers, body) -> 200;
  private volatile Duration delay = Duration.ZERO;
  /** Counted down to let the held answers go ({@link #holdAnswers}); none held at first. */
  private volatile java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(0);

  WebhookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
    server.setExecutor(Executors.newFixedThreadPool(32));
    server.createContext("/", exchange -> {
      try (InputStream in = exchange.getRequestBody()) {
        byte[] body = in.readAllBytes();
        arrived.incrementAndGet();
        Map<String, String> headers = new java.util.HashMap<>();
        exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
        arrivedIds.add(String.valueOf(headers.get("webhook-id")));
        held.await();
        if (!delay.isZero()) {
          Thread.sleep(delay.toMillis());
        }
        Integer scripted = script.poll();
        int status = scripted != null ? scripted : defaultStatus.applyAsInt(headers, body);
        Received r = new Received(body, headers, exchange.getRequestURI().getPath(), status);
        contractProblems.addAll(OpenApiContract.INSTANCE.webhookProblems(r.bodyText()));
        if (r.header("Signature") == null || !r.header("Signature").matches("[0-9a-f]{64}")
            || r.header("Webhook-Id") == null || r.header("Webhook-Timestamp") == null) {
          contractProblems.add("webhook headers differ from the document: " + headers);
        }
        received.add(r);
        exchange.sendResponseHeaders(status, -1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        exchange.close();
      }
    });
    server.start();
  }

  /** Requests that have come in, including those still waiting for their (delayed) answer. */
  int arrived() {
    return arrived.get();
  }

  /** The Webhook-Id of each request that has come in, in order, including those whose answer is held. */
  List<String> arrivedIds() {
    return new ArrayList<>(arrivedIds);
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** The next answers, in order; after them every answer is {@link #answerAlways}'s. */
  WebhookReceiver thenAnswer(int... statuses) {
    for (int s : statuses) {
      script.add(s);
    }
    return this;
  }

  WebhookReceiver answerAlways(int status) {
    defaultStatus = (headers, body) -> status;
    return this;
  }

  /**
   * Answers each request as {@code status} decides from its headers (names lower-case) and body,
   * once the scripted answers are used up.
   */
  WebhookReceiver answerBy(ToIntBiFunction<Map<String, String>, byte[]> status) {
    defaultStatus = status;
    return this;
  }

  WebhookReceiver delayEachAnswer(Duration d) {
    delay = d;
    return this;
  }

  /**
   * Holds every answer from now on until {@link #answerHeld}: the requests still arrive (and count
   * in {@link #arrived}), and wait for their answer, as long as it takes.
   */
  WebhookReceiver holdAnswers() {
    held = new java.util.concurrent.CountDownLatch(1);
    return this;
  }

  /** Answers the requests held, and from now on answers at once. */
  void answerHeld() {
    held.countDown();
  }

  List<Received> received() {
    return new ArrayList<>(received);
  }

  List<Received> receivedFor(String paymentId) {
    return received.stream().filter(r -> r.bodyText().contains("\"id\":\"" + paymentId + "\"")).toList();
  }

  static boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(20);
    }
    return condition.getAsBoolean();
  }

  @Override
  public void close() {
    held.countDown();
    server.stop(0);
    if (!contractProblems.isEmpty()) {
      throw new AssertionError("webhooks that do not match the OpenAPI document:\n"
          + String.join("\n", contractProblems.subList(0, Math.min(10, contractProblems.size()))));
    }
  }
}
