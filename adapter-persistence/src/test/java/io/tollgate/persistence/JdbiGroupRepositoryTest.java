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
    groups.add(bins.id(), List.of(new Entry("400000", "400000"), new Entry("411111", "411111")), "test", now);
    groups.add(emails.id(), List.of(new Entry("a@example.com", "a@example.com")), "test", now);
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

  /** Each edit that changed something is kept with who made it; one that changed nothing is not. */
  @Test
  void edits_are_kept_with_what_they_changed_newest_first() {
    GroupRepository groups = adapters.groups();
    MerchantId merchant = adapters.shops().createMerchant("Audited", Instant.now());
    MerchantId other = adapters.shops().createMerchant("Elsewhere", Instant.now());
    Instant t0 = Instant.parse("2026-11-25T10:00:00Z");
    var cards = groups.create(merchant, GroupKind.CARD, "Blocked cards", false, t0);
    var bins = groups.create(merchant, GroupKind.BIN, "Blocked BINs", false, t0);
    var elsewhere = groups.create(other, GroupKind.BIN, "Not theirs", false, t0);

    groups.add(cards.id(), List.of(new Entry("fp-1", "411111******1111")), "ann@shop.example", t0);
    groups.add(cards.id(), List.of(new Entry("fp-1", "411111******1111"), new Entry("fp-2", "555555******4444")),
        "bob@shop.example", t0.plusSeconds(1));
    groups.add(cards.id(), List.of(new Entry("fp-2", "555555******4444")), "bob@shop.example", t0.plusSeconds(2));
    groups.remove(cards.id(), List.of("fp-3"), List.of(), "ann@shop.example", t0.plusSeconds(3));
    groups.remove(cards.id(), List.of(), List.of("411111******1111"), "ann@shop.example", t0.plusSeconds(4));
    groups.add(bins.id(), List.of(new Entry("400000", "400000"), new Entry("222100", "222100")), "ann@shop.example",
        t0.plusSeconds(5));
    groups.add(elsewhere.id(), List.of(new Entry("400000", "400000")), "eve@other.example", t0.plusSeconds(6));
    long shops = adapters.referenceData().createShopGroup(merchant, "Web shops", t0);
    var shop = TestShops.create(adapters, "Audited web");
    adapters.referenceData().addShopsToGroup(shops, List.of(shop.value()), "ann@shop.example", t0.plusSeconds(7));

    assertThat(groups.edits(merchant, null, null, 10)).extracting(e -> e.editedBy() + " " + e.action() + " "
            + e.groupKind() + " " + e.groupName() + " " + e.entries() + " " + e.edited())
        .containsExactly(
            "ann@shop.example ADD SHOP Web shops [" + shop.value() + "] 2026-11-25T10:00:07Z",
            "ann@shop.example ADD BIN Blocked BINs [222100, 400000] 2026-11-25T10:00:05Z",
            "ann@shop.example REMOVE CARD Blocked cards [411111******1111] 2026-11-25T10:00:04Z",
            "bob@shop.example ADD CARD Blocked cards [555555******4444] 2026-11-25T10:00:01Z",
            "ann@shop.example ADD CARD Blocked cards [411111******1111] 2026-11-25T10:00:00Z");
    assertThat(groups.edits(merchant, cards.id(), "CARD", 10)).hasSize(3);
    assertThat(groups.edits(merchant, null, "SHOP", 10)).singleElement()
        .satisfies(e -> assertThat(e.groupId()).isEqualTo(shops));
    assertThat(groups.edits(merchant, null, null, 2)).hasSize(2);
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
