package io.tollgate.bootstrap;

import io.tollgate.application.crypto.SecretBox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master key that encrypts signing keys and card numbers: {@code TOLLGATE_MASTER_KEY}, or
 * in sandbox a key generated once and kept in the data directory.
 */
final class MasterKey {

  private static final Logger LOG = LoggerFactory.getLogger(MasterKey.class);

  private MasterKey() {}

  static byte[] load(TollgateConfig config) {
    if (config.masterKey() != null) {
      return decode(config.masterKey(), "TOLLGATE_MASTER_KEY");
    }
    Path file = config.dataDirectory().resolve("master.key");
    try {
      if (Files.exists(file)) {
        return decode(Files.readString(file, StandardCharsets.US_ASCII).strip(), "TOLLGATE_MASTER_KEY");
      }
      Files.createDirectories(file.getParent());
      byte[] key = SecretBox.randomKey();
      Files.writeString(file, Base64.getEncoder().encodeToString(key) + "\n", StandardCharsets.US_ASCII);
      try {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException ignored) {
        // not a POSIX file system; the directory's permissions apply
      }
      LOG.info("generated a sandbox master key in {}", file);
      return key;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the master key file " + file, e);
    }
  }

  /**
   * Writes {@code key} as the sandbox's master key in the data directory, in place of the one
   * there: whole, or not at all (a new file moved over the old), readable by its owner only.
   * Returns the file.
   */
  static Path replaceSandboxKey(TollgateConfig config, byte[] key) {
    Path file = config.dataDirectory().resolve("master.key");
    Path next = file.resolveSibling("master.key.new");
    try {
      Files.deleteIfExists(next);
      try {
        Files.createFile(next, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException notPosix) {
        Files.createFile(next);
      }
      // on the disk before it takes the old one's place: a crash must not leave an empty file
      Files.writeString(next, Base64.getEncoder().encodeToString(key) + "\n", StandardCharsets.US_ASCII,
          java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.SYNC);
      Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the new master key to " + file, e);
    }
  }

  /** The key {@code base64} spells; {@code name} is what the error calls it. */
  static byte[] decode(String base64, String name) {
    byte[] key;
    try {
      key = Base64.getDecoder().decode(base64.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " must be base64 of 32 random bytes");
    }
    if (key.length != 32) {
      throw new IllegalArgumentException(name + " must be base64 of 32 random bytes (got "
          + key.length + " bytes)");
    }
    return key;
  }
}
