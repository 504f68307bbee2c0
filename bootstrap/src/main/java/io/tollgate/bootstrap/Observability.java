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

  /** A gauge read from the database at most every few seconds, however often it is scraped. */
  void cachedGauge(String name, String description, LongSupplier source) {
    AtomicLong value = new AtomicLong();
    AtomicLong readAt = new AtomicLong(Long.MIN_VALUE);
    long maxAge = Duration.ofSeconds(5).toNanos();
    Gauge.builder(name, () -> {
      long now = System.nanoTime();
      long last = readAt.get();
      if ((last == Long.MIN_VALUE || now - last > maxAge) && readAt.compareAndSet(last, now)) {
        try {
          value.set(source.getAsLong());
        } catch (RuntimeException e) {
          return Double.NaN;
        }
      }
      return value.get();
    }).description(description).register(registry);
  }

  String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
