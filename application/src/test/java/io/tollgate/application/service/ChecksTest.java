package io.tollgate.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tollgate.domain.DomainException;
import org.junit.jupiter.api.Test;

class ChecksTest {

  @Test
  void a_value_too_long_is_echoed_cut_without_the_first_digits_of_a_card_number_across_the_cut() {
    // the card number starts 11 characters before the cut at 256: cut first, its first 11 digits would be
    // echoed, too few for the envelope to see a card number in them
    String description = "x".repeat(245) + "4000000000000002" + "y".repeat(300);
    Checks checks = new Checks();
    checks.maxLength("description", description, 512);

    assertThatThrownBy(() -> checks.throwIfAny("Invalid payment request"))
        .isInstanceOfSatisfying(DomainException.Invalid.class, e -> {
          String echoed = (String) e.violations().get(0).rejectedValue();
          assertThat(echoed).startsWith("x".repeat(245) + "400000*").doesNotContain("4000000")
              .endsWith("…").hasSize(257);
        });
  }

  @Test
  void a_short_value_is_echoed_as_given() {
    Checks checks = new Checks();
    checks.maxLength("referenceId", "order-1001", 5);

    assertThatThrownBy(() -> checks.throwIfAny("Invalid"))
        .isInstanceOfSatisfying(DomainException.Invalid.class,
            e -> assertThat(e.violations().get(0).rejectedValue()).isEqualTo("order-1001"));
  }
}
