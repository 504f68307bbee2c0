package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.GroupRepository.GroupRecord;
import io.tollgate.application.port.out.GroupRepository.Member;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The e-mail blacklist matches an address by its key, and by what entries held before they were keyed. */
class FraudScreenEmailTest {

  private static final long GROUP = 5;
  private final ReferenceData reference = mock(ReferenceData.class);
  private final GroupRepository groups = mock(GroupRepository.class);
  private final FraudScreen screen = new FraudScreen(reference, groups, null, Clock.systemUTC());

  /** A shop whose profile blacklists the e-mail group that holds these values. */
  private void groupHolds(String... values) {
    when(reference.antifraudProfileOfShop(1)).thenReturn(Optional.of(new ReferenceData.AntifraudProfile(1,
        new MerchantId(1), "Profile", "UTC", List.of(new ReferenceData.AntifraudRule(1, "EMAIL_BLACKLIST", GROUP,
            null, null)))));
    GroupRecord group = new GroupRecord(GROUP, new MerchantId(1), "Merchant", GroupKind.EMAIL, "Bad e-mails", false);
    when(groups.lookup(any(), any(), any())).thenAnswer(call -> {
      Collection<Member> asked = call.getArgument(1);
      Set<Member> held = asked.stream().filter(m -> Set.of(values).contains(m.value())).collect(Collectors.toSet());
      return new GroupRepository.Lookup(Map.of(GROUP, group), held, List.of());
    });
  }

  private static Payment paidBy(String email) {
    Payment.Draft draft = new Payment.Draft(PaymentId.random(), new ShopId(1), PaymentType.DEPOSIT,
        PaymentMethod.BASIC_CARD, new Money(new BigDecimal("5"), Currencies.defaults().require("EUR")), null, null,
        null, false, null, new Customer("c-1", null, null, null, null, email, null, null, null), null, null, null,
        null);
    return Payment.create(draft, PaymentState.CHECKOUT, Instant.now()).after();
  }

  private String hit(String email) {
    FraudScreen.Verdict verdict = screen.screen(paidBy(email), () -> null).orElseThrow();
    return verdict.hit() == null ? null : verdict.hit().code();
  }

  @Test
  void another_spelling_of_a_keyed_entry_is_declined() {
    groupHolds("ivan@xn--e1afmkfd.xn--p1ai");
    assertThat(hit("Ivan@Пример.РФ")).isEqualTo("6.02");
    assertThat(hit("ivan@xn--e1afmkfd.xn--p1ai")).isEqualTo("6.02");
    assertThat(hit("ivan@example.com")).isNull();
  }

  @Test
  void an_entry_added_before_entries_were_keyed_still_matches_its_spelling() {
    groupHolds("ivan@пример.рф");
    assertThat(hit(" Ivan@Пример.РФ ")).isEqualTo("6.02");
  }

  @Test
  void an_address_without_a_key_is_compared_as_written_and_does_not_stop_the_screen() {
    groupHolds("not an address");
    assertThat(hit("Not An Address")).isEqualTo("6.02");
    assertThat(hit("someone@")).isNull();
  }
}
