package io.tollgate.application.service;

import io.tollgate.application.port.out.ReferenceData;
import io.tollgate.domain.group.Pan;
import io.tollgate.domain.payment.CardBrands;
import io.tollgate.domain.payment.CardDetails;

/** What a payment shows of its card: masked number, and brand, issuing country, type and bank from the BIN data. */
final class CardProfiles {

  private final ReferenceData reference;

  CardProfiles(ReferenceData reference) {
    this.reference = reference;
  }

  CardDetails describe(String digits, String token, String holder, String expiryMonth, String expiryYear) {
    var bin = reference.bin(digits);
    // a brand imported before imports took only the reference's names is shown only if it is one
    String brand = bin.map(ReferenceData.BinRecord::cardBrand).flatMap(CardBrands::find)
        .orElseGet(() -> CardBrands.detect(digits));
    String country = bin.map(ReferenceData.BinRecord::issuingCountryCode).orElse(null);
    return new CardDetails(Pan.mask(digits), token, holder, expiryMonth, expiryYear, brand, country,
        bin.map(ReferenceData.BinRecord::cardType).orElse(null),
        bin.map(ReferenceData.BinRecord::issuingOrganization).orElse(null));
  }
}
