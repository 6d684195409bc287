"""Gander against a goose-like writer for 12,000 messages, about a minute (issue #5, point 4).

    python -m benchmarks.stress [--rows 12000]

Prints what each side did and exits non-zero if anything was lost, corrupted or refused.
"""

import argparse
import sys

from tests.fixtures.stress import run_stress


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=12_000)
    args = parser.parse_args()
    report = run_stress(args.rows)
    print(
        f"goose: {report.goose_inserted} messages, {report.goose_rewrites} rewritten "
        f"conversations, {report.goose_sessions_created} new sessions"
    )
    print(
        f"gander: {report.gander_operations} list+read+rename+archive rounds, "
        f"{report.gander_searches} index updates with a search"
    )
    print(f"largest WAL seen: {report.max_wal_bytes / 1e6:.1f} MB")
    for error in report.errors:
        print(f"error reaching Gander's caller: {error}")
    for problem in report.problems:
        print(f"problem: {problem}")
    print("OK: nothing lost, integrity_check ok" if report.ok else "FAILED")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
