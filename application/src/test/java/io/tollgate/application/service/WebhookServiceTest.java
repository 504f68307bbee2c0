package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.in.WebhookDeliveryUseCase.Delivery;
import io.tollgate.application.port.in.WebhookDeliveryUseCase.Result;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.application.port.out.WebhookOutbox.ClaimedEvent;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.ShopId;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class WebhookServiceTest {

  private static ClaimedEvent event(long shop) {
    return new ClaimedEvent(UUID.randomUUID().toString(), "owner:1", PaymentId.random(), new ShopId(shop),
        PaymentState.COMPLETED, "https://merchant.example/hooks", null, "{}".getBytes(StandardCharsets.UTF_8), 0, 0,
        Instant.now());
  }

  /**
   * The claim's leases are committed before the keys are read: a key that cannot be read fails
   * its shop's events one by one (recorded, retried on the schedule), never the whole batch.
   */
  @Test
  void a_signing_key_that_cannot_be_read_fails_its_shops_events_not_the_batch() {
    WebhookOutbox outbox = mock(WebhookOutbox.class);
    ShopService keys = mock(ShopService.class);
    ClaimedEvent damaged = event(1);
    ClaimedEvent fine = event(2);
    ClaimedEvent keyless = event(3);
    when(outbox.claim(eq("owner:1"), any(), any(), anyInt(), any())).thenReturn(List.of(damaged, fine, keyless));
    when(keys.signingKeys(new ShopId(1))).thenThrow(new IllegalStateException("decryption failed"));
    when(keys.signingKeys(new ShopId(2))).thenReturn(new ShopService.SigningKeys("whsec_fine", null));
    when(keys.signingKeys(new ShopId(3))).thenThrow(new DomainException.NotFound("no key"));
    WebhookService service = new WebhookService(outbox, mock(PaymentRepository.class), mock(ShopRepository.class),
        mock(io.tollgate.application.port.out.ReferenceData.class), keys,
        WebhookService.DEFAULT_RETRY_SCHEDULE, Clock.systemUTC());

    List<Delivery> deliveries = service.claim("owner:1", 10, Duration.ofSeconds(30));

    assertThat(deliveries).extracting(Delivery::eventId).containsExactly(damaged.id(), fine.id(), keyless.id());
    assertThat(deliveries.get(0).signingKey()).isNull();
    assertThat(deliveries.get(0).unsendable()).contains("signing key could not be read");
    assertThat(deliveries.get(1).signingKey()).isEqualTo("whsec_fine");
    assertThat(deliveries.get(1).unsendable()).isNull();
    assertThat(deliveries.get(2).signingKey()).isNull();
    assertThat(deliveries.get(2).unsendable()).isNull();
  }

  /**
   * A delivery that waited for its shop's slot is sent with the shop's keys and webhook URL read
   * again: a key issued meanwhile (the one it replaced signed beside it), and a URL changed
   * meanwhile for an event that has none of its own; an event's own URL stays.
   */
  @Test
  void a_delivery_read_again_has_the_shops_keys_and_url_as_they_are_now() {
    ShopService keys = mock(ShopService.class);
    ShopRepository shops = mock(ShopRepository.class);
    when(keys.signingKeys(new ShopId(1))).thenReturn(new ShopService.SigningKeys("whsec_new", "whsec_old"));
    when(shops.findCurrent(new ShopId(1))).thenReturn(java.util.Optional.of(new io.tollgate.domain.shop.Shop(
        new ShopId(1), new io.tollgate.domain.shop.MerchantId(1), "Shop", "https://moved.example/hooks", null,
        io.tollgate.domain.shop.Shop.DEFAULT_CHECKOUT_TIMEOUT, false, false, "EUR")));
    WebhookService service = new WebhookService(mock(WebhookOutbox.class), mock(PaymentRepository.class), shops,
        mock(io.tollgate.application.port.out.ReferenceData.class), keys,
        WebhookService.DEFAULT_RETRY_SCHEDULE, Clock.systemUTC());
    ClaimedEvent shopUrl = new ClaimedEvent(UUID.randomUUID().toString(), "owner:1", PaymentId.random(),
        new ShopId(1), PaymentState.COMPLETED, null, "https://old.example/hooks", "{}".getBytes(StandardCharsets.UTF_8),
        0, 0, Instant.now());

    Delivery again = service.refreshed(new Delivery(shopUrl, shopUrl.url(), "whsec_old"));
    assertThat(again.signingKey()).isEqualTo("whsec_new");
    assertThat(again.previousSigningKey()).isEqualTo("whsec_old");
    assertThat(again.url()).isEqualTo("https://moved.example/hooks");

    ClaimedEvent ownUrl = event(1);
    assertThat(service.refreshed(new Delivery(ownUrl, ownUrl.url(), "whsec_old")).url())
        .isEqualTo("https://merchant.example/hooks");

    // keys that cannot be read now: sent as claimed, not failed for a key that was good
    when(keys.signingKeys(new ShopId(1))).thenThrow(new IllegalStateException("no connection"));
    Delivery claimed = new Delivery(ownUrl, ownUrl.url(), "whsec_old");
    assertThat(service.refreshed(claimed)).isSameAs(claimed);
  }

  /**
   * The contract's schedule (section 6): a failed attempt is tried again 1 min, 5 min, 15 min,
   * 1 h, 3 h, 6 h, 12 h, then three times 24 h after it ended; the failure after the last of those
   * marks the event failed. The times go by the attempt's end, not the service's clock.
   */
  @Test
  void each_failed_attempt_is_retried_on_the_contract_s_schedule_then_the_event_fails() {
    List<Duration> contract = List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15),
        Duration.ofHours(1), Duration.ofHours(3), Duration.ofHours(6), Duration.ofHours(12), Duration.ofHours(24),
        Duration.ofHours(24), Duration.ofHours(24));
    WebhookOutbox outbox = mock(WebhookOutbox.class);
    Instant created = Instant.parse("2026-03-02T09:00:00Z");
    WebhookService service = new WebhookService(outbox, mock(PaymentRepository.class), mock(ShopRepository.class),
        mock(io.tollgate.application.port.out.ReferenceData.class), mock(ShopService.class),
        WebhookService.DEFAULT_RETRY_SCHEDULE, Clock.fixed(created.plus(Duration.ofDays(30)), ZoneOffset.UTC));
    ClaimedEvent first = event(1);
    Instant started = created;
    for (int failures = 0; failures <= contract.size(); failures++) {
      ClaimedEvent claimed = new ClaimedEvent(first.id(), "owner:" + failures, first.paymentId(), first.shopId(),
          first.paymentState(), first.targetUrl(), null, first.body(), failures, failures, created);
      Duration took = Duration.ofMillis(1_500);
      service.report(new Delivery(claimed, claimed.url(), "whsec_key"), new Result(started, took, 503, null));

      @SuppressWarnings("unchecked")
      ArgumentCaptor<List<WebhookOutbox.Outcome>> recorded = ArgumentCaptor.forClass(List.class);
      verify(outbox, org.mockito.Mockito.times(failures + 1)).recordAttempts(recorded.capture());
      WebhookOutbox.Outcome outcome = recorded.getValue().get(0);
      String attempt = "attempt " + (failures + 1);
      assertThat(outcome.attempt().number()).as(attempt).isEqualTo(failures + 1);
      assertThat(outcome.attempt().statusCode()).as(attempt).isEqualTo(503);
      if (failures < contract.size()) {
        assertThat(outcome.status()).as(attempt).isEqualTo(WebhookOutbox.Status.PENDING);
        assertThat(outcome.nextAttemptAt()).as(attempt)
            .isEqualTo(started.plus(took).plus(contract.get(failures)));
        started = outcome.nextAttemptAt();
      } else {
        assertThat(outcome.status()).as(attempt + ", after the last retry").isEqualTo(WebhookOutbox.Status.FAILED);
        assertThat(outcome.nextAttemptAt()).as(attempt).isNull();
        assertThat(outcome.attempt().eventStatus()).isEqualTo(WebhookOutbox.Status.FAILED);
      }
    }
  }
}
