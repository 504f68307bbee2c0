package io.tollgate.application.service;

import io.tollgate.application.crypto.SecretBox;
import io.tollgate.application.port.in.GroupsUseCase;
import io.tollgate.application.port.in.PageRequest;
import io.tollgate.application.port.in.SubmittedItems;
import io.tollgate.application.port.out.GroupRepository;
import io.tollgate.application.port.out.GroupRepository.Entry;
import io.tollgate.application.port.out.GroupRepository.GroupRecord;
import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.Violation;
import io.tollgate.domain.group.Bin;
import io.tollgate.domain.group.CountryCode;
import io.tollgate.domain.group.EmailAddress;
import io.tollgate.domain.group.ErrorCodeEntry;
import io.tollgate.domain.group.GroupEntries;
import io.tollgate.domain.group.GroupKind;
import io.tollgate.domain.group.MaskedCardNumber;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.user.MerchantUser;
import java.time.Clock;
import java.util.List;
import java.util.function.Function;

/**
 * Entry groups: each edit is checked against the domain's entry rules as a whole before
 * anything is written, so one bad entry changes nothing. Full card numbers are kept only as a
 * keyed fingerprint next to their masked form.
 */
public final class GroupService implements GroupsUseCase {

  private final GroupRepository groups;
  private final ShopRepository merchants;
  private final SecretBox secrets;
  private final Clock clock;

  public GroupService(GroupRepository groups, ShopRepository merchants, SecretBox secrets, Clock clock) {
    this.groups = groups;
    this.merchants = merchants;
    this.secrets = secrets;
    this.clock = clock;
  }

  /** The value a plain card group stores for a PAN; matching a payment's card uses the same. */
  public static String cardFingerprint(SecretBox secrets, String panDigits) {
    return secrets.fingerprint("card-group:" + panDigits);
  }

  @Override
  public Page<GroupView> list(MerchantUser user, GroupKind kind, PageRequest page) {
    // Any user reads the list (CONTRACT section 1: the spec names no permission for it). It
    // shows country and error-code groups with their entries, and a user without what reading
    // one group needs (an error-code group: SHOP_EDIT) gets the groups without them: the list
    // does not hand out what the single group withholds.
    page.requireValid();
    boolean entriesShown = kind == GroupKind.COUNTRY
        || (kind == GroupKind.ERROR_CODE && user.may(kind.editPermission()));
    return groups.list(user.merchantId(), kind, page.offset(), page.limit()).map(g -> new GroupView(g,
        entriesShown ? groups.allEntries(g.id()) : null));
  }

  @Override
  public Page<String> entries(MerchantUser user, GroupKind kind, long groupId, PageRequest page) {
    GroupRecord group = owned(user, kind, groupId);
    if (kind.viewNeedsEditPermission()) {
      user.require(kind.editPermission());
    }
    page.requireValid();
    return groups.entries(group.id(), page.offset(), page.limit());
  }

  @Override
  public GroupView group(MerchantUser user, GroupKind kind, long groupId) {
    GroupRecord group = owned(user, kind, groupId);
    if (kind.viewNeedsEditPermission()) {
      user.require(kind.editPermission());
    }
    return new GroupView(group, groups.allEntries(group.id()));
  }

  @Override
  public void add(MerchantUser user, GroupKind kind, long groupId, SubmittedItems<String> raw) {
    GroupRecord group = owned(user, kind, groupId);
    user.require(kind.editPermission());
    refuseScoped(user);
    groups.add(group.id(), parse(group, raw, false), user.email(), clock.instant());
  }

  /**
   * Entries go by their value; in a group of whole card numbers, known by fingerprint and shown
   * masked, an entry also goes by the masked form the API shows it in, since a merchant that
   * keeps no card numbers has nothing else to name it by (every card shown so goes). An e-mail
   * also goes by the address as written: an entry added before e-mails were keyed by
   * {@link EmailAddress#key} has that for its value.
   */
  @Override
  public void remove(MerchantUser user, GroupKind kind, long groupId, SubmittedItems<String> raw) {
    GroupRecord group = owned(user, kind, groupId);
    user.require(kind.editPermission());
    refuseScoped(user);
    List<Entry> entries = parse(group, raw, true);
    List<String> values = entries.stream()
        .flatMap(e -> kind == GroupKind.EMAIL ? java.util.stream.Stream.of(e.value(), e.display())
            : java.util.stream.Stream.of(e.value()))
        .filter(java.util.Objects::nonNull).distinct().toList();
    groups.remove(group.id(), values, entries.stream().filter(e -> e.value() == null).map(Entry::display).toList(),
        user.email(), clock.instant());
  }

