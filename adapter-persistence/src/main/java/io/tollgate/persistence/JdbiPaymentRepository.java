package io.tollgate.persistence;

import io.tollgate.application.port.out.BalanceRepository;
import io.tollgate.application.port.out.CardVault;
import io.tollgate.application.port.out.Page;
import io.tollgate.application.port.out.PaymentRepository;
import io.tollgate.application.port.out.WebhookOutbox;
import io.tollgate.domain.DomainException;
import io.tollgate.domain.error.ErrorCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.money.Money;
import io.tollgate.domain.payment.BillingAddress;
import io.tollgate.domain.payment.CardDetails;
import io.tollgate.domain.payment.Customer;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.Payment;
import io.tollgate.domain.payment.PaymentId;
import io.tollgate.domain.payment.PaymentMethod;
import io.tollgate.domain.payment.PaymentOperation;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.ShopId;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;

final class JdbiPaymentRepository implements PaymentRepository {

  /** From this offset on, a page of a list is read by its ids first (see deferredFrom). */
  private static final int DEFERRED_ROWS_FROM = 1_000;

  private final Jdbi jdbi;
  private final Currencies currencies;
  /**
   * The currency codes this process has seen recorded in {@code currencies_in_use} by a committed
   * write, which the start reads instead of every payment ({@link Database#currenciesRecorded}).
   */
  private final java.util.Set<String> recordedCurrencies = java.util.concurrent.ConcurrentHashMap.newKeySet();

  JdbiPaymentRepository(Jdbi jdbi, Currencies currencies) {
    this.jdbi = jdbi;
    this.currencies = currencies;
  }

  @Override
  public Payment insert(Payment.Transition creation, Function<Payment, Effects> effects) {
    Payment payment = creation.after().withVersion(1);
    Effects caused = effects.apply(payment);
    if (caused.card() != null && (payment.card() == null || !caused.card().token().equals(payment.card().cardToken())
        || !caused.card().shop().equals(payment.shopId()))) {
      throw new IllegalArgumentException("the vault entry must be the payment's own card");
    }
    Written written = write(caused.card() == null ? PaymentSql.INSERT_WRITTEN : PaymentSql.INSERT_WRITTEN_VAULTED,
        payment, null, List.of(creation.operation()), caused);
    // A card the shop stored before tokens were derived keeps the token it was given then.
    return written.cardToken() == null || written.cardToken().equals(payment.card().cardToken())
        ? payment : payment.withCardToken(written.cardToken());
  }

  @Override
  public Payment update(Payment.Transition step, List<PaymentOperation> earlier, Function<Payment, Effects> effects) {
    long expected = step.before().version();
    Payment after = step.after().withVersion(expected + 1);
    List<PaymentOperation> operations = new ArrayList<>(earlier);
    if (step.operation() != null) {
      operations.add(step.operation());
    }
    if (write(PaymentSql.UPDATE_WRITTEN, after, expected, operations, effects.apply(after)).rows() != 1) {
      throw new DomainException.Conflict("concurrent_modification",
          "The payment was changed by another request; retry");
    }
    return after;
  }

  /** What a write's statement is made of; each shape's SQL is assembled once. */
  private record Shape(String written, int operations, boolean card, boolean event, boolean entry, boolean customer) {}

  /**
   * The statements of {@link #write}, by shape: assembling one on every write cost a few
   * kilobytes of text to copy and hash per payment step, and a new string each time for the
   * statement caches to compare.
   */
  private static final java.util.concurrent.ConcurrentMap<Shape, String> WRITES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static String sqlOf(Shape shape) {
    StringBuilder sql = new StringBuilder("WITH ");
    if (shape.card()) {
      sql.append(JdbiCardVault.STORE).append(", ");
    }
    sql.append(shape.written());
    if (shape.operations() > 0) {
      sql.append(", ")
          .append(shape.operations() == 1 ? PaymentSql.OPERATION : PaymentSql.operations(shape.operations()));
    }
    if (shape.event()) {
      sql.append(", ").append(PaymentSql.EVENT);
    }
    if (shape.entry()) {
      sql.append(", ").append(PaymentSql.LEDGER);
    }
    if (shape.customer()) {
      sql.append(", ").append(PaymentSql.CUSTOMER);
    }
    return sql.append("SELECT count(*), ")
        .append(shape.card() ? "(SELECT token FROM vault), (SELECT lost FROM vault_lost)" : "CAST(NULL AS text), false")
        .append(" FROM written").toString();
  }

