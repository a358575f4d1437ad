"""Figures: the documentation-task tests on a busy machine, every core loaded, run after run.

A browser action must never fail because the machine is slow. This runs the tests that drive
the documentation task through the real agent, the real browser and the scripted model
(tests/desktop/calls/sources/plan/test_plans.py and tests/ui/window/approvals/test_plans.py,
`-k documentation`)
`--runs` times in a row while `tests.support.busy` spins one process per core (bounded: the
load stops by itself after `--limit` seconds even if this is killed), and prints each run and
the count that passed, against the target: all of them.

    .venv/bin/python bench/busy_machine.py            # 20 runs
    .venv/bin/python bench/busy_machine.py --runs 5

It exits 0 when every run passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.busy import busy_cores  # noqa: E402

TESTS = [
    "tests/desktop/calls/sources/plan/test_plans.py",
    "tests/ui/window/approvals/test_plans.py",
]
RUN_LIMIT = 600  # seconds one run may take before it counts as failed


def one_run() -> tuple[bool, float, str]:
    """One pytest run of the documentation-task tests: passed, seconds, its last line."""
    started = time.monotonic()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "pytest", *TESTS, "-q", "-k", "documentation"]
    command += ["-p", "no:cacheprovider"]
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_LIMIT
        )
    except subprocess.TimeoutExpired:
        return False, time.monotonic() - started, f"timed out after {RUN_LIMIT} s"
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if "2 passed" not in (lines[-1] if lines else ""):  # both tests, or the run proves nothing
        return False, time.monotonic() - started, lines[-1] if lines else done.stderr[-200:]
    last = lines[-1] if lines else done.stderr.strip()[-200:]
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    return done.returncode == 0, time.monotonic() - started, "; ".join(failed) or last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--limit", type=float, default=3600.0, help="seconds of load, at most")
    options = parser.parse_args()
    passed = 0
    with busy_cores(limit=options.limit) as cores:
        print(
            f"{cores} cores busy; {options.runs} runs of the documentation-task tests", flush=True
        )
        for run in range(1, options.runs + 1):
            ok, seconds, line = one_run()
            passed += ok
            print(f"run {run:2}: {'pass' if ok else 'FAIL'} {seconds:5.1f} s  {line}", flush=True)
    print(f"passed {passed} of {options.runs} with every core loaded (target: all)")
    return 0 if passed == options.runs else 1


if __name__ == "__main__":
    sys.exit(main())
