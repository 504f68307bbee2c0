package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.user.Permission;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two members of staff editing one group at once, with the same entries in another order: both
 * edits are fine (CONTRACT section 7), neither is a 500 from a deadlock in the database.
 */
class GroupEditConcurrencyTest {

  static final int ROUNDS = 100;
  /** Enough entries per edit that, before the fix, some of the rounds deadlocked every time. */
  static final int EDITORS = 4;
  static final int BINS = 50;
  static final int SHOPS = 50;

  static TestGateway gw;
  static String[] editor;

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    editor = gw.merchantUser(gw.merchant, "racer@groups.example", Permission.values());
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  static int edit(String method, String path, String body) {
    return gw.send(HttpRequest.newBuilder(gw.uri(path)).method(method, HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", TestGateway.basic(editor))).status();
  }

  static String array(String field, List<String> values) {
    return "{\"" + field + "\":[" + String.join(",", values) + "]}";
  }

  /** Each round adds fresh entries several times at once, in opposite orders; every answer counted by status. */
  static Map<Integer, Integer> race(String path, String field, IntFunction<List<String>> entriesOfRound,
      Runnable afterRound) throws Exception {
    Map<Integer, Integer> statuses = new TreeMap<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<String> forward = entriesOfRound.apply(round);
      List<String> backward = new ArrayList<>(forward);
      Collections.reverse(backward);
      List<Callable<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < EDITORS; i++) {
        List<String> entries = i % 2 == 0 ? forward : backward;
        calls.add(() -> edit("POST", path, array(field, entries)));
      }
      for (int status : ConcurrencyTest.race(calls)) {
        statuses.merge(status, 1, Integer::sum);
      }
      afterRound.run();
    }
    return statuses;
  }

  @Test
  void adds_of_the_same_bins_in_opposite_orders_at_once_all_succeed() throws Exception {
    long group = gw.app.services().groups().create(gw.merchant, GroupKind.BIN, "Raced BINs", false).id();
    String path = "/merchant-api/v1/bin-groups/" + group + "/bins";
    Map<Integer, Integer> statuses = race(path, "bins", round -> {
      List<String> bins = new ArrayList<>();
      for (int i = 0; i < BINS; i++) {
        bins.add("\"" + (400000 + round * BINS + i) + "\"");
      }
      return bins;
    }, () -> { });
    assertThat(statuses).isEqualTo(Map.of(201, EDITORS * ROUNDS));
    assertThat(gw.merchantGet("/merchant-api/v1/bin-groups/" + group + "?limit=10000", editor).json().get("result"))
        .hasSize(ROUNDS * BINS);
  }

  @Test
  void adds_of_the_same_shops_in_opposite_orders_at_once_all_succeed() throws Exception {
    long group = gw.app.services().persistence().referenceData().createShopGroup(gw.merchant, "Raced shops",
        java.time.Instant.now());
    List<String> shops = new ArrayList<>();
    for (int i = 0; i < SHOPS; i++) {
      shops.add(String.valueOf(gw.createShop(gw.merchant, "Raced shop " + i, false).value()));
    }
    String path = "/merchant-api/v1/shop-groups/" + group + "/shops";
    // the shops go out again after each round, so that every round inserts them anew
    Map<Integer, Integer> statuses = race(path, "shops", round -> shops,
        () -> assertThat(edit("DELETE", path, array("shops", shops))).isEqualTo(204));
    assertThat(statuses).isEqualTo(Map.of(201, EDITORS * ROUNDS));
  }
}
