package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.shop.Environment;
import io.tollgate.persistence.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** A database serves the environment of the first server that started on it, and only that one. */
class DatabaseEnvironmentTest {

  /**
   * The first claim is kept: a later one of the other environment is told the recorded one, which
   * the server behind it must refuse to run on. Nothing else could tell a sandbox server that the
   * payments it was about to work were production's.
   */
  @Test
  void the_first_environment_claimed_is_the_one_the_database_serves() {
    try (Database db = TestDatabase.fresh()) {
      DatabaseEnvironment served = new DatabaseEnvironment(db.jdbi());
      assertThat(served.recorded()).as("a new database serves no environment yet").isEmpty();

      assertThat(served.claim(Environment.PRODUCTION)).isEqualTo(Environment.PRODUCTION);
      assertThat(served.claim(Environment.SANDBOX)).isEqualTo(Environment.PRODUCTION);
      assertThat(served.claim(Environment.PRODUCTION)).isEqualTo(Environment.PRODUCTION);
      assertThat(served.recorded()).contains(Environment.PRODUCTION);
    }
  }

  /**
   * Servers of both environments starting at once on a new database: one environment is
   * recorded, and every server is told that one, so that those of the other all refuse to run
   * rather than each believing its own claim was kept.
   */
  @Test
  void servers_starting_at_once_are_all_told_the_one_environment_recorded() throws Exception {
    for (int round = 0; round < 5; round++) {
      try (Database db = TestDatabase.fresh()) {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
          CountDownLatch ready = new CountDownLatch(8);
          List<Future<Environment>> answers = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            Environment mine = i % 2 == 0 ? Environment.SANDBOX : Environment.PRODUCTION;
            answers.add(pool.submit(() -> {
              ready.countDown();
              ready.await();
              return new DatabaseEnvironment(db.jdbi()).claim(mine);
            }));
          }
          List<Environment> told = new ArrayList<>();
          for (Future<Environment> answer : answers) {
            told.add(answer.get());
          }
          assertThat(told).containsOnly(new DatabaseEnvironment(db.jdbi()).recorded().orElseThrow());
        } finally {
          pool.shutdownNow();
        }
      }
    }
  }

  /**
   * A database an earlier release kept serves no environment after the upgrade: the first server
   * that starts on it then records its own, as on a new database.
   */
  @Test
  void a_database_from_before_the_record_serves_no_environment_until_a_server_starts() {
    BeforeMigration before = BeforeMigration.of("47");
    before.migrateTheRest();
    DatabaseEnvironment served = new DatabaseEnvironment(before.jdbi());
    assertThat(served.recorded()).isEmpty();
    assertThat(served.claim(Environment.SANDBOX)).isEqualTo(Environment.SANDBOX);
  }
}
