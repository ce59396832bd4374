"""The big bad-input fuzz, outside the test suite: ``python tests/fuzz.py --runs 10000``
(every kind) or ``--kind journals --runs 500 --start 7``. Prints, per kind, the cases run,
how many ended in exit 0 and exit 2, and every case that broke the promise (traceback,
hang, or more than one line) with the seed that reproduces it; exits 1 if any did."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzzing import KINDS, run_many  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1000, help="cases per kind")
    parser.add_argument("--kind", choices=KINDS, action="append", help="only this kind (repeatable)")
    parser.add_argument("--start", type=int, default=0, help="the first seed")
    args = parser.parse_args()
    failed = 0
    for kind in args.kind or KINDS:
        began = time.monotonic()
        tally = run_many(kind, range(args.start, args.start + args.runs), report=lambda line: print(line, flush=True))
        failed += len(tally.failures)
        print(f"{kind}: {tally.cases} cases, exit 0: {tally.exit0}, exit 2: {tally.exit2}, "
              f"broken: {len(tally.failures)} ({time.monotonic() - began:.0f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