  /**
   * One statement, one round trip: the payment row, its operations, and the outbox row, ledger
   * entry, customer and vault entry the step causes, the others only if the row was written
   * (the vault entry before it, as the row carries its token).
   */
  private Written write(String written, Payment p, Long expected, List<PaymentOperation> operations, Effects effects) {
    CardVault.Sealed card = effects.card();
    if (card != null && expected != null) {
      throw new IllegalArgumentException("a card is stored with a new payment only");
    }
    WebhookOutbox.NewEvent event = effects.event();
    BalanceRepository.LedgerEntry entry = effects.entry();
    Customer customer = effects.customer();
    if (customer != null && expected != null) {
      throw new IllegalArgumentException("a customer is recorded with a new payment only");
    }
    BalanceRepository.Transfer transfer = effects.transfer();
    if (transfer != null && expected == null) {
      throw new IllegalArgumentException("a transfer is written with a step of a stored payment only");
    }
    String sql = WRITES.computeIfAbsent(new Shape(written, operations.size(), card != null, event != null,
        entry != null, customer != null), JdbiPaymentRepository::sqlOf);
    PaymentRow row = toRow(p);
    List<String> unrecorded = unrecordedCurrencies(row);
    org.jdbi.v3.core.HandleCallback<Written, RuntimeException> statement = h -> {
      Query q = h.createQuery(sql);
      // one binding for both shapes of the row: an update leaves the immutable columns unused
      q.getConfig(org.jdbi.v3.core.statement.SqlStatements.class).setUnusedBindingAllowed(true);
      bind(q, row);
      if (operations.size() == 1) {
        bind(q, "o", toRow(p, operations.get(0)));
      } else {
        for (int i = 0; i < operations.size(); i++) {
          bind(q, "o" + i, toRow(p, operations.get(i)));
        }
      }
      if (expected != null) {
        q.bind("expected", expected.longValue());
      }
      if (event != null) {
        q.bind("eventId", UUID.fromString(event.id())).bind("eventShop", event.shopId().value())
            .bind("eventState", event.paymentState().name()).bind("eventUrl", event.targetUrl())
            .bind("eventBody", event.body()).bind("eventAt", event.created());
      }
      if (entry != null) {
        q.bind("entryShop", entry.shop().value()).bind("entryCurrency", entry.currency().code())
            .bind("entryAvailable", entry.available()).bind("entryReserved", entry.reserved())
            .bind("entryReason", entry.reason()).bind("entryAt", entry.at())
            .bind("entrySpread", JdbiBalanceRepository.spreads(entry))
            .bind("entrySlot", JdbiBalanceRepository.slotFor(entry));
      }
      if (customer != null) {
        bindCustomer(q, customer);
      }
      if (card != null) {
        JdbiCardVault.bind(q, card, p.created());
      }
      Written done = q.map((rs, ctx) -> new Written(rs.getInt(1), rs.getString(2), rs.getBoolean(3))).one();
      if (done.cardLost() && done.rows() == 1) {
        // forgotten as the statement found it: stored again under the token the payment now has
        JdbiCardVault.restore(h, new CardVault.Sealed(card.shop(), done.cardToken() == null ? card.token()
            : done.cardToken(), card.fingerprint(), card.ciphertext()), p.created());
      }
      return done;
    };
    // One statement is atomic by itself; inside a TransactionRunner's transaction it joins it.
    // The first write of a currency in this process records it in the same transaction, and a
    // payout's transfer is written in it after the row.
    return jdbi.withHandle(h -> unrecorded.isEmpty() && transfer == null ? statement.withHandle(h)
        : h.inTransaction(t -> {
          if (!unrecorded.isEmpty()) {
            // with the decimals its amounts are held to now, which a start that gives it fewer checks
            t.createUpdate("INSERT INTO currencies_in_use (code, decimals) SELECT * FROM "
                    + "unnest(CAST(:codes AS text[]), CAST(:decimals AS integer[])) ON CONFLICT DO NOTHING")
                .bindArray("codes", String.class, unrecorded)
                .bindArray("decimals", Integer.class,
                    unrecorded.stream().map(c -> currencies.require(c).scale()).toList())
                .execute();
            t.afterCommit(() -> recordedCurrencies.addAll(unrecorded));
          }
          Written done = statement.withHandle(t);
          if (transfer != null && done.rows() == 1) {
            JdbiBalanceRepository.transfer(t, transfer);
          }
          return done;
        }));
  }

  private List<String> unrecordedCurrencies(PaymentRow row) {
    String charged = row.currency();
    String asked = row.customerCurrency();
    boolean chargedNew = !recordedCurrencies.contains(charged);
    boolean askedNew = asked != null && !asked.equals(charged) && !recordedCurrencies.contains(asked);
    if (!chargedNew && !askedNew) {
      return List.of();
    }
    // in one order: two first writes of the same two new codes wait for each other in turn, not
    // each for the other's (a deadlock that PostgreSQL would end by failing one of the payments)
    return chargedNew && askedNew ? java.util.stream.Stream.of(charged, asked).sorted().toList()
        : List.of(chargedNew ? charged : asked);
  }

