"""Benchmark: how long each `deskhand` command takes, as a terminal or a script starts it.

It starts its own desk (a 1600×900 Xvfb, a private session bus with AT-SPI, the test form and a
GTK dialog: `tests/support/desk.py`), then Deskhand itself on it (window offscreen, Autonomous
mode, a data dir of its own), and times each command as a whole process, from its start to its
exit, over several runs: with the app running (the command asks it over the local socket) and
without it (the command acts by itself). Each line prints the minimum and the median wall time,
and the median CPU time of the command's process (user + system): on a busy machine the wall
time also counts waiting for a core, the CPU time does not.

Target: `deskhand ui windows` against the running app within 150 ms (the median).

First, with no desk: `deskhand --version` and `deskhand apps dictionary FILE --json` against a
bare `python -c pass`, in turn (A B A B …), each a whole process: the median CPU time of each
and the median of the per-pair ratios (targets: --version within 2 times; a dictionary within 3
times plus its parse, which is timed in this process and printed beside it). Then the
dictionaries one after another, each in a fresh HOME, to 26 calls (the target: within 5 s).
The dictionaries are `tests/support/sdef/fixtures`' (hand-written in the shape of Apple's:
no real one ships with the repository) and any given with `--sdef`. Python must be able to
write its bytecode caches (PYTHONDONTWRITEBYTECODE unset), as in an installed app; otherwise
every run compiles Deskhand's modules and the figures say little.

    .venv/bin/python bench/cli.py [--runs 10] [--pairs 9] [--sdef FILE ...] [--no-desk]

It always exits 0 and prints the figures; without Xvfb or AT-SPI it says so and stops.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.atspi import atspi_missing  # noqa: E402
from tests.support.desk import Desk, running_desk  # noqa: E402
from tests.support.x11 import xvfb_missing  # noqa: E402

TARGET_MS = {"ui windows": 150.0}
VERSION_TARGET = 2.0  # times a bare python
DICTIONARY_TARGET = 3.0  # times a bare python, plus the parse
DICTIONARIES_TARGET_S = 5.0  # 26 calls, each in a fresh HOME
DICTIONARY_CALLS = 26
FIXTURES = ROOT / "tests" / "support" / "sdef" / "fixtures"
START_LIMIT = 90.0
APP = "see_target.py"
COMMANDS = [
    ["--version"],
    ["ui", "screens"],
    ["ui", "windows"],
    ["ui", "windows", "--json"],
    ["ui", "see", "--app", APP],
    ["ui", "see", "--app", APP, "--json"],
    ["ui", "wait", "--app", APP, "--label", "Save"],
    ["ui", "screenshot", "--app", APP],
    ["ui", "click", "B1"],
    ["ui", "type", "T1", "Grace"],
    ["ui", "scroll", "X1"],
    ["apps", "list", "--json"],
]
ALONE = [
    ["ui", "windows"],
    ["ui", "see", "--app", APP, "--json"],
    ["ui", "click", "B1"],
]


def process(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """One whole process's wall and CPU time (user + system) in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True, timeout=60)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def against_bare(command: list[str], pairs: int) -> tuple[float, float, float]:
    """The command and a bare python in turn: their median CPU times (ms), the median ratio."""
    bare = [sys.executable, "-c", "pass"]
    process(command), process(bare)  # warm: files in the page cache, bytecode written
    times = [(process(command)[1], process(bare)[1]) for _ in range(pairs)]
    return (
        statistics.median(a for a, _ in times) * 1000,
        statistics.median(b for _, b in times) * 1000,
        statistics.median(a / b for a, b in times),
    )


def parse_ms(path: Path) -> float:
    """Reading, parsing and exporting one dictionary in this process (median of 5, CPU ms)."""
    import json

    from tools.mac.sdef.export import dictionary_json
    from tools.mac.sdef.parse import parse_sdef_file

    def once() -> float:
        started = time.process_time()
        json.dumps(dictionary_json(path.stem, parse_sdef_file(path)), indent=2)
        return time.process_time() - started

    return statistics.median(once() for _ in range(5)) * 1000


