package io.tollgate.application.port.in;

import io.tollgate.application.port.out.GroupRepository.GroupRecord;
import io.tollgate.application.port.out.Page;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import java.util.List;

/** A merchant's entry groups, as its users read and edit them (and operators create them). */
public interface GroupsUseCase {

  /** A group with, for countries and error codes, its entries inline. */
  record GroupView(GroupRecord group, List<String> entries) {}

  /**
   * The merchant's groups of a kind; for a kind whose single group needs a permission to be read
   * (error codes: SHOP_EDIT), the list needs it too, since it shows the entries (403). Only then
   * is a bad page a 400.
   */
  Page<GroupView> list(MerchantUser user, GroupKind kind, PageRequest page);

  /**
   * One group's entries: a group that is not the user's merchant's group of this kind is a 404,
   * a missing permission a 403, and only then is a bad page a 400.
   */
  Page<String> entries(MerchantUser user, GroupKind kind, long groupId, PageRequest page);

  /** One group with all its entries, as listed (country and error-code groups: a few hundred at most). */
  GroupView group(MerchantUser user, GroupKind kind, long groupId);

  /**
   * Adds entries, all or nothing: a group that is not the user's merchant's is a 404, a missing
   * permission a 403, whatever the body; then an unreadable body, or any bad entry (not a
   * string, or breaking the kind's rule), is a 400 listing every bad entry, and nothing changes.
   * Entries already present are not an error.
   */
  void add(MerchantUser user, GroupKind kind, long groupId, SubmittedItems<String> entries);

  /** Removes entries, all or nothing, with the same rules as {@link #add}; absent ones are not an error. */
  void remove(MerchantUser user, GroupKind kind, long groupId, SubmittedItems<String> entries);

  /** Creates a group (operators). {@code masked} applies to card groups only. */
  GroupRecord create(MerchantId merchant, GroupKind kind, String name, boolean masked);
}
