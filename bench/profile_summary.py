#!/usr/bin/env python3
"""Summarises an async-profiler collapsed-stack file: where the service's CPU goes, by library
and by Tollgate frame (inclusive). Usage: profile_summary.py FILE [TOP]"""
import collections
import sys

LIBRARIES = [
    ("JIT compiler", ("CompileBroker",)),
    ("GC", ("G1", "GCTaskThread", "WorkerThread::")),
    ("jdbi", ("org/jdbi",)),
    ("postgresql driver", ("org/postgresql",)),
    ("jersey/hk2", ("org/glassfish", "org/jvnet")),
    ("jetty", ("org/eclipse/jetty",)),
    ("jackson", ("com/fasterxml",)),
    ("logback", ("ch/qos/logback", "org/slf4j", "net/logstash")),
    ("micrometer", ("io/micrometer",)),
    ("hikari", ("com/zaxxer",)),
    ("crypto", ("javax/crypto", "com/sun/crypto", "sun/security")),
    ("tollgate", ("io/tollgate",)),
]


def category(frames):
    for name, keys in LIBRARIES[:2]:
        if any(k in f for f in frames for k in keys):
            return name
    for f in reversed(frames):  # the innermost library frame owns the sample
        for name, keys in LIBRARIES[2:]:
            if f.startswith(keys):
                return name
    return "jdk/other"


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    total = 0
    by_library = collections.Counter()
    by_frame = collections.Counter()
    for line in open(path, encoding="utf-8", errors="replace"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        frames = stack.split(";")
        total += n
        by_library[category(frames)] += n
        for f in set(frames):
            if f.startswith("io/tollgate") and "$$Lambda" not in f and "lambda$" not in f:
                by_frame[f] += n
    print(f"{total} samples")
    print("\nCPU by library (innermost library frame):")
    for name, n in by_library.most_common():
        print(f"  {100 * n / total:5.1f}%  {name}")
    print(f"\nTollgate frames, inclusive (top {top}):")
    for name, n in by_frame.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
