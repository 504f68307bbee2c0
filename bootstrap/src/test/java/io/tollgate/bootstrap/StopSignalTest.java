package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What SIGTERM and SIGINT do ({@link Main.Serve#onStopSignal}), with the process's exit
 * recorded instead: a second signal must not end the process while the first one's stop drains.
 */
class StopSignalTest {

  @Test
  void a_second_signal_waits_for_the_stop_the_first_began() throws Exception {
    CountDownLatch draining = new CountDownLatch(1);
    CountDownLatch drained = new CountDownLatch(1);
    AtomicInteger closes = new AtomicInteger();
    Main.Stop stop = new Main.Stop(() -> {
      closes.incrementAndGet();
      draining.countDown();
      awaitQuietly(drained);
    });
    List<String> exits = new CopyOnWriteArrayList<>();
    Thread first = signal(stop, "first", exits);
    assertThat(draining.await(10, TimeUnit.SECONDS)).isTrue();
    Thread second = signal(stop, "second", exits);
    Thread hook = new Thread(stop, "shutdown-hook");
    hook.start();

    second.join(500);
    assertThat(second.isAlive()).as("the second signal waits while the first one's stop drains").isTrue();
    assertThat(hook.isAlive()).as("so does the shutdown hook").isTrue();
    assertThat(exits).as("nothing ended the process during the drain").isEmpty();

    drained.countDown();
    for (Thread t : new Thread[] {first, second, hook}) {
      t.join(10_000);
      assertThat(t.isAlive()).isFalse();
    }
    assertThat(exits).containsExactlyInAnyOrder("first 0", "second 0");
    assertThat(closes).as("the service is stopped once").hasValue(1);
    assertThat(stop.awaitStopped()).isTrue();
  }

  @Test
  void a_stop_that_failed_ends_the_process_with_1_for_every_signal() throws Exception {
    Main.Stop stop = new Main.Stop(() -> {
      throw new IllegalStateException("the server would not stop");
    });
    List<String> exits = new CopyOnWriteArrayList<>();
    Thread first = signal(stop, "first", exits);
    first.join(10_000);
    Thread second = signal(stop, "second", exits);
    second.join(10_000);
    assertThat(exits).containsExactly("first 1", "second 1");
    assertThat(stop.awaitStopped()).isFalse();
  }

  /** A signal's thread as {@code serve} starts it, its exit status recorded under {@code name}. */
  private static Thread signal(Main.Stop stop, String name, List<String> exits) {
    Thread t = new Thread(() -> Main.Serve.onStopSignal(stop, status -> exits.add(name + " " + status)),
        "signal-" + name);
    t.setUncaughtExceptionHandler((thread, e) -> { }); // the failed stop's exception, as on the real thread
    t.start();
    return t;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
