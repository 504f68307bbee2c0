package io.tollgate.persistence;

import java.math.BigDecimal;
import java.time.Instant;

/** A row of {@code payments} as stored; JSON columns as text. */
record PaymentRow(
    String id,
    long shopId,
    String paymentType,
    String state,
    String paymentMethod,
    BigDecimal amount,
    String currency,
    BigDecimal customerAmount,
    String customerCurrency,
    String referenceId,
    String description,
    String parentPaymentId,
    boolean preAuth,
    String card,
    String customer,
    String customerIp,
    String customerIpCountry,
    String billingAddress,
    String returnUrl,
    String webhookUrl,
    String additionalParameters,
    String errorCode,
    String errorMessage,
    String externalId,
    String externalResultCode,
    String externalRefs,
    String terminalName,
    Long terminalId,
    boolean holdsOnceRouted,
    Instant created,
    Instant updated,
    long version) {}
