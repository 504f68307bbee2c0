package io.tollgate.persistence;

import java.nio.file.Path;

/**
 * Where the database is.
 *
 * @param url JDBC URL of an external PostgreSQL; null starts an embedded one
 * @param embeddedDataDirectory where the embedded server keeps its data; null for a throwaway
 *     directory that is removed on close
 */
public record DatabaseSettings(
    String url, String user, String password, Path embeddedDataDirectory, int maxPoolSize) {}
