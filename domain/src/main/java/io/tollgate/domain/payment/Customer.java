package io.tollgate.domain.payment;

/**
 * The merchant's customer as the merchant described it; the account fields say where a bank
 * transfer withdrawal pays out to. {@code ip} is the customer's address: as given at creation,
 * or as the host-to-host execution gave it later, with the country the merchant placed it in
 * ({@code ipCountryCode}, from that execution only). {@code routingGroup}, {@code kycStatus},
 * {@code paymentInstrumentKycStatus} and {@code dateOfFirstDeposit} are kept and answered as the
 * merchant gave them.
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
    String documentNumber,
    String routingGroup,
    Boolean kycStatus,
    Boolean paymentInstrumentKycStatus,
    String dateOfFirstDeposit,
    String ipCountryCode) {

  /** A customer as a payment request describes it: no country of its address yet. */
  public Customer(String referenceId, String citizenshipCountryCode, String firstName, String lastName,
      String dateOfBirth, String email, String phone, String locale, String ip, String accountNumber,
      String accountName, String accountType, String bank, String bankCode, String bankBranch, String bankBranchCode,
      String documentType, String documentNumber, String routingGroup, Boolean kycStatus,
      Boolean paymentInstrumentKycStatus, String dateOfFirstDeposit) {
    this(referenceId, citizenshipCountryCode, firstName, lastName, dateOfBirth, email, phone, locale, ip,
        accountNumber, accountName, accountType, bank, bankCode, bankBranch, bankBranchCode, documentType,
        documentNumber, routingGroup, kycStatus, paymentInstrumentKycStatus, dateOfFirstDeposit, null);
  }

  /** A customer without what the merchant knows of its standing (routing group, KYC, first deposit). */
  public Customer(String referenceId, String citizenshipCountryCode, String firstName, String lastName,
      String dateOfBirth, String email, String phone, String locale, String ip, String accountNumber,
      String accountName, String accountType, String bank, String bankCode, String bankBranch, String bankBranchCode,
      String documentType, String documentNumber) {
    this(referenceId, citizenshipCountryCode, firstName, lastName, dateOfBirth, email, phone, locale, ip,
        accountNumber, accountName, accountType, bank, bankCode, bankBranch, bankBranchCode, documentType,
        documentNumber, null, null, null, null, null);
  }

  /** A customer described by the first nine fields only, with no bank account. */
  public Customer(String referenceId, String citizenshipCountryCode, String firstName, String lastName,
      String dateOfBirth, String email, String phone, String locale, String ip) {
    this(referenceId, citizenshipCountryCode, firstName, lastName, dateOfBirth, email, phone, locale, ip,
        null, null, null, null, null, null, null, null, null);
  }

  /** A customer known only by the address a host-to-host execution gave. */
  public static Customer ofIp(String ip) {
    return new Customer(null, null, null, null, null, null, null, null, ip);
  }

  /** The same customer at another address. */
  public Customer withIp(String newIp) {
    return withIp(newIp, null);
  }

  /** The same customer at another address, in {@code country} (null when not known). */
  public Customer withIp(String newIp, String country) {
    return new Customer(referenceId, citizenshipCountryCode, firstName, lastName, dateOfBirth, email, phone, locale,
        newIp, accountNumber, accountName, accountType, bank, bankCode, bankBranch, bankBranchCode, documentType,
        documentNumber, routingGroup, kycStatus, paymentInstrumentKycStatus, dateOfFirstDeposit, country);
  }
}
