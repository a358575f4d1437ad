"""Benchmark: discovering scriptable apps, first (parsing every dictionary) and cached.

Builds N synthetic app bundles (Info.plist + a dictionary that includes a CocoaStandard-like
suite, like most real apps) in a temporary folder, then times a first discovery into an empty
cache and a cached discovery with a fresh catalog (nothing in memory), and prints both.
Target: cached discovery of 100 apps under 0.5 s.

    .venv/bin/python bench/sdef_discovery.py [--apps 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.sdef.bundles import INCLUDES, make_bundle, small_sdef  # noqa: E402
from tools.mac.sdef.catalog import AppCatalog  # noqa: E402

TARGET_SECONDS = 0.5


def build(root: Path, count: int) -> None:
    for index in range(count):
        name = f"App {index:03d}"
        make_bundle(
            root,
            name,
            sdef=small_sdef(name, commands=5 + index % 20),
            enabled=True,
            binary=index % 2 == 0,
        )
    make_bundle(root, "Not Scriptable")


async def discover(cache: Path, apps: Path) -> tuple[float, int]:
    catalog = AppCatalog(cache, roots=[str(apps)], include_root=INCLUDES, sdef_tool=None)
    started = time.perf_counter()
    found = await catalog.apps()
    return time.perf_counter() - started, len(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deskhand-sdef-bench-") as folder:
        base = Path(folder)
        apps = base / "Applications"
        build(apps, args.apps)
        firsts, cached = [], []
        for round_ in range(args.rounds):
            cache = base / f"cache-{round_}"
            first, found = asyncio.run(discover(cache, apps))
            again, found_again = asyncio.run(discover(cache, apps))
            assert found == found_again == args.apps, (found, found_again)
            firsts.append(first)
            cached.append(again)
        first_best, cached_best = min(firsts), min(cached)
        worst_cached = max(cached)
        print(f"{args.apps} synthetic app bundles, best of {args.rounds} rounds")
        print(f"first discovery:  {first_best * 1000:8.1f} ms (parses every dictionary)")
        print(
            f"cached discovery: {cached_best * 1000:8.1f} ms (worst {worst_cached * 1000:.1f} ms)"
        )
        ok = worst_cached < TARGET_SECONDS
        print(f"target: cached under {TARGET_SECONDS * 1000:.0f} ms: {'met' if ok else 'MISSED'}")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
