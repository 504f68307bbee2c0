package io.tollgate.bootstrap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentState;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** The Prometheus registry of one Tollgate instance, with the JVM's meters and ours. */
final class Observability implements AutoCloseable {

  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();

  Observability() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /**
   * {@code tollgate.payments.new} (created; Prometheus reserves the {@code _created} suffix) by type
   * and initial state, and {@code tollgate.payments.moved} by type and new state.
   */
  PaymentMetrics paymentMetrics() {
    MeterRegistry r = registry;
    return new PaymentMetrics() {
      @Override
      public void created(Payment p) {
        Counter.builder("tollgate.payments.new").description("payments created").tag("type", p.type().name())
            .tag("state", p.state().name()).register(r).increment();
      }

      @Override
      public void moved(PaymentState from, Payment p) {
        if (from != p.state()) {
          Counter.builder("tollgate.payments.moved").description("state changes of payments, by the new state")
              .tag("type", p.type().name()).tag("state", p.state().name()).register(r).increment();
        }
      }
    };
  }

  /**
   * A gauge read from the database at most every few seconds, however often it is scraped, and
   * never during a scrape: a scrape that came due starts a read in the background and answers
   * with the last value (NaN once a read failed, or while one has run too long). Read inline, each such gauge waited out the
   * pool's timeout while the database was down, and /metrics took longer than Prometheus waits,
   * so its scrapes failed just when they were wanted.
   */
  void cachedGauge(String name, String description, LongSupplier source) {
    cachedGauge(name, description, source, Duration.ofSeconds(5), Duration.ofSeconds(15));
  }

  /**
   * @param maxAge how old a value may be before a scrape asks for another
   * @param stale how long a read may take before its gauge shows NaN: the pool's connections have
   *     no socket timeout, and a read sent to a database host gone without a reset waits for TCP
   *     to give up, up to hours, while the gauge showed the value from before the outage
   */
  void cachedGauge(String name, String description, LongSupplier source, Duration maxAge, Duration stale) {
    java.util.concurrent.atomic.AtomicReference<Double> value = new java.util.concurrent.atomic.AtomicReference<>();
    AtomicLong readAt = new AtomicLong(System.nanoTime());
    // when the read under way was asked for, or NOT_READING: one clock for "a read is running" and
    // "since when", so that a scrape never sees one without the other
    AtomicLong readingSince = new AtomicLong(System.nanoTime());
    Runnable read = () -> {
      try {
        value.set((double) source.getAsLong());
      } catch (RuntimeException e) {
        value.set(Double.NaN);
      } finally {
        readAt.set(System.nanoTime());
        readingSince.set(NOT_READING);
      }
    };
    read.run(); // at start-up, the database answering: the first scrape has a value
    Gauge.builder(name, () -> {
      long now = System.nanoTime();
      if (now - readAt.get() > maxAge.toNanos() && readingSince.compareAndSet(NOT_READING, now)) {
        try {
          gaugeReader.execute(read);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
          readingSince.set(NOT_READING);
        }
      }
      long since = readingSince.get();
      return since != NOT_READING && now - since > stale.toNanos() ? Double.NaN : value.get();
    }).description(description).register(registry);
  }

  private static final long NOT_READING = Long.MIN_VALUE;

  /** Reads the database-backed gauges, one at a time, off the scraping thread. */
  private final java.util.concurrent.ExecutorService gaugeReader =
      java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "gauge-reader");
        t.setDaemon(true);
        return t;
      });

  String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    gaugeReader.shutdownNow();
    gc.close();
    registry.close();
  }
}
