package io.tollgate.application.port.out;

import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Entry groups and their entries. Adds and removes are idempotent. */
public interface GroupRepository {

  GroupRecord create(MerchantId merchant, GroupKind kind, String name, boolean masked, Instant now);

  /** The merchant's groups of a kind, by id. */
  Page<GroupRecord> list(MerchantId merchant, GroupKind kind, int offset, int limit);

  Optional<GroupRecord> find(long id);

  /** Entries as shown, ordered, one page. */
  Page<String> entries(long groupId, int offset, int limit);

  /** Every entry as shown (small groups: countries, error codes). */
  List<String> allEntries(long groupId);

  /** Adds the entries, and keeps those that were not there yet as an edit by {@code editedBy}. */
  void add(long groupId, Collection<Entry> entries, String editedBy, Instant now);

  /**
   * Removes the entries of these values, and those shown as one of {@code shown} (a card
   * number's masked form: its whole number is known to the group by its fingerprint only), and
   * keeps those removed as an edit by {@code editedBy}.
   */
  void remove(long groupId, Collection<String> values, Collection<String> shown, String editedBy, Instant now);

  /**
   * The merchant's group edits that changed something, newest first, of entry groups and shop
   * groups alike; only those of group {@code groupId} and of kind {@code groupKind} when given.
   */
  List<GroupEdit> edits(MerchantId merchant, Long groupId, String groupKind, int limit);

  /**
   * One edit of a group that changed something.
   *
   * @param groupKind an entry group's kind, or {@code SHOP} for a shop group
   * @param groupName null for a group that no longer exists
   * @param action {@code ADD} or {@code REMOVE}
   * @param entries what changed, as the merchant API shows it (card numbers masked; for a shop
   *     group, the shops' ids)
   * @param editedBy the merchant user's e-mail address, or who else made it
   */
  record GroupEdit(long id, String groupKind, long groupId, String groupName, String action, List<String> entries,
      String editedBy, Instant edited) {}

  /** Whether the group holds this value (matching: a BIN, an e-mail, a card fingerprint, ...). */
  boolean contains(long groupId, String value);

  /**
   * The groups of these ids that exist, which of the candidate (group, value) pairs they hold,
   * and each velocity count asked: what an anti-fraud screen asks, in one round trip however
   * many rules ask it.
   */
  Lookup lookup(Collection<Long> groupIds, Collection<Member> candidates, List<CardCount> counts);

  /**
   * What {@link #lookup} found: the groups that exist, by id, the candidates they hold, and the
   * answer to each velocity count, in the order asked.
   */
  record Lookup(java.util.Map<Long, GroupRecord> groups, java.util.Set<Member> held, List<Integer> counts) {}

  /**
   * A velocity count: how many of the shop's deposits with this card token are in one of
   * {@code states}, last updated since {@code since} or, for a deposit still in progress
   * ({@code PENDING}, {@code AUTHORIZED}: it may yet complete or be declined), in the 30 days
   * before, leaving out {@code except} (the payment being screened, which its own step may
   * already have written, or null), those the anti-fraud screen declined (a 6.xx error code) and
   * the gateway's own declines (1.xx); counting stops at {@code atMost}. Deposits of no amount,
   * card verifications, count only when {@code verifications} is true. An implementation must
   * see what its caller's transaction has written.
   */
  record CardCount(ShopId shop, String cardToken, Set<PaymentState> states, PaymentId except, Instant since,
      int atMost, boolean verifications) {

    public CardCount {
      states = Set.copyOf(states);
      if (states.isEmpty()) {
        throw new IllegalArgumentException("a velocity count counts at least one state");
      }
    }
  }

  /** A value asked about in a group. */
  record Member(long groupId, String value) {}

  record GroupRecord(long id, MerchantId merchantId, String merchantName, GroupKind kind, String name,
      boolean masked) {}

  /**
   * @param value what matching compares
   * @param display what the merchant API shows
   */
  record Entry(String value, String display) {}
}
