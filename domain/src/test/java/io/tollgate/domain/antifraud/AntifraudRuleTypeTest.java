package io.tollgate.domain.antifraud;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AntifraudRuleTypeTest {

  @ParameterizedTest
  @EnumSource(value = AntifraudRuleType.class, names = {"COMPLETED_DEPOSITS_PER_CARD", "DECLINED_DEPOSITS_PER_CARD"})
  void a_rule_that_counts_a_cards_deposits_screens_deposits_only(AntifraudRuleType velocity) {
    assertThat(velocity.screens(PaymentType.DEPOSIT)).isTrue();
    assertThat(velocity.screens(PaymentType.WITHDRAWAL)).isFalse();
  }

  @ParameterizedTest
  @EnumSource(value = AntifraudRuleType.class, names = {"COMPLETED_DEPOSITS_PER_CARD", "DECLINED_DEPOSITS_PER_CARD"},
      mode = EnumSource.Mode.EXCLUDE)
  void a_list_rule_screens_deposits_and_withdrawals(AntifraudRuleType list) {
    assertThat(list.screens(PaymentType.DEPOSIT)).isTrue();
    assertThat(list.screens(PaymentType.WITHDRAWAL)).isTrue();
  }

  @Test
  void velocity_rules_count_the_deposits_that_may_still_reach_their_state_and_not_those_that_cannot() {
    assertThat(AntifraudRuleType.COMPLETED_DEPOSITS_PER_CARD.countedStates())
        .containsExactlyInAnyOrder(PaymentState.PENDING, PaymentState.AUTHORIZED, PaymentState.COMPLETED);
    assertThat(AntifraudRuleType.DECLINED_DEPOSITS_PER_CARD.countedStates())
        .containsExactlyInAnyOrder(PaymentState.PENDING, PaymentState.DECLINED);
    assertThat(AntifraudRuleType.CARD_BLACKLIST.countedStates()).isEmpty();
  }

  @Test
  void a_card_verification_is_a_declined_attempt_but_never_a_completed_deposit() {
    assertThat(AntifraudRuleType.COMPLETED_DEPOSITS_PER_CARD.countsVerifications()).isFalse();
    assertThat(AntifraudRuleType.DECLINED_DEPOSITS_PER_CARD.countsVerifications()).isTrue();
  }
}
