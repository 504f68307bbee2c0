package io.tollgate.persistence;

import java.time.Instant;

/** A row of {@code payment_operations}. */
record OperationRow(
    long id,
    String paymentId,
    long shopId,
    String operation,
    Instant started,
    Instant completed,
    String paymentState,
    String errorCode,
    String details,
    String terminalName,
    Long terminalId,
    String externalId,
    String externalResultCode) {}
