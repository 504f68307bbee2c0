package io.tollgate.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.GroupRepository.Entry;
import io.tollgate.application.port.out.GroupRepository.Member;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.shop.MerchantId;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the anti-fraud screen asks of groups, answered in one statement. */
class JdbiGroupRepositoryTest extends FreshDatabaseTest {

  @Test
  void a_lookup_returns_the_groups_that_exist_and_only_the_candidates_they_hold() {
    GroupRepository groups = adapters.groups();
    MerchantId merchant = adapters.shops().createMerchant("Screened", Instant.now());
    Instant now = Instant.now();
    var bins = groups.create(merchant, GroupKind.BIN, "Bad BINs", false, now);
    var emails = groups.create(merchant, GroupKind.EMAIL, "Bad e-mails", false, now);
    var empty = groups.create(merchant, GroupKind.COUNTRY, "Nowhere", false, now);
    groups.add(bins.id(), List.of(new Entry("400000", "400000"), new Entry("411111", "411111")), now);
    groups.add(emails.id(), List.of(new Entry("a@example.com", "a@example.com")), now);
    long gone = empty.id() + 1_000;

    GroupRepository.Lookup found = groups.lookup(List.of(bins.id(), emails.id(), empty.id(), gone), List.of(
        new Member(bins.id(), "40000000"), new Member(bins.id(), "400000"),
        new Member(emails.id(), "a@example.com"), new Member(emails.id(), "b@example.com"),
        // a value held by another group is not held by this one
        new Member(empty.id(), "411111"), new Member(gone, "400000")), List.of());

    assertThat(found.groups()).containsOnlyKeys(bins.id(), emails.id(), empty.id());
    assertThat(found.groups().get(emails.id()).name()).isEqualTo("Bad e-mails");
    assertThat(found.groups().get(empty.id()).kind()).isEqualTo(GroupKind.COUNTRY);
    assertThat(found.held()).isEqualTo(Set.of(new Member(bins.id(), "400000"), new Member(emails.id(), "a@example.com")));
  }

  @Test
  void a_lookup_without_candidates_still_names_the_groups() {
    GroupRepository groups = adapters.groups();
    MerchantId merchant = adapters.shops().createMerchant("No values", Instant.now());
    var cards = groups.create(merchant, GroupKind.CARD, "Cards", true, Instant.now());

    GroupRepository.Lookup found = groups.lookup(List.of(cards.id()), List.of(), List.of());

    assertThat(found.groups()).containsOnlyKeys(cards.id());
    assertThat(found.groups().get(cards.id()).masked()).isTrue();
    assertThat(found.held()).isEmpty();
    assertThat(groups.lookup(List.of(), List.of(), List.of()).groups()).isEmpty();
  }
}
