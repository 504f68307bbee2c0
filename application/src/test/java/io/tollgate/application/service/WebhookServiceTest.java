package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.in.WebhookDeliveryUseCase.Delivery;
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
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

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
}
