package io.tollgate.bootstrap;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.application.port.out.TransactionRunner;
import io.tollgate.domain.group.Bin;
import io.tollgate.domain.group.CountryCode;
import io.tollgate.domain.money.Currencies;
import io.tollgate.domain.shop.MerchantId;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * Imports reference data from CSV (a header row names the fields) or JSON (an array of objects
 * with the same field names). The whole file is checked first and every bad row reported;
 * only a clean file is written, in one transaction.
 */
final class ReferenceImport {

  enum Kind {
    BINS("BIN", "bin", "cardBrand", "cardType", "issuingCountryCode", "issuingOrganization"),
    CURRENCY_RATES("currency pair", "baseCurrency", "quoteCurrency", "rate", "lastUpdate"),
    BANK_CODES("country and bank code", "countryCode", "bankCode", "bankName"),
    BANK_CODE_MAPPINGS("country, bank code and API", "countryCode", "bankCode", "apiCode", "apiBankCode"),
    COUNTERPARTIES("counterparty (uniqueCode, or name without one)", "name", "affiliateId", "affiliateName",
        "uniqueCode", "registrationDate", "counterpartyTypes");

    /** What a row is updated by, as the refusal of a file naming one twice says it. */
    final String key;
    final List<String> fields;

    Kind(String key, String... fields) {
      this.key = key;
      this.fields = List.of(fields);
    }

    static Kind parse(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
    }
  }

  /** Thrown with every problem of the file, one per line. */
  static final class ImportFailed extends RuntimeException {
    ImportFailed(List<String> problems) {
      super(String.join("\n", problems));
    }
  }

  // a rate of 1.08500000000000000001 read as a double was 1.085
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  /** The decimals a rate may have: its column's, numeric(38, 18), which would round away any further. */
  static final int RATE_DECIMALS = 18;
  /** The first rate too large for that column, whose other 20 digits are before the point. */
  private static final BigDecimal RATE_BOUND = BigDecimal.TEN.pow(38 - RATE_DECIMALS);

  /**
   * The longest value a field may hold: names, codes and organisations all fit, and a BIN's
   * issuing organisation is repeated in every payment made with its cards.
   */
  static final int MAX_FIELD = 256;

  private final ReferenceData reference;
  private final TransactionRunner tx;
  private final Currencies currencies;

  ReferenceImport(ReferenceData reference, TransactionRunner tx, Currencies currencies) {
    this.reference = reference;
    this.tx = tx;
    this.currencies = currencies;
  }

  /**
   * A row of the file: its fields by name, and why it cannot be taken as they are (a CSV line with more
   * or fewer values than its header names), or null.
   */
  record Row(Map<String, String> fields, String problem) {}

