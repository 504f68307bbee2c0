package io.tollgate.persistence;

/** The SQL of {@link JdbiPaymentRepository}; rows are read by {@link PaymentRows}. */
final class PaymentSql {

  private PaymentSql() {}

  static final String COLUMNS = """
      id, shop_id, payment_type, state, payment_method, amount, currency, customer_amount,
      customer_currency, reference_id, description, parent_payment_id, pre_auth, card::text AS card,
      customer::text AS customer, customer_ip, customer_ip_country, billing_address::text AS billing_address,
      return_url,
      webhook_url, additional_parameters::text AS additional_parameters, error_code, error_message, external_id,
      external_result_code, external_refs::text AS external_refs, terminal_name, terminal_id, holds_once_routed,
      created, updated, version
      """;

  /**
   * A new payment row, as the CTE {@code written} that the other writes of the statement join;
   * it returns the shop's merchant, which the rows that carry it take from there.
   */
  static final String INSERT_WRITTEN = insertWritten("CAST(:p.card AS jsonb)");

  /**
   * {@link #INSERT_WRITTEN} after {@link JdbiCardVault#STORE}: the card's token is the one the
   * vault holds for it.
   */
  static final String INSERT_WRITTEN_VAULTED = insertWritten("""
      jsonb_set(CAST(:p.card AS jsonb), '{cardToken}',
                to_jsonb(COALESCE((SELECT token FROM vault), CAST(:vaultToken AS text))))""");

  private static String insertWritten(String card) {
    return """
        written AS (
          INSERT INTO payments (id, shop_id, merchant_id, payment_type, state, payment_method, amount,
              currency, customer_amount, customer_currency, reference_id, description, parent_payment_id,
              pre_auth, card, customer, customer_ip, customer_ip_country, billing_address, return_url, webhook_url,
              additional_parameters, error_code, error_message, external_id, external_result_code, external_refs,
              terminal_name, terminal_id, holds_once_routed, created, updated, version)
          VALUES (:p.id, :p.shopId, (SELECT merchant_id FROM shops WHERE id = :p.shopId), :p.paymentType,
              :p.state, :p.paymentMethod, :p.amount, :p.currency, :p.customerAmount, :p.customerCurrency,
              :p.referenceId, :p.description, :p.parentPaymentId, :p.preAuth, %s, CAST(:p.customer AS jsonb),
              :p.customerIp, :p.customerIpCountry, CAST(:p.billingAddress AS jsonb),
              :p.returnUrl, :p.webhookUrl, CAST(:p.additionalParameters AS jsonb), :p.errorCode,
              :p.errorMessage, :p.externalId, :p.externalResultCode, CAST(:p.externalRefs AS jsonb),
              :p.terminalName, :p.terminalId, :p.holdsOnceRouted, :p.created, :p.updated, :p.version)
          RETURNING id, merchant_id)
        """.formatted(card);
  }

  /** A transition of the row, as the CTE {@code written}: no row when the version moved on. */
  static final String UPDATE_WRITTEN = """
      written AS (
        UPDATE payments SET state = :p.state, amount = :p.amount, currency = :p.currency,
            customer_amount = :p.customerAmount, customer_currency = :p.customerCurrency,
            card = CAST(:p.card AS jsonb), customer_ip = :p.customerIp,
            customer_ip_country = :p.customerIpCountry, error_code = :p.errorCode,
            error_message = :p.errorMessage, external_id = :p.externalId,
            external_result_code = :p.externalResultCode, external_refs = CAST(:p.externalRefs AS jsonb),
            terminal_name = :p.terminalName, terminal_id = :p.terminalId, updated = :p.updated,
            version = version + 1
        WHERE id = :p.id AND version = :expected
        RETURNING id, merchant_id)
      """;

  /** The step's operation, written only with the row. */
  static final String OPERATION = """
      operation AS (
        INSERT INTO payment_operations (payment_id, shop_id, merchant_id, operation, started, completed,
            payment_state, error_code, details, terminal_name, terminal_id, external_id, external_result_code)
        SELECT written.id, CAST(:o.shopId AS bigint), written.merchant_id, CAST(:o.operation AS text), CAST(:o.started AS timestamptz),
            CAST(:o.completed AS timestamptz), CAST(:o.paymentState AS text), CAST(:o.errorCode AS text),
            CAST(:o.details AS text), CAST(:o.terminalName AS text), CAST(:o.terminalId AS bigint),
            CAST(:o.externalId AS text), CAST(:o.externalResultCode AS text)
        FROM written)
      """;