  /**
   * Entry groups belong to the merchant and guard every shop of it, through anti-fraud profiles
   * and connectors' cascading: a user scoped to some shops, who cannot even see the others,
   * must not be able to lift a blacklist that protects them.
   */
  private static void refuseScoped(MerchantUser user) {
    if (user.scoped()) {
      throw new DomainException.Forbidden("A user scoped to a shop group may not edit the merchant's groups, "
          + "which guard every shop of the merchant");
    }
  }

  /** A whole card number as the API shows it ({@link Pan#mask}): first digits and last four around a masked middle. */
  private static final java.util.regex.Pattern SHOWN_CARD = java.util.regex.Pattern.compile("\\d{3,6}\\*{5,9}\\d{4}");

  @Override
  public GroupRecord create(MerchantId merchant, GroupKind kind, String name, boolean masked) {
    if (name == null || name.isBlank() || Checks.longerThan(name, 128)) {
      throw new DomainException.Invalid("Invalid group",
          List.of(Violation.of("name", "must be 1 to 128 characters", name == null ? null : Checks.abbreviate(name))));
    }
    if (masked && kind != GroupKind.CARD) {
      throw new DomainException.Invalid("Invalid group", List.of(Violation.of("masked", "applies to card groups only", true)));
    }
    if (!merchants.merchantExists(merchant)) {
      throw new DomainException.Invalid("Invalid group", List.of(Violation.of("merchant", "does not exist", merchant.value())));
    }
    // A group of this name and kind may exist already: it is the answer, unless it holds the
    // other sort of card numbers, which its entries could not be turned into.
    GroupRecord group = groups.create(merchant, kind, name.strip(), masked, clock.instant());
    if (group.masked() != masked) {
      throw new DomainException.Conflict("group_exists", "Card group " + group.id() + " is named '" + group.name()
          + "' already and holds " + (group.masked() ? "masked card numbers" : "full card numbers")
          + "; choose another name for a group of " + (masked ? "masked" : "full") + " card numbers");
    }
    return group;
  }

  private GroupRecord owned(MerchantUser user, GroupKind kind, long id) {
    return groups.find(id)
        .filter(g -> g.kind() == kind && g.merchantId().equals(user.merchantId()))
        .orElseThrow(() -> new DomainException.NotFound("Group not found"));
  }

  /** The entries, or one 400 that lists every bad one: of the wrong type, or breaking the kind's rule. */
  private List<Entry> parse(GroupRecord group, SubmittedItems<String> submitted, boolean removing) {
    submitted.requireReadable();
    // an item of the wrong type is null here, which the rules refuse as empty; said right below
    List<String> raw = submitted.items();
    // a refused entry is echoed short, masked before it is cut so that no cut leaves digits of a card number
    Function<String, String> echo = group.kind() == GroupKind.CARD
        ? v -> Checks.abbreviate(Pan.maskCardField(v)) : v -> Checks.abbreviate(Pan.maskForDisplay(v));
    GroupEntries.Parsed<Entry> parsed = switch (group.kind()) {
      case BIN -> GroupEntries.parse(raw, same(v -> new Bin(v).value()), echo);
      case EMAIL -> GroupEntries.parse(raw, v -> {
        // matched by the key that every spelling of the address shares, shown as the merchant wrote it
        EmailAddress address = new EmailAddress(v);
        return new Entry(address.key(), address.value());
      }, echo);
      case COUNTRY -> GroupEntries.parse(raw, same(v -> new CountryCode(v).value()), echo);
      case ERROR_CODE -> GroupEntries.parse(raw, same(v -> new ErrorCodeEntry(v).value()), echo);
      case CARD -> group.masked()
          ? GroupEntries.parse(raw, v -> {
            MaskedCardNumber masked = new MaskedCardNumber(v);
            return new Entry(masked.key(), masked.display());
          }, echo)
          : GroupEntries.parse(raw, v -> {
            if (removing && SHOWN_CARD.matcher(v.strip()).matches()) {
              return new Entry(null, v.strip());
            }
            Pan pan = new Pan(v);
            return new Entry(cardFingerprint(secrets, pan.digits()), pan.masked());
          }, echo);
    };
    if (!parsed.isValid()) {
      String field = group.kind().entriesField();
      throw new DomainException.Invalid("Invalid " + field, parsed.violations().stream()
          .map(v -> submitted.wrongType().containsKey(v.index())
              ? Violation.of(field + "[" + v.index() + "]", "must be a string", submitted.wrongType().get(v.index()))
              : Violation.of(v.index() < 0 ? field : field + "[" + v.index() + "]", v.message(), v.rejectedValue()))
          .toList());
    }
    return parsed.entries();
  }

  private static Function<String, Entry> same(Function<String, String> normalize) {
    return v -> {
      String n = normalize.apply(v);
      return new Entry(n, n);
    };
  }
}