  /** Reads rows: JSON when the text starts with {@code [}, CSV otherwise. Row numbers count from 1. */
  static List<Row> rows(String text) throws IOException {
    List<Row> rows = new ArrayList<>();
    if (text.startsWith("\uFEFF")) {
      // the byte order mark a spreadsheet writes first: not part of the first column's name
      text = text.substring(1);
    }
    String trimmed = text.strip();
    if (trimmed.startsWith("[")) {
      for (JsonNode node : JSON.readTree(trimmed)) {
        Map<String, String> row = new LinkedHashMap<>();
        List<String> unwritable = new ArrayList<>();
        node.fields().forEachRemaining(e -> {
          if (holdsTooLongANumber(e.getValue())) {
            unwritable.add(e.getKey());
            row.put(e.getKey(), null);
          } else {
            row.put(e.getKey(), e.getValue().isArray() ? String.join(";", toStrings(e.getValue()))
                : e.getValue().isNull() ? null : text(e.getValue()));
          }
        });
        rows.add(new Row(row, unwritable.isEmpty() ? null : "has a number too long to write out in "
            + String.join(", ", unwritable) + " (a field holds at most " + MAX_FIELD + " characters)"));
      }
      return rows;
    }
    try (CSVParser parser = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).setTrim(true)
        .setIgnoreEmptyLines(true).build().parse(new StringReader(text))) {
      int named = parser.getHeaderNames().size();
      for (CSVRecord r : parser) {
        Map<String, String> row = new LinkedHashMap<>(r.toMap());
        row.replaceAll((k, v) -> v == null || v.isEmpty() ? null : v);
        // toMap() keeps the values the header names and drops the others without a word: a rate
        // written with a decimal comma, EUR,USD,1,0850, was imported as 1
        String problem = r.size() == named ? null : "has " + r.size() + (r.size() == 1 ? " value" : " values")
            + ", the header names " + named
            + (r.size() > named ? " (a value with a comma in it goes in double quotes)" : "");
        rows.add(new Row(row, problem));
      }
    }
    return rows;
  }

  /** A JSON value as the field's text: a number as written, never through a double, nor in exponent form. */
  private static String text(JsonNode value) {
    return value.isNumber() ? value.decimalValue().toPlainString() : value.asText();
  }

  /**
   * Whether a JSON value, or one in its array, is a number longer written out than any field may
   * be. It is counted, not written: 1e1000000000 is a few bytes in the file and a string of a
   * billion digits once written out, more than the memory the command has.
   */
  private static boolean holdsTooLongANumber(JsonNode value) {
    for (JsonNode v : value.isArray() ? value : List.of(value)) {
      if (v.isNumber() && plainLength(v.decimalValue()) > MAX_FIELD) {
        return true;
      }
    }
    return false;
  }

  /** The length of {@link BigDecimal#toPlainString}, from the number's digits and scale alone. */
  static long plainLength(BigDecimal n) {
    long digits = n.precision();
    long scale = n.scale();
    if (n.signum() == 0) {
      return scale > 0 ? scale + 2 : 1;
    }
    long written = scale <= 0 ? digits - scale : scale >= digits ? scale + 2 : digits + 1;
    return written + (n.signum() < 0 ? 1 : 0);
  }

  private static List<String> toStrings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(text(n)));
    return out;
  }

  /** Checks and writes the rows; returns how many were written. */
  int importRows(Kind kind, List<Row> rows, MerchantId merchant) {
    List<String> problems = new ArrayList<>();
    List<Runnable> writes = new ArrayList<>();
    if (rows.isEmpty()) {
      problems.add("the file holds no rows");
    }
    java.util.Set<String> unknown = new java.util.LinkedHashSet<>();
    rows.forEach(row -> row.fields().keySet().stream().filter(f -> !kind.fields.contains(f)).forEach(unknown::add));
    if (!unknown.isEmpty()) {
      // a misspelt column would otherwise be dropped from every row without a word
      problems.add("unknown field" + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
          + "; the fields of " + kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + " are "
          + String.join(", ", kind.fields) + " (a CSV file names them in its first line, separated by commas)");
    }
    Map<String, Integer> rowOfKey = new java.util.HashMap<>();
    for (int i = 0; unknown.isEmpty() && i < rows.size(); i++) {
      Map<String, String> row = rows.get(i).fields();
      int number = i + 1;
      if (rows.get(i).problem() != null) {
        problems.add("row " + number + " " + rows.get(i).problem());
        continue;
      }
      // Each row updates what its key names, so a key given twice kept only its last row: a rate
      // typed twice, 1.08 then 1.8, was imported at 1.8, and the output said 2 imported.
      String key = key(kind, row);
      Integer earlier = key == null ? null : rowOfKey.putIfAbsent(key, number);
      if (earlier != null) {
        problems.add("row " + number + " names the same " + kind.key + " as row " + earlier
            + ": a file gives each once");
      }
      if (kind == Kind.BINS || kind == Kind.COUNTERPARTIES) {
        // A BIN's or a counterparty's row replaces the stored one whole: a file of bin,cardBrand
        // took the stored country away, and the card-country rule then let that BIN's cards
        // through unscreened; one of name,uniqueCode took a counterparty's affiliate and types.
        List<String> leftOut = kind.fields.stream().filter(f -> !row.containsKey(f)).toList();
        if (!leftOut.isEmpty()) {
          problems.add("row " + number + " leaves out " + String.join(", ", leftOut) + ": a row replaces what "
              + "is stored for its " + (kind == Kind.BINS ? "BIN" : "counterparty") + ", so it names every field "
              + "(left empty where a value is unknown)");
        }
      }
      try {
        for (Map.Entry<String, String> field : row.entrySet()) {
          if (field.getValue() != null && field.getValue().length() > MAX_FIELD) {
            throw new IllegalArgumentException(field.getKey() + " must be at most " + MAX_FIELD + " characters");
          }
        }
        writes.add(write(kind, row, merchant));
      } catch (IllegalArgumentException e) {
        problems.add("row " + number + ": " + e.getMessage());
      } catch (java.time.DateTimeException e) {
        problems.add("row " + number + ": registrationDate must be a date like 2026-11-22");
      }
    }
    if (!problems.isEmpty()) {
      throw new ImportFailed(problems);
    }
    tx.run(() -> writes.forEach(Runnable::run));
    return writes.size();
  }

  /** What a row of the kind updates by ({@link Kind#key}), as written, or null when the row lacks it. */
  private static String key(Kind kind, Map<String, String> row) {
    List<String> fields = switch (kind) {
      case BINS -> List.of("bin");
      case CURRENCY_RATES -> List.of("baseCurrency", "quoteCurrency");
      case BANK_CODES -> List.of("countryCode", "bankCode");
      case BANK_CODE_MAPPINGS -> List.of("countryCode", "bankCode", "apiCode");
      case COUNTERPARTIES -> row.get("uniqueCode") == null || row.get("uniqueCode").isBlank() ? List.of("name")
          : List.of("uniqueCode");
    };
    StringBuilder key = new StringBuilder(fields.get(0)).append(':');
    for (String field : fields) {
      String value = row.get(field);
      if (value == null || value.isBlank()) {
        return null;
      }
      if (field.equals("countryCode")) {
        // as it is stored: de is DE, UK is GB
        try {
          value = new CountryCode(value).value();
        } catch (IllegalArgumentException refusedOnItsOwn) {
          // the row's own error says what is wrong with it
        }
      }
      key.append(value.strip()).append('\u0000');
    }
    return key.toString();
  }

  private Runnable write(Kind kind, Map<String, String> row, MerchantId merchant) {
    return switch (kind) {
      case BINS -> {
        String bin = new Bin(required(row, "bin")).value();
        String country = row.get("issuingCountryCode") == null ? null : new CountryCode(row.get("issuingCountryCode")).value();
        // a payment shows its BIN's brand, which clients read as the reference's enum
        String brand = row.get("cardBrand") == null || row.get("cardBrand").isBlank() ? null
            : io.tollgate.domain.payment.CardBrands.canonical(row.get("cardBrand"));
        var record = new ReferenceData.BinRecord(bin, brand, row.get("cardType"), country,
            row.get("issuingOrganization"));
        yield () -> reference.upsertBin(record);
      }
      case CURRENCY_RATES -> {
        String base = currency(required(row, "baseCurrency"));
        String quote = currency(required(row, "quoteCurrency"));
        BigDecimal rate;
        try {
          rate = new BigDecimal(required(row, "rate"));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("rate must be a decimal number");
        }
        if (rate.signum() <= 0) {
          throw new IllegalArgumentException("rate must be positive");
        }
        if (rate.stripTrailingZeros().scale() > RATE_DECIMALS) {
          throw new IllegalArgumentException("rate must have at most " + RATE_DECIMALS + " decimals");
        }
        if (rate.compareTo(RATE_BOUND) >= 0) {
          throw new IllegalArgumentException("rate must be less than " + RATE_BOUND.toPlainString());
        }
        if (base.equals(quote)) {
          throw new IllegalArgumentException("baseCurrency and quoteCurrency must differ");
        }
        Instant at = row.get("lastUpdate") == null ? Instant.now() : time("lastUpdate", row.get("lastUpdate"));
        var record = new ReferenceData.CurrencyRate(base, quote, rate, at);
        yield () -> reference.upsertCurrencyRate(record);
      }
      case BANK_CODES -> {
        var record = new ReferenceData.BankCode(new CountryCode(required(row, "countryCode")).value(),
            required(row, "bankCode"), required(row, "bankName"));
        yield () -> reference.upsertBankCode(record);
      }
      case BANK_CODE_MAPPINGS -> {
        var record = new ReferenceData.BankCodeMapping(0, new CountryCode(required(row, "countryCode")).value(),
            required(row, "bankCode"), required(row, "apiCode"), required(row, "apiBankCode"));
        yield () -> reference.upsertBankCodeMapping(record);
      }
      case COUNTERPARTIES -> {
        if (merchant == null) {
          throw new IllegalArgumentException("counterparties belong to a merchant: give --merchant");
        }
        LocalDate registered = row.get("registrationDate") == null ? null : LocalDate.parse(row.get("registrationDate"));
        List<String> types = row.get("counterpartyTypes") == null ? List.of()
            : List.of(row.get("counterpartyTypes").split("\\s*;\\s*"));
        // an empty code is no code, as in a CSV file: it names no counterparty
        String code = row.get("uniqueCode") == null || row.get("uniqueCode").isBlank() ? null
            : row.get("uniqueCode").strip();
        var record = new ReferenceData.Counterparty(0, merchant, required(row, "name"), row.get("affiliateId"),
            row.get("affiliateName"), code, registered, types, Instant.now());
        yield () -> reference.createCounterparty(record);
      }
    };
  }

  /** A time as 2026-11-22T09:13:07 (UTC), or with its offset: ...Z, ...+02:00. */
  private static Instant time(String field, String value) {
    try {
      return java.time.OffsetDateTime.parse(value).toInstant();
    } catch (java.time.DateTimeException withoutOffset) {
      try {
        return LocalDateTime.parse(value).toInstant(ZoneOffset.UTC);
      } catch (java.time.DateTimeException e) {
        throw new IllegalArgumentException(field + " must be a time like 2026-11-22T09:13:07 (UTC) or "
            + "2026-11-22T09:13:07+02:00");
      }
    }
  }

  private String currency(String code) {
    if (currencies.find(code).isEmpty()) {
      throw new IllegalArgumentException("unknown currency " + code);
    }
    return code;
  }

  private static String required(Map<String, String> row, String field) {
    String v = row.get(field);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(field + " is required");
    }
    return v.strip();
  }
}