  /**
   * How many payment rows a write stored (0 or 1), the token the vault holds for its card, if it
   * stored one, and whether that card was forgotten as the write found it.
   */
  private record Written(int rows, String cardToken, boolean cardLost) {}

  @Override
  public Optional<Payment> find(PaymentId id) {
    return jdbi.withHandle(h -> h.createQuery(PaymentSql.FIND).bind("id", id.value())
        .map(PaymentRows.PAYMENT).findOne()).map(this::toPayment);
  }

  @Override
  public Optional<Payment> lockIfUnchanged(Due due) {
    return jdbi.withHandle(h -> h.createQuery(PaymentSql.LOCK_IF_UNCHANGED).bind("id", due.id().value())
        .bind("version", due.version()).bind("checked", due.checked())
        .map(PaymentRows.PAYMENT).findOne()).map(this::toPayment);
  }

  @Override
  public Optional<Payment> findAsAnswered(ShopId shop, String idempotencyKey) {
    return jdbi.withHandle(h -> h.createQuery(PaymentSql.FIND_AS_ANSWERED).bind("shop", shop.value())
        .bind("key", idempotencyKey).map(PaymentRows.PAYMENT).findOne()).map(this::toPayment);
  }

  @Override
  public Optional<Payment> findForUpdate(PaymentId id) {
    return jdbi.inTransaction(h -> h.createQuery(PaymentSql.FIND_FOR_UPDATE).bind("id", id.value())
        .map(PaymentRows.PAYMENT).findOne()).map(this::toPayment);
  }

  @Override
  public Optional<Locked> findForUpdateWithCard(PaymentId id, boolean lockCard) {
    String sql = lockCard ? PaymentSql.FIND_FOR_UPDATE_WITH_CARD_LOCKED : PaymentSql.FIND_FOR_UPDATE_WITH_CARD;
    return jdbi.inTransaction(h -> h.createQuery(sql).bind("id", id.value())
        .map((rs, ctx) -> new LockedRow(PaymentRows.PAYMENT.map(rs, ctx), rs.getBytes("card_ciphertext"))).findOne())
        .map(row -> new Locked(toPayment(row.payment()), row.cardCiphertext()));
  }

  private static <T extends org.jdbi.v3.core.statement.SqlStatement<T>> T bindCustomer(T q, Customer customer) {
    return q.bind("customerRef", customer.referenceId()).bind("customerFirst", customer.firstName())
        .bind("customerLast", customer.lastName()).bind("customerEmail", customer.email())
        .bind("customerPhone", customer.phone()).bind("customerBirth", customer.dateOfBirth());
  }

  @Override
  public void lockCustomer(ShopId shop, Customer customer, java.time.Instant at) {
    jdbi.useHandle(h -> bindCustomer(h.createUpdate(PaymentSql.LOCK_CUSTOMER), customer)
        .bind("shop", shop.value()).bind("at", at).execute());
  }

  @Override
  public Optional<CardDetails> lastCardWithExpiry(ShopId shop, String cardToken) {
    // Only a deposit an acquirer took gives the expiry: a mistyped one was declined (4.04), a
    // refund copies its deposit's, and an old payment changed later is no newer for it. The
    // card's own deposits are read first, from payments_card_state (V35, whose condition the
    // CTE names word for word; COMPLETED and AUTHORIZED carry no 6.xx or 1.xx code), and only they are
    // sorted: asked for the newest of the shop's payments at once, the planner would read the
    // shop's whole history newest first for a card that has none.
    return jdbi.withHandle(h -> h.createQuery("""
            WITH taken AS MATERIALIZED (
              SELECT card, created FROM payments
              WHERE shop_id = :shop AND card->>'cardToken' = :token AND state IN ('COMPLETED', 'AUTHORIZED')
                AND payment_type = 'DEPOSIT' AND card IS NOT NULL AND coalesce(error_code, '') NOT LIKE '6.%'
                AND coalesce(error_code, '') NOT LIKE '1.%')
            SELECT card FROM taken WHERE card->>'expiryYear' IS NOT NULL
            ORDER BY created DESC LIMIT 1
            """).bind("shop", shop.value()).bind("token", cardToken).mapTo(String.class).findOne())
        .map(json -> JsonColumns.read(json, CardDetails.class));
  }

  @Override
  public void lockCard(ShopId shop, String cardToken) {
    jdbi.useTransaction(h -> h.createQuery(PaymentSql.LOCK_CARD).bind("shop", shop.value()).bind("token", cardToken)
        .mapTo(Integer.class).one());
  }

  private record LockedRow(PaymentRow payment, byte[] cardCiphertext) {}

