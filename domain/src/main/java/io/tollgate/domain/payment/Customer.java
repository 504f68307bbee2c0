package io.tollgate.domain.payment;

/** The merchant's customer as the merchant described it. */
public record Customer(
    String referenceId,
    String citizenshipCountryCode,
    String firstName,
    String lastName,
    String dateOfBirth,
    String email,
    String phone,
    String locale,
    String ip) {}
