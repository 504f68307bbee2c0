package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.in.CreatePaymentCommand;
import io.tollgate.application.port.in.CreatePaymentUseCase.CreatedPayment;
import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.DestinationPolicy;
import io.tollgate.application.port.out.IdempotencyRepository;
import io.tollgate.application.port.out.PaymentMetrics;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A creation retried with its Idempotency-Key gets the first answer even when a check that
 * asks the outside world (production's DNS look-up of the webhook and return URLs) fails on the
 * retry: a 400 there would tell the merchant the payment was refused when it was made.
 */
class CreationRetryTest {

  private static final ShopId SHOP = new ShopId(1);

  private final PaymentRepository payments = mock(PaymentRepository.class);
  private final ShopRepository shops = mock(ShopRepository.class);
  private final CommittedStore store = new CommittedStore();
  private final AtomicBoolean dnsFails = new AtomicBoolean();
  private final Keys keys = new Keys();
  private PaymentService service;

  @BeforeEach
  void setUp() {
    store.backing(payments);
    when(shops.find(SHOP)).thenReturn(Optional.of(new Shop(SHOP, new MerchantId(4), "Shop", null, null,
        Shop.DEFAULT_CHECKOUT_TIMEOUT, false, false, "EUR")));
    DestinationPolicy destinations = url -> dnsFails.get() ? Optional.of("host does not resolve") : Optional.empty();
    service = new PaymentService(store.tx, payments, new PaymentWriter(payments, p -> new byte[0], PaymentMetrics.NONE),
        mock(BalanceRepository.class), shops, keys, mock(CardVault.class), new SecretBox(new byte[32]),
        Currencies.defaults(), destinations, mock(ReferenceData.class), Clock.systemUTC(), new SecurityCodes());
  }

  private CreatedPayment create(String key) {
    return service.create(new CreatePaymentCommand(SHOP, "DEPOSIT", null, new BigDecimal("25.00"), "EUR", "order-1",
        null, null, null, null, null, null, "https://shop.example/hooks", null, null, key, "the same body"));
  }

  @Test
  void a_retry_is_replayed_even_when_the_destination_check_fails_on_it() {
    CreatedPayment first = create("order-1");
    assertThat(first.replayed()).isFalse();

    dnsFails.set(true);
    CreatedPayment retried = create("order-1");
    assertThat(retried.replayed()).isTrue();
    assertThat(retried.payment().id()).isEqualTo(first.payment().id());
    assertThat(store.rows).hasSize(1);
  }

  @Test
  void a_new_key_or_no_key_is_refused_by_the_check_and_stores_nothing() {
    dnsFails.set(true);
    assertThatThrownBy(() -> create("order-2")).isInstanceOfSatisfying(DomainException.Invalid.class,
        e -> assertThat(e.violations()).extracting(v -> v.field()).containsExactly("webhookUrl"));
    assertThatThrownBy(() -> create(null)).isInstanceOf(DomainException.Invalid.class);
    assertThat(store.rows).isEmpty();

    dnsFails.set(false);
    assertThat(create("order-2").replayed()).as("the refused try left no claim behind").isFalse();
  }

  /**
   * Every violation at once, as CONTRACT section 0 asks: a key too long, the body's own and a
   * destination production refuses came one per answer, so a client fixed them one retry at a
   * time. A URL already refused as malformed is not refused twice.
   */
  @Test
  void a_refused_request_lists_the_key_the_body_and_the_destination_together() {
    dnsFails.set(true);
    assertThatThrownBy(() -> service.create(new CreatePaymentCommand(SHOP, "DEPOSIT", null, null, "EUR", "order-3",
        null, null, null, null, null, null, "https://shop.example/hooks", null, null, "k".repeat(256), "a body")))
        .isInstanceOfSatisfying(DomainException.Invalid.class, e -> assertThat(e.violations())
            .extracting(v -> v.field()).containsExactlyInAnyOrder("Idempotency-Key", "amount", "webhookUrl"));
    assertThatThrownBy(() -> service.create(new CreatePaymentCommand(SHOP, "DEPOSIT", null, null, "EUR", "order-3",
        null, null, null, null, null, null, "not a url", null, null, "order-3", "a body")))
        .isInstanceOfSatisfying(DomainException.Invalid.class, e -> assertThat(e.violations())
            .extracting(v -> v.field()).containsExactlyInAnyOrder("amount", "webhookUrl"));
    assertThat(store.rows).isEmpty();
  }

  /** Keys as the database keeps them: a claim made in a transaction that failed is gone with it. */
  private final class Keys implements IdempotencyRepository {
    private Map<String, PriorUse> used = new HashMap<>();

    @Override
    public Optional<PriorUse> claim(ShopId shop, String key, String fingerprint, Instant now, Instant expiredBefore) {
      PriorUse prior = used.get(key);
      if (prior != null) {
        return Optional.of(prior);
      }
      Map<String, PriorUse> before = new HashMap<>(used);
      used.put(key, new PriorUse(fingerprint, null, now));
      store.onRollback(() -> used = before);
      return Optional.empty();
    }

    @Override
    public boolean takeOver(ShopId shop, String key, Instant claimed, Instant now) {
      return false;
    }

    @Override
    public void release(ShopId shop, String key, Instant claimed) {}

    @Override
    public void complete(ShopId shop, String key, PaymentId payment) {
      PriorUse claimed = used.get(key);
      used.put(key, new PriorUse(claimed.fingerprint(), payment, claimed.claimed()));
    }

    @Override
    public void completeUnanswered(ShopId shop, String key, PaymentId payment) {
      complete(shop, key, payment);
    }

    @Override
    public void recordActed(ShopId shop, String key) {}

    @Override
    public boolean acted(ShopId shop, String key) {
      return false;
    }

    @Override
    public int forgetClaimedBefore(Instant before, int limit) {
      return 0;
    }
  }
}
