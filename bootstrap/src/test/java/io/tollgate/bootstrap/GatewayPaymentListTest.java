package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.bootstrap.TestGateway.Answer;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GatewayPaymentListTest {

  static TestGateway gw;
  static List<String> ids = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    gw = TestGateway.start();
    for (int i = 0; i < 5; i++) {
      Answer a = gw.post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":" + (i + 1)
          + ",\"currency\":\"EUR\",\"referenceId\":\"ref-" + (i % 2) + "\"}");
      ids.add(a.json().at("/result/id").asText());
    }
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static List<String> idsOf(Answer a) {
    List<String> out = new ArrayList<>();
    a.json().get("result").forEach(p -> out.add(p.get("id").asText()));
    return out;
  }

  @Test
  void lists_newest_first_with_has_more_at_the_page_boundary() {
    Answer first = gw.get("/api/v1/payments?limit=2");
    assertThat(first.status()).isEqualTo(200);
    assertThat(idsOf(first)).containsExactly(ids.get(4), ids.get(3));
    assertThat(first.json().get("hasMore").asBoolean()).isTrue();

    Answer last = gw.get("/api/v1/payments?limit=2&offset=4");
    assertThat(idsOf(last)).containsExactly(ids.get(0));
    assertThat(last.json().get("hasMore").asBoolean()).isFalse();

    Answer exact = gw.get("/api/v1/payments?limit=5");
    assertThat(idsOf(exact)).hasSize(5);
    assertThat(exact.json().get("hasMore").asBoolean()).isFalse();
  }

  /** A reference of the most characters a payment takes finds it, emoji and all (code points, not UTF-16 units). */
  @Test
  void a_payment_is_found_by_any_reference_it_was_created_with() {
    // a shop of its own: the other tests count the payments of theirs
    String key = gw.issueKey(gw.createShop(gw.merchant, "Reference shop", false),
        io.tollgate.domain.shop.Environment.SANDBOX);
    String reference = "\uD835\uDC00".repeat(200); // 200 characters, 400 UTF-16 units; the limit is 256
    Answer created = gw.post("/api/v1/payments",
        "{\"paymentType\":\"DEPOSIT\",\"amount\":1,\"currency\":\"EUR\",\"referenceId\":\"" + reference + "\"}",
        key, null);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    Answer found = gw.get("/api/v1/payments?referenceId.eq="
        + java.net.URLEncoder.encode(reference, java.nio.charset.StandardCharsets.UTF_8), key);
    assertThat(found.status()).as(found.body()).isEqualTo(200);
    assertThat(idsOf(found)).containsExactly(created.json().at("/result/id").asText());
  }

  @Test
  void filters_by_reference_id() {
    Answer a = gw.get("/api/v1/payments?referenceId.eq=ref-1");
    assertThat(idsOf(a)).containsExactly(ids.get(3), ids.get(1));
  }

  @Test
  void filters_by_creation_and_update_time() {
    DateTimeFormatter f = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");
    String future = LocalDateTime.now(ZoneOffset.UTC).plusMinutes(5).format(f);
    String past = LocalDateTime.now(ZoneOffset.UTC).minusMinutes(30).format(f);
    assertThat(idsOf(gw.get("/api/v1/payments?created.gte=" + future))).isEmpty();
    assertThat(idsOf(gw.get("/api/v1/payments?created.lt=" + past))).isEmpty();
    assertThat(idsOf(gw.get("/api/v1/payments?created.gte=" + past + "&created.lt=" + future))).hasSize(5);
    assertThat(idsOf(gw.get("/api/v1/payments?updated.gte=" + future))).isEmpty();
    assertThat(idsOf(gw.get("/api/v1/payments?updated.gte=" + past + "&updated.lt=" + future))).hasSize(5);
  }

  /** The RFC 3339 form a client generated from our OpenAPI document's date-time sends. */
  @Test
  void filters_take_times_with_an_offset_as_generated_clients_send_them() {
    java.time.OffsetDateTime now = java.time.OffsetDateTime.now(ZoneOffset.UTC);
    String past = now.minusMinutes(30).toInstant().toString();
    String future = now.plusMinutes(5).atZoneSameInstant(ZoneOffset.ofHours(2)).toOffsetDateTime().toString();
    Answer a = gw.get("/api/v1/payments?created.gte=" + past + "&created.lt="
        + java.net.URLEncoder.encode(future, java.nio.charset.StandardCharsets.UTF_8));
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(idsOf(a)).hasSize(5);
    assertThat(idsOf(gw.get("/api/v1/payments?created.gte=" + now.plusMinutes(5).toInstant()))).isEmpty();
  }

  /**
   * A time as Python's {@code datetime.isoformat()} and Java's {@code LocalDateTime.toString()} write it in UTC:
   * with fractions of a second when there are some, without seconds when they are 0. Read as UTC.
   */
  @Test
  void filters_take_times_without_an_offset_as_python_and_java_write_them() {
    LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
    String past = now.minusMinutes(30).withSecond(0).withNano(500_000_000).toString();
    String future = now.plusMinutes(5).withSecond(0).withNano(0).toString();
    assertThat(past).endsWith(":00.500");
    assertThat(future).hasSize("2026-11-28T00:00".length());
    Answer a = gw.get("/api/v1/payments?created.gte=" + past + "&created.lt=" + future);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(idsOf(a)).hasSize(5);
    assertThat(idsOf(gw.get("/api/v1/payments?created.gte=" + future))).isEmpty();
    assertThat(idsOf(gw.get("/api/v1/payments?updated.gte=" + past + "&updated.lt=" + future))).hasSize(5);
  }

  /** A payment made 25 hours ago is left out, one made 23 hours ago is listed, as are those of a moment ago. */
  @Test
  void the_default_window_is_the_last_24_hours() {
    String dayAndHourAgo = ids.get(0);
    String nearlyADayAgo = ids.get(1);
    // Restored afterwards to exactly what they were: the timeout sweeper may touch `updated` meanwhile.
    java.util.Map<String, java.time.OffsetDateTime> created = new java.util.HashMap<>();
    for (String id : List.of(dayAndHourAgo, nearlyADayAgo)) {
      created.put(id, gw.database.jdbi().withHandle(h -> h.createQuery("select created from payments where id = :id")
          .bind("id", id).mapTo(java.time.OffsetDateTime.class).one()));
    }
    gw.database.jdbi().useHandle(h -> h.execute(
        "update payments set created = now() - interval '25 hours' where id = ?", dayAndHourAgo));
    gw.database.jdbi().useHandle(h -> h.execute(
        "update payments set created = now() - interval '23 hours' where id = ?", nearlyADayAgo));
    try {
      assertThat(idsOf(gw.get("/api/v1/payments"))).doesNotContain(dayAndHourAgo)
          .contains(nearlyADayAgo, ids.get(2), ids.get(4));
      String old = LocalDateTime.now(ZoneOffset.UTC).minusDays(2).format(DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss"));
      assertThat(idsOf(gw.get("/api/v1/payments?created.gte=" + old))).contains(dayAndHourAgo);
    } finally {
      created.forEach((id, at) -> gw.database.jdbi().useHandle(h -> h.execute(
          "update payments set created = ? where id = ?", at, id)));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"offset=-1", "offset=1000001", "limit=0", "limit=1001", "limit=abc", "offset=1.5",
      "created.gte=2026-01-01", "created.lt=yesterday", "updated.gte=2026-13-01T00:00:00",
      "updated.lt=2026-02-30T00:00:00", "created.gte=2026-11-28T00:00:00.", "created.lt=2026-11-28T00",
      "created.gte=2026-11-28T00:00:00.1234567891", "created.lt=%20",
      // another script's digits (an Arabic-Indic and a full-width one) and padding are no integer
      "limit=%D9%A3", "limit=%EF%BC%91", "limit=%201", "limit=1%20", "offset=%091"})
  void out_of_range_or_malformed_parameters_are_400s(String query) {
    Answer a = gw.get("/api/v1/payments?" + query);
    assertThat(a.status()).as(query).isEqualTo(400);
    JsonNode errors = a.json().get("errors");
    assertThat(errors).isNotEmpty();
    assertThat(errors.get(0).get("field").asText()).isEqualTo(query.substring(0, query.indexOf('=')));
  }

  /**
   * An optional parameter sent empty, as a client that writes every parameter it knows sends those it has no
   * value for, is as if not sent: no filter, the default page.
   */
  @ParameterizedTest
  @ValueSource(strings = {"referenceId.eq=", "offset=", "limit=", "created.gte=", "created.lt=", "updated.gte=",
      "updated.lt=", "offset=&limit=&created.gte=&created.lt=&updated.gte=&updated.lt=&referenceId.eq="})
  void a_parameter_sent_empty_counts_as_not_sent(String query) {
    Answer a = gw.get("/api/v1/payments?" + query);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(idsOf(a)).as(query).isEqualTo(idsOf(gw.get("/api/v1/payments"))).hasSizeGreaterThanOrEqualTo(5);
  }

  @Test
  void several_bad_parameters_are_reported_together() {
    Answer a = gw.get("/api/v1/payments?offset=-1&limit=0&created.gte=x");
    assertThat(a.json().get("errors")).hasSize(3);
  }

  /**
   * A parameter the list reads, given twice, is refused, not read as its first value with the
   * others ignored: a malformed value is never ignored (CONTRACT section 0). A parameter the list
   * does not read is ignored, however often it comes; a missing key is still a 401 first.
   */
  @ParameterizedTest
  @ValueSource(strings = {"limit=1&limit=abc", "offset=0&offset=0", "created.gte=2026-01-01T00:00:00&created.gte=x",
      "created.lt=2099-01-01T00:00:00&created.lt=2099-01-01T00:00:00", "updated.gte=x&updated.gte=y",
      "updated.lt=2099-01-01T00:00:00&updated.lt=x", "referenceId.eq=ref-1&limit=2&referenceId.eq=ref-0",
      // sent empty, a parameter counts as not sent, but given twice it is still refused
      "limit=&limit=2", "referenceId.eq=&referenceId.eq=", "created.gte=&created.gte=2026-01-01T00:00:00"})
  void a_parameter_given_twice_is_a_400(String query) {
    String name = query.substring(query.lastIndexOf('&') + 1, query.lastIndexOf('='));
    Answer a = gw.get("/api/v1/payments?" + query);
    assertThat(a.status()).as(query).isEqualTo(400);
    assertThat(a.json().get("error").asText()).isEqualTo("Bad Request");
    assertThat(a.json().get("errors").findValuesAsText("field")).containsExactly(name);
    assertThat(a.json().at("/errors/0/message").asText()).isEqualTo("is given 2 times; give it once");
    assertThat(a.json().get("path").asText()).isEqualTo("/api/v1/payments");
    assertThat(gw.send(java.net.http.HttpRequest.newBuilder(gw.uri("/api/v1/payments?" + query)).GET()).status())
        .isEqualTo(401);
    Answer unread = gw.get("/api/v1/payments?limit=2&_=1&_=2&sort=a&sort=b");
    assertThat(unread.status()).isEqualTo(200);
    assertThat(idsOf(unread)).hasSize(2);
  }

  @Test
  void the_largest_allowed_values_are_accepted() {
    assertThat(gw.get("/api/v1/payments?offset=1000000&limit=1000").status()).isEqualTo(200);
    assertThat(gw.get("/api/v1/payments?offset=0&limit=1").status()).isEqualTo(200);
  }
}
