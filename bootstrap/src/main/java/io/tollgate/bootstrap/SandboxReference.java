package io.tollgate.bootstrap;

import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.money.Currencies;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The sandbox's reference data: BINs of the test cards (brand, issuing country), currency
 * rates, bank codes and their mappings. Each list is loaded only while it is empty, so what an
 * operator imports is never overwritten.
 */
final class SandboxReference {

  private SandboxReference() {}

  static void loadIfEmpty(Tollgate.Services services, Currencies currencies) {
    ReferenceData reference = services.persistence().referenceData();
    ReferenceImport importer = new ReferenceImport(reference, services.persistence().transactionRunner(), currencies);
    Predicate<Map<String, String>> all = row -> true;
    load(importer, ReferenceImport.Kind.BINS, "bins.csv", () -> reference.bins(0, 1).items().isEmpty(), all);
    // The sample rates name BTC, which a sandbox set to other crypto currencies, or none, does not
    // accept: the import refused the whole file for that row, and the sandbox did not start.
    load(importer, ReferenceImport.Kind.CURRENCY_RATES, "currency-rates.csv",
        () -> reference.currencyRates(0, 1).items().isEmpty(),
        row -> currencies.find(row.get("baseCurrency")).isPresent()
            && currencies.find(row.get("quoteCurrency")).isPresent());
    load(importer, ReferenceImport.Kind.BANK_CODES, "bank-codes.csv", () -> reference.bankCodes(0, 1).items().isEmpty(),
        all);
    load(importer, ReferenceImport.Kind.BANK_CODE_MAPPINGS, "bank-code-mappings.csv",
        () -> reference.bankCodeMappings(0, 1).items().isEmpty(), all);
  }

  private static void load(ReferenceImport importer, ReferenceImport.Kind kind, String file, BooleanSupplier empty,
      Predicate<Map<String, String>> accepted) {
    if (!empty.getAsBoolean()) {
      return;
    }
    try (InputStream in = SandboxReference.class.getResourceAsStream("/sandbox/" + file)) {
      List<ReferenceImport.Row> rows = ReferenceImport.rows(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      importer.importRows(kind, rows.stream().filter(row -> accepted.test(row.fields())).toList(), null);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the sandbox's " + file, e);
    }
  }
}