  @Override
  public Page<Payment> list(PaymentFilter f, int offset, int limit) {
    StringBuilder sql = new StringBuilder("shop_id = :shop");
    if (f.createdFrom() != null) {
      sql.append(" AND created >= :createdFrom");
    }
    if (f.createdBefore() != null) {
      sql.append(" AND created < :createdBefore");
    }
    if (f.updatedFrom() != null) {
      sql.append(" AND updated >= :updatedFrom");
    }
    if (f.updatedBefore() != null) {
      sql.append(" AND updated < :updatedBefore");
    }
    if (f.referenceId() != null) {
      sql.append(" AND reference_id = :referenceId");
    }
    sql.append(" ORDER BY created DESC, id DESC LIMIT :limit OFFSET :offset");
    List<PaymentRow> rows = jdbi.withHandle(h -> {
      Query q = h.createQuery(deferredFrom(offset, PaymentSql.COLUMNS, "payments", sql.toString(), "created"))
          .bind("shop", f.shopId().value())
          .bind("limit", limit + 1)
          .bind("offset", offset);
      if (f.createdFrom() != null) {
        q.bind("createdFrom", f.createdFrom());
      }
      if (f.createdBefore() != null) {
        q.bind("createdBefore", f.createdBefore());
      }
      if (f.updatedFrom() != null) {
        q.bind("updatedFrom", f.updatedFrom());
      }
      if (f.updatedBefore() != null) {
        q.bind("updatedBefore", f.updatedBefore());
      }
      if (f.referenceId() != null) {
        q.bind("referenceId", f.referenceId());
      }
      return q.map(PaymentRows.PAYMENT).list();
    });
    boolean hasMore = rows.size() > limit;
    List<Payment> page = new ArrayList<>();
    for (int i = 0; i < Math.min(limit, rows.size()); i++) {
      page.add(toPayment(rows.get(i)));
    }
    return new Page<>(page, hasMore);
  }

  @Override
  public Page<PaymentWithRefunds> listForMerchant(MerchantId merchant, Instant createdFrom, Instant createdBefore,
      java.util.Set<Long> inShopGroups, int offset, int limit) {
    // Unscoped (every merchant user but those scoped to a shop group, and no group filter), the
    // statement has no shop-group predicate at all: the benchmarked first page.
    String where = """
         merchant_id = :merchant
          AND created >= coalesce(CAST(:from AS timestamptz), '-infinity')
          AND created < coalesce(CAST(:before AS timestamptz), 'infinity')
        """ + inShopGroups(inShopGroups.size()) + """
        ORDER BY created DESC, id DESC LIMIT :limit OFFSET :offset
        """;
    // The refunds come from the deposit's own row (V26), so the page is one statement.
    String sql = deferredFrom(offset, PaymentSql.COLUMNS + ", refunded_amount", "payments", where, "created");
    List<ListedRow> rows = jdbi.withHandle(h -> bindShopGroups(h.createQuery(sql), inShopGroups)
        .bind("merchant", merchant.value()).bind("from", createdFrom).bind("before", createdBefore)
        .bind("limit", limit + 1).bind("offset", offset)
        .map((rs, ctx) -> new ListedRow(PaymentRows.PAYMENT.map(rs, ctx), rs.getBigDecimal("refunded_amount")))
        .list());
    return new Page<>(rows.stream().limit(limit).map(row -> {
      Payment p = toPayment(row.payment());
      if (p.type() != PaymentType.DEPOSIT) {
        return new PaymentWithRefunds(p, null);
      }
      BigDecimal sum = row.refunded() == null ? BigDecimal.ZERO : row.refunded();
      return new PaymentWithRefunds(p, new Money(sum.stripTrailingZeros(), p.amount().currency()));
    }).toList(), rows.size() > limit);
  }

  /**
   * The page of {@code table}'s rows that {@code where} (its conditions, order, limit and offset)
   * picks, newest {@code time} first. Deep pages take the page's ids from the index alone, then
   * only those rows: the offset skips index entries instead of fetching (and throwing away) that
   * many rows of the table, which at offset 400,000 of a shop's list took 850 ms against 31.
   * Near the top the skipped rows are few, and one index scan is cheaper than the two lookups.
   */
  private static String deferredFrom(int offset, String columns, String table, String where, String time) {
    return offset < DEFERRED_ROWS_FROM
        ? "SELECT " + columns + " FROM " + table + " WHERE " + where
        : "SELECT " + columns + " FROM " + table + " WHERE id IN (SELECT id FROM " + table + " WHERE " + where
            + ") ORDER BY " + time + " DESC, id DESC";
  }

  /** A listed payment's row, with what its COMPLETED refunds paid back (a deposit's; null: nothing). */
  private record ListedRow(PaymentRow payment, BigDecimal refunded) {}

  /**
   * The predicate that keeps a merchant list to the shops in shop groups (a scoped user's, a
   * {@code shopGroupId.eq} filter): one line per group, bound by {@link #bindShopGroups}, and no
   * text at all for none. Membership is read by the statement itself, so an edit of a group
   * counts on the next page asked for.
   */
  private static String inShopGroups(int groups) {
    StringBuilder sql = new StringBuilder();
    for (int i = 0; i < groups; i++) {
      sql.append("  AND shop_id IN (SELECT m.shop_id FROM shop_group_members m WHERE m.group_id = :shopGroup")
          .append(i).append(")\n");
    }
    return sql.toString();
  }