  /**
   * Several operations of one write (:o0, :o1, ...), stored in that order: volatile
   * expressions such as the id's sequence are evaluated after ORDER BY, so ids follow it.
   */
  static String operations(int count) {
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < count; i++) {
      String o = ":o" + i;
      values.append(i == 0 ? "" : ",\n          ").append("(").append(i).append(", CAST(").append(o)
          .append(".shopId AS bigint), CAST(").append(o).append(".operation AS text), CAST(").append(o)
          .append(".started AS timestamptz), CAST(").append(o).append(".completed AS timestamptz), CAST(").append(o)
          .append(".paymentState AS text), CAST(").append(o).append(".errorCode AS text), CAST(").append(o)
          .append(".details AS text), CAST(").append(o).append(".terminalName AS text), CAST(").append(o)
          .append(".terminalId AS bigint), CAST(").append(o).append(".externalId AS text), CAST(").append(o)
          .append(".externalResultCode AS text))");
    }
    return """
        operation AS (
          INSERT INTO payment_operations (payment_id, shop_id, merchant_id, operation, started, completed,
              payment_state, error_code, details, terminal_name, terminal_id, external_id, external_result_code)
          SELECT written.id, o.shop_id, written.merchant_id, o.operation, o.started, o.completed, o.payment_state, o.error_code,
              o.details, o.terminal_name, o.terminal_id, o.external_id, o.external_result_code
          FROM written, (VALUES %s) AS o(n, shop_id, operation, started, completed, payment_state, error_code, details,
              terminal_name, terminal_id, external_id, external_result_code)
          ORDER BY o.n)
        """.formatted(values);
  }

  /**
   * The outbox row of the step, written only with the row: due at once, or, behind an earlier
   * event of the payment that waits for its retry, with that retry (it cannot go before, and due
   * now it would be looked at and passed over by every claim until then).
   */
  static final String EVENT = """
      event AS (
        INSERT INTO webhook_events (id, payment_id, shop_id, payment_state, target_url, body, next_attempt_at,
            created)
        SELECT CAST(:eventId AS uuid), written.id, CAST(:eventShop AS bigint), CAST(:eventState AS text),
            CAST(:eventUrl AS text), CAST(:eventBody AS bytea),
            greatest(CAST(:eventAt AS timestamptz), (SELECT max(earlier.next_attempt_at) FROM webhook_events earlier
                WHERE earlier.payment_id = written.id AND earlier.status = 'PENDING')),
            CAST(:eventAt AS timestamptz)
        FROM written)
      """;

  /** The ledger entry of the step and the balance slot it moves, written only with the row. */
  static final String LEDGER = """
      entry AS (
        INSERT INTO ledger_entries (shop_id, currency, available, reserved, payment_id, reason, created)
        SELECT CAST(:entryShop AS bigint), CAST(:entryCurrency AS text), CAST(:entryAvailable AS numeric),
            CAST(:entryReserved AS numeric), written.id, CAST(:entryReason AS text), CAST(:entryAt AS timestamptz)
        FROM written),
      balance AS (
        INSERT INTO balances (shop_id, currency, slot, available, reserved, updated)
        SELECT CAST(:entryShop AS bigint), CAST(:entryCurrency AS text),
            COALESCE(CASE WHEN CAST(:entrySpread AS boolean) THEN (
                SELECT b.slot FROM balances b
                 WHERE b.shop_id = CAST(:entryShop AS bigint) AND b.currency = CAST(:entryCurrency AS text)
                   AND b.slot > 0
                 LIMIT 1 FOR UPDATE SKIP LOCKED) END, CAST(:entrySlot AS smallint)),
            CAST(:entryAvailable AS numeric), CAST(:entryReserved AS numeric), CAST(:entryAt AS timestamptz)
        FROM written
        ON CONFLICT (shop_id, currency, slot) DO UPDATE
            SET available = balances.available + excluded.available,
                reserved = balances.reserved + excluded.reserved,
                updated = excluded.updated)
      """;

  /** How a customer already stored is refreshed by a payment that names it again. */
  private static final String CUSTOMER_REFRESHED = """
        ON CONFLICT (shop_id, reference_id) DO UPDATE SET
            first_name = coalesce(excluded.first_name, customers.first_name),
            last_name = coalesce(excluded.last_name, customers.last_name),
            email = coalesce(excluded.email, customers.email),
            phone = coalesce(excluded.phone, customers.phone),
            date_of_birth = coalesce(excluded.date_of_birth, customers.date_of_birth),
            updated = excluded.updated
      """;

  /**
   * The customer a new payment names, added to its shop's customers or refreshed there (a field
   * the payment leaves out keeps its stored value), written only with the row.
   */
  static final String CUSTOMER = """
      customer AS (
        INSERT INTO customers (merchant_id, shop_id, reference_id, first_name, last_name, email, phone,
            date_of_birth, created, updated)
        SELECT written.merchant_id, CAST(:p.shopId AS bigint), CAST(:customerRef AS text), CAST(:customerFirst AS text),
            CAST(:customerLast AS text), CAST(:customerEmail AS text), CAST(:customerPhone AS text),
            CAST(:customerBirth AS text), CAST(:p.created AS timestamptz), CAST(:p.created AS timestamptz)
        FROM written
      """ + CUSTOMER_REFRESHED + ")\n";

  /**
   * {@link #CUSTOMER} in a statement of its own, ahead of the payment's: it takes the customer's
   * row lock (adding the customer, or refreshing it as the payment's own statement then does
   * again) before the transaction locks a balance.
   */
  static final String LOCK_CUSTOMER = """
      INSERT INTO customers (merchant_id, shop_id, reference_id, first_name, last_name, email, phone,
          date_of_birth, created, updated)
      SELECT s.merchant_id, s.id, CAST(:customerRef AS text), CAST(:customerFirst AS text),
          CAST(:customerLast AS text), CAST(:customerEmail AS text), CAST(:customerPhone AS text),
          CAST(:customerBirth AS text), CAST(:at AS timestamptz), CAST(:at AS timestamptz)
      FROM shops s WHERE s.id = :shop
      """ + CUSTOMER_REFRESHED;

  static final String FIND = "SELECT " + COLUMNS + " FROM payments WHERE id = :id";

  static final String FIND_FOR_UPDATE = FIND + " FOR UPDATE";

  /**
   * The payment, locked, if no other transaction holds it and it is as a job found it: at that
   * version, and last looked at then. A look that left it as it was changes no version, and
   * another instance that found it before that look would otherwise ask its terminal again at
   * once, not when its next look is due.
   */
  static final String LOCK_IF_UNCHANGED = FIND + " AND version = :version"
      + " AND checked IS NOT DISTINCT FROM CAST(:checked AS timestamptz) FOR UPDATE SKIP LOCKED";

  /** The row an idempotency key's first request was answered with, read back as a row of payments. */
  static final String FIND_AS_ANSWERED = "SELECT " + COLUMNS + """
       FROM jsonb_populate_record(NULL::payments, (SELECT k.answer FROM idempotency_keys k
                WHERE k.shop_id = :shop AND k.idempotency_key = :key)) AS payments
      WHERE payments.id IS NOT NULL""";

  /**
   * {@link #FIND_FOR_UPDATE} and, as its last column {@code card_ciphertext}, the vault's
   * ciphertext of the payment's card: one primary-key probe more in the same round trip. Only
   * the payment's row is locked.
   */
  static final String FIND_FOR_UPDATE_WITH_CARD = "SELECT " + COLUMNS + """
      , (SELECT v.pan_ciphertext FROM card_vault v
          WHERE v.shop_id = payments.shop_id
            AND v.token = CAST(payments.card->>'cardToken' AS char(32))) AS card_ciphertext
       FROM payments WHERE id = :id FOR UPDATE OF payments""";

  /**
   * {@link #FIND_FOR_UPDATE_WITH_CARD}, then the transaction-scoped advisory lock of the
   * payment's card in its shop ({@link #LOCK_CARD}'s), when it has a card token. The locking
   * read is a subquery, which PostgreSQL never merges into the statement around it, so the
   * card is locked after the row, as every step that takes both does, and with the token the
   * row has once locked.
   */
  static final String FIND_FOR_UPDATE_WITH_CARD_LOCKED = "SELECT locked.* FROM (SELECT " + COLUMNS + """
      , (SELECT v.pan_ciphertext FROM card_vault v
          WHERE v.shop_id = payments.shop_id
            AND v.token = CAST(payments.card->>'cardToken' AS char(32))) AS card_ciphertext,
        card->>'cardToken' AS card_token
       FROM payments WHERE id = :id FOR UPDATE OF payments) AS locked
      CROSS JOIN LATERAL pg_advisory_xact_lock(hashtextextended(locked.card_token, locked.shop_id)) AS card_lock""";

  /**
   * The lock of card {@code :token} in shop {@code :shop} until the transaction ends: an
   * advisory lock keyed by a 64-bit hash of the token seeded with the shop (two cards that
   * share a key only wait for each other).
   */
  static final String LOCK_CARD = "SELECT 1 FROM pg_advisory_xact_lock(hashtextextended(:token, :shop))";

  static final String OPERATION_COLUMNS =
      "id, payment_id, shop_id, operation, started, completed, payment_state, error_code, details, terminal_name,"
          + " terminal_id, external_id, external_result_code";

  static final String OPERATIONS =
      "SELECT " + OPERATION_COLUMNS + " FROM payment_operations WHERE payment_id = :id ORDER BY id DESC";

  static final String REFUNDED = """
      SELECT coalesce(sum(amount), 0) AS total,
          coalesce(sum(customer_amount) FILTER (WHERE customer_currency = CAST(:asked AS text)), 0) AS asked_for,
          coalesce(sum(amount) FILTER (WHERE NOT coalesce(customer_currency = CAST(:asked AS text), false)), 0) AS rest
      FROM payments
      WHERE parent_payment_id = :parent AND payment_type = 'REFUND' AND state NOT IN ('DECLINED', 'CANCELLED')
      """;
}
