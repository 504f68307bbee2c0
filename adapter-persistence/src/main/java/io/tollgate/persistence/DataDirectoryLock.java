package io.tollgate.persistence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which process owns an embedded database's data directory: an exclusive lock on a file beside
 * it ({@code <directory>.lock}), held for as long as the database is open. The operating system
 * drops the lock when its process ends, however it ends.
 *
 * <p>The embedded PostgreSQL runs as a process of its own and outlives a service killed with
 * SIGKILL (or by the kernel when out of memory). Its server then still holds the directory, and
 * the next start waited a minute for a server that could not start, failed, and only the start
 * after it worked. Whoever holds this lock knows that no live service uses the directory, so a
 * PostgreSQL server still running on it was left behind by one that died: it is stopped (a
 * smart shutdown: its clients died with their service) before the new one starts.
 */
final class DataDirectoryLock {

  private static final Logger LOG = LoggerFactory.getLogger(DataDirectoryLock.class);
  private static final long ORPHAN_STOP_SECONDS = 60;

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the directory for this process, stopping a server a dead one left running on it.
   *
   * @throws IllegalStateException when another live process holds it
   */
  static DataDirectoryLock take(Path dataDirectory) {
    Path file = dataDirectory.toAbsolutePath().resolveSibling(dataDirectory.getFileName() + ".lock");
    FileChannel channel = null;
    try {
      Files.createDirectories(file.getParent());
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new IllegalStateException("the embedded database in " + dataDirectory
            + " is in use by another Tollgate process; stop it first, or give this one another TOLLGATE_DATA_DIR");
      }
      DataDirectoryLock taken = new DataDirectoryLock(channel, lock);
      try {
        stopLeftBehindServer(dataDirectory);
      } catch (RuntimeException e) {
        taken.release();
        throw e;
      }
      return taken;
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("cannot lock the embedded database's directory " + dataDirectory, e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  private static void stopLeftBehindServer(Path dataDirectory) {
    Optional<ProcessHandle> server = leftBehindServer(dataDirectory);
    if (server.isEmpty()) {
      return;
    }
    ProcessHandle postmaster = server.get();
    LOG.warn("a PostgreSQL server (pid {}) is still running on {}, left by a Tollgate process that ended without"
        + " stopping it; stopping it before starting again", postmaster.pid(), dataDirectory);
    postmaster.destroy();
    try {
      postmaster.onExit().get(ORPHAN_STOP_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the PostgreSQL server (pid " + postmaster.pid() + ") left running on "
          + dataDirectory + " did not stop within " + ORPHAN_STOP_SECONDS + " s; stop it, then start Tollgate again");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the PostgreSQL server left on " + dataDirectory);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("could not stop the PostgreSQL server left on " + dataDirectory, e.getCause());
    }
  }

  /**
   * The live process that the server's own lock file ({@code postmaster.pid}, first line) names,
   * if it is a PostgreSQL server: a stale file (the server was killed as well) names a process
   * that is gone, or, its number reused, one that is not PostgreSQL, and PostgreSQL itself
   * deals with that.
   */
  static Optional<ProcessHandle> leftBehindServer(Path dataDirectory) {
    List<String> lines;
    try {
      lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      // none (NoSuchFileException): the server was stopped and removed it
      return Optional.empty();
    }
    if (lines.isEmpty()) {
      return Optional.empty();
    }
    long pid;
    try {
      pid = Long.parseLong(lines.get(0).trim());
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
        .filter(p -> p.info().command().map(c -> Path.of(c).getFileName().toString().startsWith("postgres"))
            .orElse(false));
  }

  void release() {
    try {
      lock.release();
    } catch (IOException e) {
      LOG.debug("could not release the data directory's lock", e);
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("could not close the data directory's lock file", e);
      }
    }
  }
}
