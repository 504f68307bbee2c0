package io.tollgate.domain.payment;

/**
 * The merchant's customer as the merchant described it; the account fields say where a bank
 * transfer withdrawal pays out to.
 */
public record Customer(
    String referenceId,
    String citizenshipCountryCode,
    String firstName,
    String lastName,
    String dateOfBirth,
    String email,
    String phone,
    String locale,
    String ip,
    String accountNumber,
    String accountName,
    String accountType,
    String bank,
    String bankCode,
    String bankBranch,
    String bankBranchCode,
    String documentType,
    String documentNumber) {

  /** A customer described by the first nine fields only, with no bank account. */
  public Customer(String referenceId, String citizenshipCountryCode, String firstName, String lastName,
      String dateOfBirth, String email, String phone, String locale, String ip) {
    this(referenceId, citizenshipCountryCode, firstName, lastName, dateOfBirth, email, phone, locale, ip,
        null, null, null, null, null, null, null, null, null);
  }
}
