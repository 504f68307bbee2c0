-- Run by DatabaseMigrationSessionTest through Database.migrate: a migration, and Flyway's lock
-- held in a transaction beside it, must not run in a session that the server ends when it is
-- idle in a transaction, as the pool's are.
DO $$
BEGIN
  IF current_setting('idle_in_transaction_session_timeout') <> '0' THEN
    RAISE EXCEPTION 'migrations run in a session with idle_in_transaction_session_timeout = %',
      current_setting('idle_in_transaction_session_timeout');
  END IF;
END $$;