  private static Query bindShopGroups(Query query, java.util.Set<Long> groups) {
    int i = 0;
    for (Long group : groups.stream().sorted().toList()) {
      query.bind("shopGroup" + i++, group);
    }
    return query;
  }

  @Override
  public Page<OperationWithPayment> operationsForMerchant(MerchantId merchant, Instant completedFrom,
      Instant completedBefore, java.util.Set<io.tollgate.domain.payment.OperationType> operations,
      java.util.Set<io.tollgate.domain.payment.PaymentState> states, java.util.Set<Long> inShopGroups, int offset,
      int limit) {
    List<OperationRow> rows = jdbi.withHandle(h -> bindShopGroups(h.createQuery(
            operationsSql(operations, states, inShopGroups.size(), offset)), inShopGroups)
        .bind("merchant", merchant.value()).bind("from", completedFrom).bind("before", completedBefore)
        .bind("limit", limit + 1).bind("offset", offset)
        .map(PaymentRows.OPERATION).list());
    boolean hasMore = rows.size() > limit;
    List<OperationRow> page = rows.stream().limit(limit).toList();
    String[] ids = page.stream().map(OperationRow::paymentId).distinct().toArray(String[]::new);
    java.util.Map<String, Payment> byId = new java.util.HashMap<>();
    if (ids.length > 0) {
      jdbi.withHandle(h -> h.createQuery("SELECT " + PaymentSql.COLUMNS + " FROM payments WHERE id = ANY(:ids)")
          .bind("ids", ids).map(PaymentRows.PAYMENT).list())
          .forEach(r -> byId.put(r.id(), toPayment(r)));
    }
    return new Page<>(page.stream().map(o -> new OperationWithPayment(toOperation(o), byId.get(o.paymentId()))).toList(),
        hasMore);
  }

  /**
   * The statement of a page of the merchant's operations ({@code :merchant}, {@code :from},
   * {@code :before}, {@code :limit}, {@code :offset}, and {@link #bindShopGroups}'s groups).
   * The kinds and states asked for are written into it, as the names of their enums (nothing a
   * client typed): PostgreSQL then knows, even in the plan it keeps for the statement, that a
   * rare kind or state is asked for, whose index (V39) holds only the few operations of that
   * sort. A parameter, planned once for every value, scanned all the merchant's operations for a
   * kind it has none of (0.4 s at 2.6 million).
   */
  static String operationsSql(java.util.Set<io.tollgate.domain.payment.OperationType> operations,
      java.util.Set<io.tollgate.domain.payment.PaymentState> states, int shopGroups, int offset) {
    String where = """
        merchant_id = :merchant
          AND completed >= coalesce(CAST(:from AS timestamptz), '-infinity')
          AND completed < coalesce(CAST(:before AS timestamptz), 'infinity')
        """ + (operations.isEmpty() ? "" : "  AND operation IN (" + quoted(operations) + ")\n")
        + (states.isEmpty() ? "" : "  AND payment_state IN (" + quoted(states) + ")\n")
        + inShopGroups(shopGroups) + """
        ORDER BY completed DESC, id DESC LIMIT :limit OFFSET :offset
        """;
    return deferredFrom(offset, PaymentSql.OPERATION_COLUMNS, "payment_operations", where, "completed");
  }

  /** SQL literals of enum names, sorted, so that one set of them is always one statement. */
  private static String quoted(java.util.Set<? extends Enum<?>> values) {
    return values.stream().map(Enum::name).sorted().map(name -> "'" + name + "'")
        .collect(java.util.stream.Collectors.joining(", "));
  }

  @Override
  public void checked(PaymentId id, Instant at) {
    jdbi.useHandle(h -> h.createUpdate("UPDATE payments SET checked = :at WHERE id = :id")
        .bind("at", at).bind("id", id.value()).execute());
  }

  @Override
  public void ask(PaymentId id, Asked asked, Instant at) {
    jdbi.useHandle(h -> h.createUpdate("UPDATE payments SET asked_operation = :operation, asked_amount = :amount,"
            + " asked_customer_amount = :customerAmount, asked_key = :key, asked_at = :at WHERE id = :id")
        .bind("operation", asked == null ? null : asked.operation().name())
        .bind("amount", asked == null ? null : asked.amount())
        .bind("customerAmount", asked == null ? null : asked.customerAmount())
        .bind("key", asked == null ? null : asked.key())
        .bind("at", asked == null ? null : at)
        .bind("id", id.value()).execute());
  }

