"""Splits PostgreSQL's CPU samples (`perf script` output with call graphs, on stdin) by phase.

Each sample goes to the first phase in PHASES that one of its frames belongs to, so the shares
add up to 100%: a foreign-key check's index lookup counts as the check, an index entry written
by a statement's CTE as an index entry, and so on. Used by bench/db-profile.sh.
"""
import collections
import re
import sys

PHASES = [
    ("background processes (WAL writer, checkpointer, autovacuum...)",
     {"WalWriterMain", "BackgroundWriterMain", "CheckpointerMain", "AutoVacWorkerMain",
      "AutoVacLauncherMain", "WalSndLoop", "PgArchiverMain"}),
    ("foreign-key checks", {"RI_FKey_check", "RI_FKey_check_ins", "RI_FKey_check_upd"}),
    ("functions (plpgsql)", {"plpgsql_call_handler"}),
    ("index entries written", {"ExecInsertIndexTuples"}),
    ("conflict checks of INSERT ... ON CONFLICT", {"ExecCheckIndexConstraints"}),
    ("rows written (heap)", {"heap_insert", "heap_update", "heap_multi_insert"}),
    ("row locks", {"heap_lock_tuple", "ExecLockRows"}),
    ("commit: WAL flush", {"XLogFlush"}),
    ("commit: the rest", {"CommitTransaction", "finish_xact_command"}),
    ("executor start (plan set-up, locks)", {"standard_ExecutorStart", "ExecutorStart"}),
    ("plan cache (revalidation, locks)", {"GetCachedPlan", "RevalidateCachedQuery"}),
    ("parse and bind", {"exec_parse_message", "exec_bind_message", "pg_parse_query", "pg_analyze_and_rewrite_fixedparams"}),
    ("executor end", {"standard_ExecutorEnd", "ExecutorEnd", "PortalDrop"}),
    ("scans, expressions, CTEs (executor run)", {"standard_ExecutorRun", "standard_ExecutorFinish", "ExecutorRun"}),
    ("reading from the client (and waiting)", {"secure_read", "pq_getbyte", "pq_getmessage", "WaitEventSetWait"}),
    ("writing to the client", {"secure_write", "pq_flush", "internal_flush"}),
]
OTHER = "other (start of transaction, memory, kernel...)"


def frames(sample):
    for line in sample.split("\n")[1:]:
        parts = line.split()
        if len(parts) > 1:
            yield re.sub(r"\+0x[0-9a-f]+$", "", parts[1])


def main():
    counts = collections.Counter()
    total = 0
    for sample in sys.stdin.read().split("\n\n"):
        if not sample.strip():
            continue
        total += 1
        seen = set(frames(sample))
        for name, functions in PHASES:
            if seen & functions:
                counts[name] += 1
                break
        else:
            counts[OTHER] += 1
    if total == 0:
        print("perf recorded no PostgreSQL samples")
        return
    print(f"PostgreSQL's CPU by phase (perf, {total} samples; each counted once, in the first phase"
          " of this list that it is in):")
    for name in [name for name, _ in PHASES] + [OTHER]:
        if counts[name]:
            print(f"  {100 * counts[name] / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
