"""Benchmark: what looking at an action's effect costs, and how many page reads it saves.

1. Cost. On a settled local page (tests/support/pages/effects.html), the same click through
   `toolset.run` exactly as the app calls it, alternately with the effect looked at
   (`observe_effects`) and without: a button whose handler does nothing, and a checkbox. Prints
   each median with its interquartile range, the median added and the ratio. Target: at most
   30 ms added (median) to a click on a settled page. It also prints the time each call spent
   looking before and after (the part the effect adds, timed inside the call, so the click's
   own variance is not in it). Then the same click on the page with a
   table added (`--rows`), to show how the cost grows with the page.

2. Reads. The plan tests' documentation task (tests/support/plan_sites.py: open the docs,
   click the search box, type, Return, open the first result) run by a scripted model that
   checks each action before the next one: after an acting call whose result does not show
   that it worked (a line of the result, or the tab's address in the tabs' state), and that
   is not followed by a read anyway, it calls `read_page`. Counted with effects and without.

    .venv/bin/python bench/browser_effects.py [--rounds 40] [--rows 0 250 1200]

Timings on a shared machine are noisy: run it more than once and read the ranges.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from anthropic.types.beta import BetaToolUseBlock  # noqa: E402

from tests.support.page_server import PageServer  # noqa: E402
from tools.browser import (  # noqa: E402
    BrowserConfig,
    BrowserPool,
    PlaywrightBrowser,
    UrlPolicy,
    find_browser,
)
from tools.browser.outcome import watch  # noqa: E402

_ids = itertools.count(1)
WATCHING: list[float] = []  # ms each call spent looking before and after (see `time_watch`)


def time_watch() -> None:
    """Time what the effect adds inside each call (looking before, settling, looking after): the
    same figure as the difference of the two medians, without the click's own noise in it."""
    before, outcome = watch.Watch.before.__func__, watch.Watch.outcome  # type: ignore[attr-defined]

    async def timed_before(cls: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await before(cls, *args, **kwargs)
        finally:
            WATCHING.append((time.perf_counter() - started) * 1000)

    async def timed_outcome(self: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await outcome(self, *args, **kwargs)
        finally:
            WATCHING[-1] += (time.perf_counter() - started) * 1000

    watch.Watch.before = classmethod(timed_before)  # type: ignore[method-assign, assignment]
    watch.Watch.outcome = timed_outcome  # type: ignore[method-assign]


SEARCH_BOX = {"type": "coordinate", "x": 140, "y": 55}
FIRST_RESULT = {"type": "coordinate", "x": 80, "y": 70}


async def call(browser: PlaywrightBrowser, member: str, **input: Any) -> dict[str, Any]:
    use = BetaToolUseBlock(
        type="tool_use", id=f"toolu_{next(_ids)}", name=member, input=input, toolset_name="browser"
    )
    run = await browser.run(use, progress=None)
    return run.block


def texts(block: dict[str, Any]) -> str:
    """What the model reads of a result: its text, and each tab's address and title."""
    out: list[str] = []
    for part in block["content"]:
        if part["type"] == "text":
            out.append(part["text"])
        elif part["type"] == "browser_state":
            out.extend(f"{tab['url']} {tab['title']}" for tab in part["tabs"])
    return "\n".join(out)


def ref_in(text: str, label: str) -> str:
    for line in text.splitlines():
        if label in line:
            return next(
                t for t in line.replace("[", " ").replace("]", " ").split() if t.startswith("ref_")
            )
    raise LookupError(label)


# A table added to the page, to see the cost grow with the page: rows of 4 elements.
ADD_ROWS = """(rows) => {
  const table = document.createElement('table');
  for (let i = 0; i < rows; i++) {
    const row = table.insertRow();
    for (const text of ['Order ' + i, 'Shipped', (i * 7 % 100) + ' EUR']) row.insertCell().textContent = text;
  }
  document.body.appendChild(table);
  return document.getElementsByTagName('*').length;
}"""


async def cost(pool: BrowserPool, pages: PageServer, rounds: int, rows: int) -> None:
    browser = pool.for_session(f"cost-{rows}")
    await call(browser, "navigate", url=pages.url("effects.html"))
    tab = await browser._session.tab(None)
    elements = await tab.page.evaluate(ADD_ROWS, rows)
    print(f"page of {elements} elements:")
    controls = texts(await call(browser, "read_page", filter="interactive"))
    targets = {
        "no-op button": {"type": "ref", "ref": ref_in(controls, "Do nothing")},
        "checkbox": {"type": "ref", "ref": ref_in(controls, "Remember me")},
    }
    for name, target in targets.items():
        times: dict[bool, list[float]] = {True: [], False: []}
        WATCHING.clear()
        for index in range(rounds * 2 + 4):
            observe = index % 2 == 0
            browser.observe_effects = observe
            started = time.perf_counter()
            await call(browser, "left_click", target=target)
            elapsed = (time.perf_counter() - started) * 1000
            if index >= 4:  # the first rounds warm up both paths
                times[observe].append(elapsed)
            await asyncio.sleep(0.05)
        alone, watched = times[False], times[True]
        print(f"  {name}: click alone {_spread(alone)}; with its effect {_spread(watched)}")
        added = statistics.median(watched) - statistics.median(alone)
        ratio = statistics.median(watched) / statistics.median(alone)
        print(f"  added {added:.1f} ms (median), ratio {ratio:.2f}  [{rounds} each]")
        print(f"  inside the call, looking before and after: {_spread(WATCHING[2:])}")
    browser.observe_effects = True


def _spread(values: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(values, n=4)
    return f"median {median:.1f} ms (IQR {q1:.1f}–{q3:.1f})"


# The documentation task's acting steps: what shows each worked, and whether a read follows.
STEPS: list[tuple[str, dict[str, Any], str, bool]] = [
    ("left_click", {"target": SEARCH_BOX}, 'textbox "Search the docs": focused', False),
    ("type", {"text": "list comprehensions"}, '"list comprehensions"', False),
    ("key", {"text": "Return"}, "search.html?q=list+comprehensions", True),
    ("left_click", {"target": FIRST_RESULT}, "tutorial.html", True),
]


async def reads(pool: BrowserPool, pages: PageServer, *, observe: bool) -> int:
    browser = pool.for_session(f"reads-{observe}")
    browser.observe_effects = observe
    await call(browser, "navigate", url=pages.url("plan/docs.html"))
    read_pages = 0
    for member, input, shows, read_follows in STEPS:
        seen = texts(await call(browser, member, **input))
        if shows not in seen and not read_follows:
            read_pages += 1
            await call(browser, "read_page", filter="interactive")
        if read_follows:
            await call(browser, "get_page_text")
    return read_pages


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--rows", type=int, nargs="*", default=[0, 250, 1200])
    args = parser.parse_args()
    time_watch()
    choice = find_browser(None)
    if choice is None:
        print("no Chromium-family browser found")
        return 0
    launch = {"executable_path": choice.path} if choice.path else {"channel": choice.channel}
    with tempfile.TemporaryDirectory() as folder, PageServer() as pages:
        config = BrowserConfig(
            headless=True,
            url_policy=UrlPolicy(allow_hosts=("127.0.0.1",)),
            downloads_dir=Path(folder),
            **launch,
        )
        pool = BrowserPool(config, confirm=None)
        try:
            for rows in args.rows:
                await cost(pool, pages, args.rounds if not rows else args.rounds // 2, rows)
            without = await reads(pool, pages, observe=False)
            with_effects = await reads(pool, pages, observe=True)
            print(
                f"documentation task: {without} read_page calls to check its actions without "
                f"effects, {with_effects} with them"
            )
        finally:
            await pool.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
