package io.tollgate.domain.error;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Every error code of the public API: a payment that fails carries one of these. */
public enum ErrorCode {
  E1_00_ILLEGAL_WORKFLOW_STATE("1.00", "Illegal Workflow State"),
  E1_01_NOT_FOUND("1.01", "Not Found"),
  E1_02_COMMUNICATION_PROBLEM("1.02", "Communication Problem"),
  E1_03_INTERNAL_SERVER_ERROR("1.03", "Internal Server Error"),
  E1_04_CANCELLED_BY_TIMEOUT("1.04", "Cancelled by Timeout"),
  E1_05_TERMINAL_NOT_FOUND("1.05", "Terminal not Found"),
  E1_06_RECURRING_TOKEN_NOT_FOUND("1.06", "Recurring Token not Found"),
  E1_07_PAYER_UNACCEPTED("1.07", "Payer Unaccepted"),
  E1_08_INVALID_AMOUNT("1.08", "Invalid Amount"),
  E1_09_INVALID_CURRENCY("1.09", "Invalid Currency"),
  E1_10_INSUFFICIENT_BALANCE("1.10", "Insufficient Balance"),
  E1_11_PROCESSING_LIMITS_REACHED("1.11", "Processing Limits Reached"),
  E2_00_CANCELLED_BY_CUSTOMER("2.00", "Cancelled by Customer"),
  E3_00_DECLINED_BY_ACQUIRER("3.00", "Declined by Acquirer"),
  E3_01_DECLINED_BY_ACQUIRER_ANTI_FRAUD("3.01", "Declined by Acquirer: Anti-fraud"),
  E3_02_INVALID_REQUEST_FORMAT_OR_MISSING_REQUIRED_PARAMETERS("3.02", "Invalid request format or missing required parameters"),
  E3_03_ACQUIRER_MALFUNCTION("3.03", "Acquirer Malfunction"),
  E3_04_ACQUIRER_TIMEOUT("3.04", "Acquirer Timeout"),
  E3_05_ACQUIRER_LIMITS_REACHED("3.05", "Acquirer Limits Reached"),
  E3_06_DECLINED_BY_ACQUIRER_CARD_SCHEME("3.06", "Declined by Acquirer: Card Scheme"),
  E3_07_DECLINED_BY_ACQUIRER_CARD_DATA("3.07", "Declined by Acquirer: Card Data"),
  E3_08_DECLINED_BY_ACQUIRER_BUSINESS_RULES("3.08", "Declined by Acquirer: Business Rules"),
  E3_09_SCA_REQUIRED("3.09", "SCA required"),
  E3_10_UNKNOWN_ERROR_CODE("3.10", "Unknown Error Code"),
  E3_11_PAYER_CANNOT_PAY("3.11", "Payer cannot pay"),
  E3_12_INVALID_ID_DOCUMENT("3.12", "Invalid ID Document"),
  E3_13_ID_DOCUMENT_RESTRICTIONS("3.13", "ID Document Restrictions"),
  E3_14_DECLINED_DUE_TO_AGE_REQUIREMENTS("3.14", "Declined Due to Age Requirements"),
  E3_15_ID_DOCUMENT_UNDER_TEMPORARY_RESTRICTIONS("3.15", "ID Document Under Temporary Restrictions"),
  E3_16_DUPLICATE_PAYMENT("3.16", "Duplicate Payment"),
  E3_17_CHANNEL_NOT_ACTIVE("3.17", "Channel not active"),
  E3_18_CANCELLED_OR_ABANDONED_TRANSACTION("3.18", "Cancelled or abandoned transaction"),
  E3_19_CARD_PAN_BLACKLISTED("3.19", "Card PAN blacklisted"),
  E3_20_CARD_PAN_NOT_WHITELISTED("3.20", "Card PAN not whitelisted"),
  E3_21_INVALID_PHONE_NUMBER("3.21", "Invalid phone number"),
  E3_22_CARD_BIN_COUNTRY_NOT_ALLOWED("3.22", "Card BIN country not allowed"),
  E3_23_BANK_DOES_NOT_EXIST_OR_NOT_SUPPORTED("3.23", "Bank does not exist or not supported"),
  E3_24_REQUISITES_UNAVAILABLE("3.24", "Requisites Unavailable"),
  E3_25_DOCUMENT_TYPE_IS_REQUIRED("3.25", "Document type is required"),
  E3_26_INVALID_DOCUMENT_TYPE_AND_OR_DOCUMENT("3.26", "Invalid document type and/or document"),
  E3_27_AMOUNT_LOWER_THAN_MINIMUM("3.27", "Amount lower than minimum"),
  E3_28_AMOUNT_HIGHER_THAN_MAXIMUM("3.28", "Amount higher than maximum"),
  E3_29_TRANSACTION_HAS_CHARGEBACK_ALREADY("3.29", "Transaction has chargeback already"),
  E3_30_INVALID_EMAIL("3.30", "Invalid Email"),
  E3_31_BANK_IS_TEMPORARILY_UNAVAILABLE("3.31", "Bank is temporarily unavailable"),
  E4_00_DECLINED_BY_ISSUER("4.00", "Declined by Issuer"),
  E4_01_INSUFFICIENT_FUNDS("4.01", "Insufficient Funds"),
  E4_02_DO_NOT_HONOR("4.02", "Do Not Honor"),
  E4_03_INVALID_ACCOUNT_NUMBER("4.03", "Invalid Account Number"),
  E4_04_DECLINED_BY_ISSUER_INVALID_CARD_EXPIRATION_DATE("4.04", "Declined by Issuer: Invalid card expiration date"),
  E4_05_ISSUER_LIMITS_REACHED("4.05", "Issuer Limits Reached"),
  E4_06_CARD_LOST_OR_NOT_ACTIVE("4.06", "Card Lost or not active"),
  E4_07_INVALID_SECURITY_CODE("4.07", "Invalid Security Code"),
  E4_08_DECLINED_BY_ISSUER_BUSINESS_RULES("4.08", "Declined by Issuer: Business Rules"),
  E4_09_DECLINED_BY_ISSUER_ANTI_FRAUD("4.09", "Declined by Issuer: Anti-fraud"),
  E4_10_TRANSACTION_NOT_PERMITTED_TO_CARDHOLDER("4.10", "Transaction not permitted to cardholder"),
  E4_11_AVS_FAILED("4.11", "AVS failed"),
  E4_12_DECLINED_BY_ISSUER_INVALID_EMAIL("4.12", "Declined by Issuer: Invalid email"),
  E4_13_DECLINED_BY_ISSUER_INVALID_CARD_NUMBER("4.13", "Declined by Issuer: Invalid card number"),
  E4_14_DECLINED_BY_ISSUER_PIN_ATTEMPTS_LIMIT_EXCEEDED("4.14", "Declined by Issuer: PIN attempts limit exceeded"),
  E4_15_THE_BANK_HAS_REQUESTED_A_RETRY_OF_THE_TRANSACTION("4.15", "The bank has requested a retry of the transaction"),
  E5_00_DECLINED_BY_3DS("5.00", "Declined by 3DS"),
  E5_01_3DS_TIMEOUT("5.01", "3DS Timeout"),
  E5_02_ACS_MALFUNCTION("5.02", "ACS malfunction"),
  E6_00_DECLINED_BY_INTERNAL_ANTI_FRAUD("6.00", "Declined by Internal Anti-fraud"),
  E6_01_CARD_PAN_BLACKLISTED("6.01", "Card PAN Blacklisted"),
  E6_02_CUSTOMER_EMAIL_BLACKLISTED("6.02", "Customer Email Blacklisted"),
  E6_03_CARD_ISSUING_COUNTRY_RESTRICTED("6.03", "Card Issuing Country Restricted"),
  E6_04_IP_COUNTRY_RESTRICTED("6.04", "IP Country Restricted"),
  E6_05_RESTRICTED_CURRENCY("6.05", "Restricted Currency"),
  E6_06_INVALID_AMOUNT("6.06", "Invalid Amount"),
  E6_07_IP_COUNTRY_MUST_BE_EQUAL_TO_BILLING_COUNTRY("6.07", "IP Country Must Be Equal to Billing Country"),
  E6_08_IP_COUNTRY_MUST_BE_EQUAL_TO_CARD_ISSUING_COUNTRY("6.08", "IP Country Must Be Equal to Card Issuing Country"),
  E6_09_BILLING_COUNTRY_MUST_BE_EQUAL_TO_CARD_ISSUING_COUNTRY("6.09", "Billing Country Must Be Equal to Card Issuing Country"),
  E6_10_PAYMENT_CREATED_WITHIN_CLOSED_PERIOD_OF_DAY("6.10", "Payment Created Within Closed Period of Day"),
  E6_11_CARD_PAN_NOT_WHITELISTED("6.11", "Card PAN not Whitelisted"),
  E6_12_CARDHOLDER_NAME_IS_INVALID("6.12", "Cardholder name is invalid"),
  E6_13_THE_SAME_CARD_IS_USED_BY_DIFFERENT_CUSTOMERS("6.13", "The same card is used by different customers"),
  E6_14_CUSTOMER_PHONE_BLACKLISTED("6.14", "Customer Phone Blacklisted"),
  E6_15_CARD_BRAND_NOT_SUPPORTED("6.15", "Card Brand not supported"),
  E6_21_LIMIT_EXCEEDED_NUMBER_OF_COMPLETED_DEPOSITS("6.21", "Limit exceeded: Number of completed deposits"),
  E6_22_LIMIT_EXCEEDED_NUMBER_OF_COMPLETED_DEPOSITS_FOR_CARD("6.22", "Limit exceeded: Number of completed deposits for card"),
  E6_23_LIMIT_EXCEEDED_NUMBER_OF_DECLINED_DEPOSITS_FOR_CARD("6.23", "Limit exceeded: Number of declined deposits for card"),
  E6_24_LIMIT_EXCEEDED_NUMBER_OF_CARDS_FOR_IP_ADDRESS("6.24", "Limit exceeded: Number of cards for IP address"),
  E6_25_LIMIT_EXCEEDED_NUMBER_OF_IP_ADDRESSES_FOR_CARD("6.25", "Limit exceeded: Number of IP addresses for card"),
  E6_26_LIMIT_EXCEEDED_IP_COUNTRY_DOES_NOT_MATCH_CARD_COUNTRY("6.26", "Limit exceeded: IP country does not match card country"),
  E6_27_LIMIT_EXCEEDED_SAME_AMOUNT_AND_CURRENCY_FOR_CARD("6.27", "Limit exceeded: Same amount and currency for card"),
  E6_28_LIMIT_EXCEEDED_AMOUNT_OF_DEPOSITS_IN_SPECIFIED_CURRENCY("6.28", "Limit exceeded: Amount of deposits in specified currency"),
  E6_29_LIMIT_EXCEEDED_AMOUNT_OF_DEPOSITS_FOR_CARD_AND_CURRENCY("6.29", "Limit exceeded: Amount of deposits for card and currency"),
  E6_30_LIMIT_EXCEEDED_AMOUNT_OF_DEPOSITS_IN_BASE_CURRENCY("6.30", "Limit exceeded: Amount of deposits in base currency"),
  E6_31_LIMIT_EXCEEDED_AMOUNT_OF_DEPOSITS_FOR_CARD_IN_BASE_CURRENCY("6.31", "Limit exceeded: Amount of deposits for card in base currency"),
  E6_32_LIMIT_EXCEEDED_NUMBER_OF_IP_COUNTRIES_FOR_CARD("6.32", "Limit exceeded: Number of IP countries for card"),
  E6_33_LIMIT_EXCEEDED_AMOUNT_OF_DEPOSITS_FOR_CUSTOMER_IN_BASE_CURRENCY("6.33", "Limit exceeded: Amount of deposits for customer in base currency"),
  E6_34_LIMIT_EXCEEDED_WITHDRAWAL_AMOUNT_FOR_CUSTOMER_IN_BASE_CURRENCY("6.34", "Limit exceeded: Withdrawal amount for customer in base currency"),
  E6_35_BILLING_COUNTRY_RESTRICTED("6.35", "Billing Country Restricted"),
  E6_36_CUSTOMER_CITIZENSHIP_COUNTRY_RESTRICTED("6.36", "Customer Citizenship Country Restricted"),
  E6_37_LIMIT_EXCEEDED_NUMBER_OF_WITHDRAWALS("6.37", "Limit exceeded: Number of withdrawals"),
  E6_38_LIMIT_EXCEEDED_AMOUNT_OF_WITHDRAWALS_IN_SPECIFIED_CURRENCY("6.38", "Limit exceeded: Amount of withdrawals in specified currency"),
  E6_39_CARD_BIN_BLACKLISTED("6.39", "Card BIN Blacklisted"),
  E6_40_UPI_VPA_BLACKLISTED("6.40", "UPI VPA Blacklisted"),
  E6_41_ID_DOCUMENT_BLACKLISTED("6.41", "ID Document Blacklisted"),
  E6_42_LIMIT_EXCEEDED_DECLINE_DEPOSITS_STREAK_FOR_CARD("6.42", "Limit exceeded: Decline deposits streak for card"),
  E6_43_LIMIT_EXCEEDED_INCOMPLETE_DEPOSITS_APM_STREAK_FOR_EMAIL("6.43", "Limit exceeded: Incomplete deposits APM streak for email"),
  E6_44_CUSTOMER_EMAIL_CONTAINS_RESTRICTED_WORD("6.44", "Customer email contains restricted word"),
  E6_45_LIMIT_EXCEEDED_PENDING_DEPOSITS_FOR_CUSTOMER("6.45", "Limit exceeded: Pending deposits for customer"),
  E6_46_LIMIT_EXCEEDED_PENDING_SAME_AMOUNT_DEPOSITS_FOR_CUSTOMER("6.46", "Limit exceeded: Pending same amount deposits for customer"),
  E6_47_LIMIT_EXCEEDED_NUMBER_OF_COMPLETED_DEPOSITS_FOR_EMAIL("6.47", "Limit exceeded: Number of completed deposits for email"),
  E6_48_LIMIT_EXCEEDED_NUMBER_OF_COMPLETED_DEPOSITS_FOR_IP_ADDRESS("6.48", "Limit exceeded: Number of completed deposits for IP address"),
  E6_49_LIMIT_EXCEEDED_NUMBER_OF_CARDS_FOR_CUSTOMER("6.49", "Limit exceeded: Number of cards for customer"),
  E6_50_NUMBER_OF_CARDS_FOR_CUSTOMER("6.50", "Number of cards for customer"),
  E6_51_SUSPICIOUS_EMAIL("6.51", "Suspicious Email"),
  E6_52_BLACKLISTED_IP_ADDRESS("6.52", "Blacklisted IP Address"),
  E6_53_LIMIT_EXCEEDED_NUMBER_OF_ERROR_CODES_IN_DEPOSITS_FOR_EMAIL("6.53", "Limit exceeded: Number of error codes in deposits for email"),
  E7_00_DECLINED_BY_EXTERNAL_ANTI_FRAUD("7.00", "Declined by External Anti-fraud"),
  E7_01_EXTERNAL_ANTI_FRAUD_COMMUNICATION_PROBLEM("7.01", "External Anti-fraud Communication Problem"),
  E8_00_REJECTED_BY_MERCHANT("8.00", "Rejected by Merchant");

  private static final Map<String, ErrorCode> BY_CODE =
      Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(ErrorCode::code, Function.identity()));

  private final String code;
  private final String message;

  ErrorCode(String code, String message) {
    this.code = code;
    this.message = message;
  }

  /** The code in the form digit, dot, two digits, e.g. {@code 4.01}. */
  public String code() {
    return code;
  }

  public String message() {
    return message;
  }

  /** Code and message, e.g. {@code 1.00 Illegal Workflow State}. */
  public String describe() {
    return code + " " + message;
  }

  public static Optional<ErrorCode> fromCode(String code) {
    return Optional.ofNullable(code == null ? null : BY_CODE.get(code));
  }
}
