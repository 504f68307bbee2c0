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
        return read(file);
      }
      Files.createDirectories(file.getParent());
      byte[] key = SecretBox.randomKey();
      // Written whole and readable by its owner only before it has its name, and named only if
      // no other process named its own first: two starting at once (a service and a command on
      // one data directory) each kept the key it wrote, one of them a key the file no longer
      // held, and whatever it sealed could not be opened after its restart. A file created and
      // then restricted was readable by anyone for a moment.
      Path written = writeOwnerOnly(file.resolveSibling("master.key." + java.util.UUID.randomUUID() + ".new"), key);
      try {
        Files.createLink(file, written);
      } catch (java.nio.file.FileAlreadyExistsException lost) {
        return read(file);
      } catch (UnsupportedOperationException noLinks) {
        try {
          Files.move(written, file);
        } catch (java.nio.file.FileAlreadyExistsException lost) {
          return read(file);
        }
      } finally {
        Files.deleteIfExists(written);
      }
      LOG.info("generated a sandbox master key in {}", file);
      return key;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the master key file " + file, e);
    }
  }

  private static byte[] read(Path file) throws IOException {
    return decode(Files.readString(file, StandardCharsets.US_ASCII).strip(), "the master key file " + file);
  }

  /** {@code key} written to a new file {@code path} readable by its owner only, on the disk. */
  private static Path writeOwnerOnly(Path path, byte[] key) throws IOException {
    try {
      Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException notPosix) {
      Files.createFile(path);
    }
    // on the disk before it has its name: a crash must not leave an empty file
    Files.writeString(path, Base64.getEncoder().encodeToString(key) + "\n", StandardCharsets.US_ASCII,
        java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.SYNC);
    return path;
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
      writeOwnerOnly(next, key);
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