def command_figures(pairs: int, dictionaries: list[Path]) -> None:
    """`--version` and `apps dictionary` as whole processes, against a bare python."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set: every run compiles Deskhand's modules.")
    deskhand = [sys.executable, "-m", "desktop"]
    print(f"Whole processes, CPU time, medians of {pairs} pairs against `python -c pass`:")
    mine, bare, ratio = against_bare([*deskhand, "--version"], pairs)
    verdict = "met" if ratio <= VERSION_TARGET else "MISSED"
    print(
        f"  deskhand --version {mine:6.0f} ms   bare {bare:4.0f} ms   {ratio:4.2f}x"
        f"   target {VERSION_TARGET:.0f}x: {verdict}"
    )
    for path in dictionaries:
        mine, bare, ratio = against_bare(
            [*deskhand, "apps", "dictionary", str(path), "--json"], pairs
        )
        parse = parse_ms(path)
        verdict = "met" if mine <= DICTIONARY_TARGET * bare + parse else "MISSED"
        print(
            f"  apps dictionary {path.name:<22} ({path.stat().st_size // 1024:4d} KB) {mine:5.0f} ms"
            f"   bare {bare:3.0f} ms   {ratio:4.2f}x   parse {parse:5.1f} ms"
            f"   target {DICTIONARY_TARGET:.0f}x bare + parse: {verdict}"
        )
    started = time.perf_counter()
    cpu = 0.0
    for index in range(DICTIONARY_CALLS):
        path = dictionaries[index % len(dictionaries)]
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, "HOME": home, "XDG_CACHE_HOME": "", "XDG_DATA_HOME": ""}
            cpu += process([*deskhand, "apps", "dictionary", str(path), "--json"], env)[1]
    took = time.perf_counter() - started
    verdict = "met" if took <= DICTIONARIES_TARGET_S else "MISSED"
    print(
        f"  {DICTIONARY_CALLS} calls over {len(dictionaries)} dictionaries, each in a fresh HOME:"
        f" {took:5.2f} s (CPU {cpu:4.2f} s)   target {DICTIONARIES_TARGET_S:.0f} s: {verdict}",
        flush=True,
    )


def run(words: list[str], data_dir: Path, env: dict[str, str]) -> tuple[float, float]:
    """One command's wall and CPU time in seconds; a command that fails stops the bench."""
    command = [sys.executable, "-m", "desktop", *words]
    if words != ["--version"]:
        command += ["--data-dir", str(data_dir)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"`deskhand {' '.join(words)}` failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def line(words: list[str], times: list[tuple[float, float]], targets: dict[str, float]) -> str:
    label = " ".join(words)
    walls = [wall * 1000 for wall, _ in times]
    low, middle = min(walls), statistics.median(walls)
    cpu = statistics.median(cpu * 1000 for _, cpu in times)
    target = targets.get(label)
    verdict = ""
    if target is not None:
        verdict = f"   target {target:.0f} ms: {'met' if middle <= target else 'MISSED'}"
    return (
        f"  deskhand {label:<40} min {low:6.0f} ms   median {middle:6.0f} ms"
        f"   CPU {cpu:5.0f} ms{verdict}"
    )


def measure(
    title: str,
    commands: list[list[str]],
    data_dir: Path,
    env: dict[str, str],
    runs: int,
    targets: dict[str, float] | None = None,
) -> None:
    print(title)
    for words in commands:
        if words[1:2] in (["click"], ["type"], ["scroll"]):
            run(["ui", "see", "--app", APP], data_dir, env)  # the ids it acts on
        run(words, data_dir, env)  # warm: the files it reads are in the page cache
        times = [run(words, data_dir, env) for _ in range(runs)]
        print(line(words, times, targets or {}), flush=True)


def start_app(desk: Desk, data_dir: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    app_env = {**env, "QT_QPA_PLATFORM": "offscreen", "ANTHROPIC_API_KEY": "sk-bench"}
    app_env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # no model call is made
    process = subprocess.Popen(
        [sys.executable, "-m", "desktop", "--data-dir", str(data_dir), "--permission-mode",
         "autonomous"],
        cwd=ROOT, env=app_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + START_LIMIT
    served = data_dir / "ui" / "ui.json"
    while True:
        if served.exists():
            check = subprocess.run(
                [sys.executable, "-m", "desktop", "ui", "screens", "--data-dir", str(data_dir)],
                cwd=ROOT, env=env, capture_output=True, timeout=60,
            )  # fmt: skip
            if check.returncode == 0:
                return process
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("Deskhand never served the command line.")
        time.sleep(0.3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=10, help="timed runs per command (10)")
    parser.add_argument("--pairs", type=int, default=9, help="pairs against a bare python (9)")
    parser.add_argument("--sdef", type=Path, nargs="*", default=[], help="more dictionaries")
    parser.add_argument("--no-desk", action="store_true", help="only the figures without a desk")
    options = parser.parse_args()
    runs = options.runs
    fixtures = [FIXTURES / "Finder.sdef", FIXTURES / "Mail.sdef"]
    fixtures.append(FIXTURES / "ScriptingDefinitions" / "CocoaStandard.sdef")
    command_figures(options.pairs, [*fixtures, *options.sdef])
    if options.no_desk:
        return 0
    missing = xvfb_missing() or atspi_missing()
    if missing:
        print(f"Not measured: {missing}")
        return 0
    with running_desk() as desk, tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, **desk.env(), "PYTHONPATH": str(ROOT)}
        with_app, alone = Path(folder) / "app", Path(folder) / "alone"
        with_app.mkdir()
        alone.mkdir()
        rules = {"screen.click": "allow", "screen.set_value": "allow"}
        (alone / "settings.json").write_text(json.dumps({"permissions": {"rules": rules}}))
        process = start_app(desk, with_app, env)
        try:
            print(f"Each command {runs} times, whole process (wall clock), after one warm-up run.")
            title = "With Deskhand running (asked over its socket):"
            measure(title, COMMANDS, with_app, env, runs, TARGET_MS)
        finally:
            process.terminate()
            process.wait(timeout=30)
        measure("Without it (the command acts by itself):", ALONE, alone, env, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