  @Override
  public Optional<Asked> asked(PaymentId id) {
    return jdbi.withHandle(h -> h.createQuery("SELECT asked_operation, asked_amount, asked_customer_amount, asked_key,"
            + " asked_at, CASE WHEN checked >= asked_at THEN checked END AS looked"
            + " FROM payments WHERE id = :id AND asked_operation IS NOT NULL")
        .bind("id", id.value())
        .map((rs, ctx) -> new Asked(io.tollgate.domain.payment.OperationType.valueOf(rs.getString(1)),
            rs.getBigDecimal(2), rs.getBigDecimal(3), rs.getString(4), instant(rs.getTimestamp(5)),
            instant(rs.getTimestamp(6))))
        .findOne());
  }

  private static Instant instant(java.sql.Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  @Override
  public List<Due> lockDue(DueWork work, Instant before, int limit) {
    return jdbi.withHandle(h -> h.createQuery(dueSql(work))
        .bind("before", before).bind("limit", limit)
        .map((rs, ctx) -> new Due(new PaymentId(rs.getString("id")), rs.getLong("version"),
            instant(rs.getTimestamp("checked")))).list());
  }

  @Override
  public long countUnanswered(Instant before) {
    return jdbi.withHandle(h -> h.createQuery(UNANSWERED_COUNT).bind("before", before).mapTo(Long.class).one());
  }

  /** The statement of {@link #lockDue}, with parameters {@code :before} and {@code :limit}. */
  static String dueSql(DueWork work) {
    String where = switch (work) {
      // One whose terminal has not decided yet, or whose step failed, is asked again once a
      // tenth of the time since it last moved has passed, and never more than once a second.
      case PAYOUTS -> "p.payment_type IN ('WITHDRAWAL', 'REFUND') AND p.state = 'PENDING'"
          + " AND (p.checked IS NULL OR p.checked + greatest((p.checked - p.updated) / 10, interval '1 second')"
          + " < :before)";
      // A transfer still awaited is asked after again once the delay has passed since it was
      // last asked, and a tenth of the time it has been awaited: an hour-old one every six minutes.
      case BANK_TRANSFERS -> "p.payment_type = 'DEPOSIT' AND p.payment_method = 'BANKTRANSFER'"
          + " AND p.state = 'PENDING' AND p.updated < :before"
          + " AND (p.checked IS NULL OR p.checked + (p.checked - p.updated) / 10 < :before)";
      // The shortest timeout of any shop bounds the index scan (payments_open_checkouts): only
      // checkouts older than that are read, not every customer still on the payment page. A card
      // deposit in its 3-D Secure challenge (PENDING) has the timeout again from the challenge
      // (its last update, never before its creation), so a card entered late is not cut short.
      // A card deposit sent to its terminal with no answer stored is the customer's no more: its
      // terminal may have charged the card, and the job for unanswered deposits settles it.
      case EXPIRED_CHECKOUTS -> "p.payment_type = 'DEPOSIT' AND p.state IN ('CHECKOUT', 'PENDING')"
          + " AND p.created < CAST(:before AS timestamptz)"
          + " - (SELECT min(checkout_timeout_seconds) FROM shops) * interval '1 second'"
          + " AND CASE WHEN p.state = 'CHECKOUT' THEN p.created"
          + " WHEN p.payment_method = 'BASIC_CARD' THEN p.updated END"
          + " < CAST(:before AS timestamptz) - s.checkout_timeout_seconds * interval '1 second'"
          + " AND NOT (p.state = 'PENDING' AND " + LAST_STEP_UNANSWERED + ")"
          // one whose step failed since it last changed waits a minute: the order is the
          // checkouts' age, so it would otherwise come first in every round, and enough of them
          // would fill every batch
          + " AND (p.checked IS NULL OR p.checked < p.updated OR p.checked < CAST(:before AS timestamptz)"
          + " - interval '1 minute')";
      // One whose step failed (a card the vault cannot read, a processor that throws) is taken
      // up again as an awaited transfer is asked after: an hour after it was sent, every eight
      // minutes, and never twice a second.
      case UNANSWERED_DEPOSITS -> "p.payment_type = 'DEPOSIT' AND p.state = 'PENDING'"
          + " AND p.payment_method = 'BASIC_CARD' AND p.updated < :before"
          + " AND (p.checked IS NULL OR p.checked + (p.checked - p.updated) / 10 < :before)"
          + " AND " + LAST_STEP_UNANSWERED;
      // asked again as an unanswered deposit is, through the index of the few with a step asked
      case UNANSWERED_CAPTURES_AND_VOIDS -> "p.asked_operation IS NOT NULL AND p.state = 'AUTHORIZED'"
          + " AND p.asked_at < :before"
          + " AND (p.checked IS NULL OR p.checked < p.asked_at OR p.checked + (p.checked - p.asked_at) / 10 < :before)";
    };
    // the payments a job left as they were go behind those it has not looked at since
    String order = switch (work) {
      case EXPIRED_CHECKOUTS -> "p.created";
      // asked long after the payment last changed: a step asked a day after its authorization
      // comes after those asked before it, not before every payment of that day
      case UNANSWERED_CAPTURES_AND_VOIDS -> "greatest(p.checked, p.asked_at)";
      default -> "COALESCE(p.checked, p.updated)";
    };
    return "SELECT p.id, p.version, p.checked FROM payments p JOIN shops s ON s.id = p.shop_id WHERE " + where
        + " ORDER BY " + order + " LIMIT :limit FOR UPDATE OF p SKIP LOCKED";
  }

  /** Whether the last step of payment {@code p} is one of {@link PaymentRepository#UNANSWERED_AFTER}. */
  private static final String LAST_STEP_UNANSWERED = "(SELECT o.operation FROM payment_operations o"
      + " WHERE o.payment_id = p.id ORDER BY o.id DESC LIMIT 1) IN ("
      + PaymentRepository.UNANSWERED_AFTER.stream().map(o -> "'" + o.name() + "'").sorted()
          .collect(java.util.stream.Collectors.joining(", ")) + ")";

  /** The statement of {@link #countUnanswered}: through the index the jobs read them by. */
  static final String UNANSWERED_COUNT = "SELECT (SELECT count(*) FROM payments p WHERE p.payment_type = 'DEPOSIT'"
      + " AND p.state = 'PENDING' AND p.payment_method = 'BASIC_CARD' AND p.updated < :before AND "
      + LAST_STEP_UNANSWERED + ") + (SELECT count(*) FROM payments p"
      + " WHERE p.payment_type IN ('WITHDRAWAL', 'REFUND') AND p.state = 'PENDING' AND p.checked IS NOT NULL"
      + " AND p.updated < :before) + (SELECT count(*) FROM payments p WHERE p.asked_operation IS NOT NULL"
      + " AND p.state = 'AUTHORIZED' AND p.asked_at < :before)";

  /** The payment columns qualified with the {@code p} alias, for joins. */
  private static final String QUALIFIED_COLUMNS = """
      p.id, p.shop_id, p.payment_type, p.state, p.payment_method, p.amount, p.currency, p.customer_amount,
      p.customer_currency, p.reference_id, p.description, p.parent_payment_id, p.pre_auth, p.card::text AS card,
      p.customer::text AS customer, p.customer_ip, p.customer_ip_country, p.billing_address::text AS billing_address,
      p.return_url,
      p.webhook_url, p.additional_parameters::text AS additional_parameters, p.error_code, p.error_message,
      p.external_id, p.external_result_code, p.external_refs::text AS external_refs, p.terminal_name, p.terminal_id,
      p.holds_once_routed, p.created, p.updated, p.version
      """;

  @Override
  public List<PaymentOperation> operations(PaymentId id) {
    return jdbi.withHandle(h -> h.createQuery(PaymentSql.OPERATIONS).bind("id", id.value())
        .map(PaymentRows.OPERATION).list()).stream().map(JdbiPaymentRepository::toOperation).toList();
  }

  @Override
  public Refunded refunded(PaymentId parent, io.tollgate.domain.money.Currency charged,
      io.tollgate.domain.money.Currency asked) {
    return jdbi.withHandle(h -> h.createQuery(PaymentSql.REFUNDED).bind("parent", parent.value())
        .bind("asked", asked == null ? null : asked.code())
        .map((rs, ctx) -> new Refunded(new Money(rs.getBigDecimal("total"), charged),
            asked == null ? Money.zero(charged) : new Money(rs.getBigDecimal("asked_for"), asked),
            new Money(rs.getBigDecimal("rest"), charged)))
        .one());
  }

  private static PaymentRow toRow(Payment p) {
    return new PaymentRow(p.id().value(), p.shopId().value(), p.type().name(), p.state().name(),
        p.method().name(), p.amount().amount(), p.amount().currency().code(),
        p.customerAmount() == null ? null : p.customerAmount().amount(),
        p.customerAmount() == null ? null : p.customerAmount().currency().code(),
        p.referenceId(), p.description(),
        p.parentPaymentId() == null ? null : p.parentPaymentId().value(), p.preAuth(),
        JsonColumns.write(p.card()), JsonColumns.write(p.customer()), p.customer() == null ? null : p.customer().ip(),
        p.customer() == null ? null : p.customer().ipCountryCode(),
        JsonColumns.write(p.billingAddress()),
        p.returnUrl(), p.webhookUrl(), JsonColumns.write(p.additionalParameters()),
        p.errorCode() == null ? null : p.errorCode().code(), p.errorMessage(), p.externalId(),
        p.externalResultCode(), JsonColumns.write(p.externalRefs()), p.terminalName(), p.terminalId(),
        p.holdsOnceRouted(), p.created(), p.updated(), p.version());
  }

  /** Binds the row as {@code :p.<component>}, explicitly: no reflection on the hot path. */
  private static void bind(Query q, PaymentRow r) {
    q.bind("p.id", r.id()).bind("p.shopId", r.shopId()).bind("p.paymentType", r.paymentType())
        .bind("p.state", r.state()).bind("p.paymentMethod", r.paymentMethod()).bind("p.amount", r.amount())
        .bind("p.currency", r.currency()).bind("p.customerAmount", r.customerAmount())
        .bind("p.customerCurrency", r.customerCurrency()).bind("p.referenceId", r.referenceId())
        .bind("p.description", r.description()).bind("p.parentPaymentId", r.parentPaymentId())
        .bind("p.preAuth", r.preAuth()).bind("p.card", r.card()).bind("p.customer", r.customer())
        .bind("p.customerIp", r.customerIp()).bind("p.customerIpCountry", r.customerIpCountry())
        .bind("p.billingAddress", r.billingAddress()).bind("p.returnUrl", r.returnUrl())
        .bind("p.webhookUrl", r.webhookUrl()).bind("p.additionalParameters", r.additionalParameters())
        .bind("p.errorCode", r.errorCode()).bind("p.errorMessage", r.errorMessage())
        .bind("p.externalId", r.externalId()).bind("p.externalResultCode", r.externalResultCode())
        .bind("p.externalRefs", r.externalRefs()).bind("p.terminalName", r.terminalName())
        .bind("p.terminalId", r.terminalId()).bind("p.holdsOnceRouted", r.holdsOnceRouted())
        .bind("p.created", r.created()).bind("p.updated", r.updated()).bind("p.version", r.version());
  }

  /** Binds the operation as {@code :o.<component>}. */
  private static void bind(Query q, String prefix, OperationRow o) {
    q.bind(prefix + ".shopId", o.shopId()).bind(prefix + ".operation", o.operation())
        .bind(prefix + ".started", o.started()).bind(prefix + ".completed", o.completed())
        .bind(prefix + ".paymentState", o.paymentState()).bind(prefix + ".errorCode", o.errorCode())
        .bind(prefix + ".details", o.details()).bind(prefix + ".terminalName", o.terminalName())
        .bind(prefix + ".terminalId", o.terminalId())
        .bind(prefix + ".externalId", o.externalId()).bind(prefix + ".externalResultCode", o.externalResultCode());
  }

  private static OperationRow toRow(Payment p, PaymentOperation o) {
    return new OperationRow(0, p.id().value(), p.shopId().value(), o.operation().name(), o.started(),
        o.completed(), o.paymentState().name(), o.errorCode() == null ? null : o.errorCode().code(), o.details(),
        o.terminalName(), o.terminalId(), o.externalId(), o.externalResultCode());
  }

  private Payment toPayment(PaymentRow r) {
    return new Payment(new PaymentId(r.id()), new ShopId(r.shopId()), PaymentType.valueOf(r.paymentType()),
        PaymentState.valueOf(r.state()), PaymentMethod.valueOf(r.paymentMethod()),
        new Money(r.amount().stripTrailingZeros(), currencies.require(r.currency())),
        r.customerAmount() == null ? null
            : new Money(r.customerAmount().stripTrailingZeros(), currencies.require(r.customerCurrency())),
        r.referenceId(), r.description(),
        r.parentPaymentId() == null ? null : new PaymentId(r.parentPaymentId()), r.preAuth(),
        JsonColumns.read(r.card(), CardDetails.class), customer(r),
        JsonColumns.read(r.billingAddress(), BillingAddress.class), r.returnUrl(), r.webhookUrl(),
        JsonColumns.readMap(r.additionalParameters()),
        r.errorCode() == null ? null : ErrorCode.fromCode(r.errorCode()).orElse(null), r.errorMessage(),
        r.externalId(), r.externalResultCode(), JsonColumns.readMap(r.externalRefs()), r.terminalName(),
        r.terminalId(), r.holdsOnceRouted(), r.created(), r.updated(), r.version());
  }

  /**
   * The customer document with the address of {@code customer_ip} and its country; a row stored
   * before that column existed (or a replayed answer recorded before it) has the document's own.
   */
  private static Customer customer(PaymentRow r) {
    Customer described = JsonColumns.read(r.customer(), Customer.class);
    if (r.customerIp() == null) {
      return described;
    }
    return (described == null ? Customer.ofIp(r.customerIp()) : described)
        .withIp(r.customerIp(), r.customerIpCountry());
  }

  private static PaymentOperation toOperation(OperationRow r) {
    return new PaymentOperation(r.id(), OperationType.valueOf(r.operation()), r.started(), r.completed(),
        PaymentState.valueOf(r.paymentState()),
        r.errorCode() == null ? null : ErrorCode.fromCode(r.errorCode()).orElse(null), r.details(), r.terminalName(),
        r.terminalId(), r.externalId(), r.externalResultCode());
  }
}
