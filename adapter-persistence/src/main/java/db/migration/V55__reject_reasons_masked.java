package db.migration;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.tollgate.domain.group.Pan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A withdrawal's {@code rejectReason} written before the reason was masked, masked now as it
 * would be written today ({@link Pan#maskLuhnValid}: each Luhn-valid card number in it as its
 * first 6 and last 4 digits): the payment's {@code externalResultCode}, its REJECT operation's
 * result code and details, the webhook events of the payment (sent again as stored by a resend),
 * and the answer kept for a keyed reject (a retry is answered with it). Staff quoting the card
 * they refused left its number in clear in all of them. A number that fails the Luhn check (an
 * order number) stays, as it does now. The migration is Java, as the masking is the domain's
 * own, which SQL would only copy.
 *
 * <p>The payments rejected by the merchant (8.00) are read once; the operations, events and
 * answers rewritten are those of the payments whose reason changed, and only what changes is
 * written. A webhook body is signed when sent, so rewriting it is safe: only its
 * {@code externalResultCode} string changes, and the rest stays byte for byte.
 */
public class V55__reject_reasons_masked extends BaseJavaMigration {

  private static final Logger LOG = LoggerFactory.getLogger(V55__reject_reasons_masked.class);

  /** What a REJECT operation's details start with before the reason (ProcessingService#reject). */
  private static final String DETAILS = "rejected by the merchant: ";
  private static final String FIELD = "externalResultCode";
  private static final JsonFactory JSON = new JsonFactory();

  /** Fewer digits than a card number's hold none: {@link Pan#maskLuhnValid} leaves them as they are. */
  private static final String HOLDS_12_DIGITS = "length(regexp_replace(%s, '[^0-9]', '', 'g')) >= 12";

  @Override
  public void migrate(Context context) throws SQLException {
    Connection c = context.getConnection();
    List<String> rejected = new ArrayList<>();
    try (PreparedStatement read = c.prepareStatement("SELECT id, external_result_code FROM payments"
            + " WHERE error_code = '8.00' AND " + HOLDS_12_DIGITS.formatted("external_result_code"));
        PreparedStatement write = c.prepareStatement("UPDATE payments SET external_result_code = ? WHERE id = ?")) {
      read.setFetchSize(500);
      try (ResultSet rs = read.executeQuery()) {
        while (rs.next()) {
          String reason = rs.getString("external_result_code");
          String masked = Pan.maskLuhnValid(reason);
          if (!masked.equals(reason)) {
            rejected.add(rs.getString("id"));
            write.setString(1, masked);
            write.setString(2, rs.getString("id"));
            write.addBatch();
          }
        }
      }
      write.executeBatch();
    }
    if (rejected.isEmpty()) {
      return;
    }
    java.sql.Array ids = c.createArrayOf("bpchar", rejected.toArray());
    int operations = maskOperations(c, ids);
    int events = maskEvents(c, ids);
    int answers = maskAnswers(c, ids);
    LOG.info("card numbers masked in the reasons of rejected withdrawals: {} payments, {} operations, {} webhook "
        + "events, {} kept answers", rejected.size(), operations, events, answers);
  }

  private static int maskOperations(Connection c, java.sql.Array ids) throws SQLException {
    int n = 0;
    try (PreparedStatement read = c.prepareStatement("""
            SELECT id, external_result_code, details FROM payment_operations
             WHERE payment_id = ANY(?) AND operation = 'REJECT'""");
        PreparedStatement write = c.prepareStatement(
            "UPDATE payment_operations SET external_result_code = ?, details = ? WHERE id = ?")) {
      read.setArray(1, ids);
      try (ResultSet rs = read.executeQuery()) {
        while (rs.next()) {
          String code = rs.getString("external_result_code");
          String details = rs.getString("details");
          String maskedCode = code == null ? null : Pan.maskLuhnValid(code);
          String maskedDetails = details == null ? null : details.startsWith(DETAILS)
              ? DETAILS + Pan.maskLuhnValid(details.substring(DETAILS.length())) : Pan.maskLuhnValid(details);
          if (!Objects.equals(code, maskedCode) || !Objects.equals(details, maskedDetails)) {
            write.setString(1, maskedCode);
            write.setString(2, maskedDetails);
            write.setLong(3, rs.getLong("id"));
            write.addBatch();
            n++;
          }
        }
      }
      write.executeBatch();
    }
    return n;
  }

  private static int maskEvents(Connection c, java.sql.Array ids) throws SQLException {
    int n = 0;
    try (PreparedStatement read = c.prepareStatement("SELECT id, body FROM webhook_events WHERE payment_id = ANY(?)");
        PreparedStatement write = c.prepareStatement("UPDATE webhook_events SET body = ? WHERE id = ?")) {
      read.setArray(1, ids);
      try (ResultSet rs = read.executeQuery()) {
        while (rs.next()) {
          byte[] body = rs.getBytes("body");
          byte[] masked = maskedBody(body);
          if (masked != null) {
            write.setBytes(1, masked);
            write.setObject(2, rs.getObject("id"));
            write.addBatch();
            n++;
          }
        }
      }
      write.executeBatch();
    }
    return n;
  }

  /**
   * {@code body} (a payment's JSON, UTF-8) with its top-level {@code externalResultCode} string
   * masked and all else as it was, or null when nothing in it changes (or it is no such JSON).
   */
  static byte[] maskedBody(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    try (JsonParser p = JSON.createParser(text)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (FIELD.equals(name) && value == JsonToken.VALUE_STRING) {
          int start = (int) p.currentTokenLocation().getCharOffset();
          String reason = p.getText();
          p.finishToken();
          int end = (int) p.currentLocation().getCharOffset();
          String masked = Pan.maskLuhnValid(reason);
          if (masked.equals(reason) || start < 0 || end <= start || text.charAt(start) != '"'
              || text.charAt(end - 1) != '"') {
            return null;
          }
          String quoted = '"' + new String(JsonStringEncoder.getInstance().quoteAsString(masked)) + '"';
          return (text.substring(0, start) + quoted + text.substring(end)).getBytes(StandardCharsets.UTF_8);
        }
        p.skipChildren();
      }
      return null;
    } catch (IOException e) {
      return null; // not a payment's JSON: nothing of it is read as a reason
    }
  }

  private static int maskAnswers(Connection c, java.sql.Array ids) throws SQLException {
    int n = 0;
    try (PreparedStatement read = c.prepareStatement("""
            SELECT shop_id, idempotency_key, answer ->> 'external_result_code' AS reason FROM idempotency_keys
             WHERE payment_id = ANY(?) AND answer ->> 'error_code' = '8.00'
               AND answer ->> 'external_result_code' IS NOT NULL""");
        PreparedStatement write = c.prepareStatement("""
            UPDATE idempotency_keys SET answer = jsonb_set(answer, '{external_result_code}', to_jsonb(CAST(? AS text)))
             WHERE shop_id = ? AND idempotency_key = ?""")) {
      read.setArray(1, ids);
      try (ResultSet rs = read.executeQuery()) {
        while (rs.next()) {
          String reason = rs.getString("reason");
          String masked = Pan.maskLuhnValid(reason);
          if (!masked.equals(reason)) {
            write.setString(1, masked);
            write.setLong(2, rs.getLong("shop_id"));
            write.setString(3, rs.getString("idempotency_key"));
            write.addBatch();
            n++;
          }
        }
      }
      write.executeBatch();
    }
    return n;
  }
}
