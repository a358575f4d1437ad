"""Benchmark: what keeping a target's meaning adds to judging a click, and what finding it costs.

1. Judging. On tests/support/pages/again/docs.html, `judge` of a `left_click` on the second
   "Download" link (by ref, and at its point), exactly as the app asks it before a call runs,
   alternately with the meaning (the `near` part of the page-side description, and the
   `TargetMeaning` built from it) and without. Then on the same page with `--paragraphs` of
   text and links added between the heading and the link: the worst case for `near`, which
   looks back through the link's earlier siblings. Prints medians with interquartile ranges.

2. Finding. `find_again` of that link in the page as loaded (found at once: the snapshot and
   the ref), and of a link that is not there with a 0.5 s budget (how far past it it returns).

    .venv/bin/python bench/browser_meaning.py [--rounds 40] [--paragraphs 0 2000]

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
from tools.browser import toolset as toolset_module  # noqa: E402
from tools.browser.effect import target as target_module  # noqa: E402
from tools.meaning import TargetMeaning  # noqa: E402

_ids = itertools.count(1)
WITH = (target_module.FACTS_CALL, target_module.FACTS_EVALUATE, toolset_module.target_meaning)


async def _no_meaning(*_args: Any, **_kwargs: Any) -> None:
    return None


def keep_meaning(on: bool) -> None:
    """Judge with the meaning, or as before it (no `near` computed, no meaning built)."""
    if on:
        target_module.FACTS_CALL, target_module.FACTS_EVALUATE, toolset_module.target_meaning = WITH
        return
    target_module.FACTS_CALL = WITH[0].replace("near: near(act)", "near: ''")
    target_module.FACTS_EVALUATE = WITH[1].replace("near: near(act)", "near: ''")
    toolset_module.target_meaning = _no_meaning  # type: ignore[assignment]


# Paragraphs of text with a link each, between the "Upgrade" heading and its link.
ADD_PARAGRAPHS = """(count) => {
  const link = document.querySelector('a[href$=upgrade]').parentElement;
  for (let i = 0; i < count; i++) {
    const p = document.createElement('p');
    p.innerHTML = 'Release ' + i + ' notes, see <a href="#r' + i + '">release ' + i + '</a>.';
    link.before(p);
  }
  return document.getElementsByTagName('*').length;
}"""


def use(member: str, **input: Any) -> BetaToolUseBlock:
    return BetaToolUseBlock(
        type="tool_use", id=f"toolu_{next(_ids)}", name=member, input=input, toolset_name="browser"
    )


async def judging(pool: BrowserPool, pages: PageServer, rounds: int, paragraphs: int) -> None:
    browser: PlaywrightBrowser = pool.for_session(f"judge-{paragraphs}")
    await browser.run(use("navigate", url=pages.url("again/docs.html")), progress=None)
    tab = await browser._session.tab(None)
    elements = await tab.page.evaluate(ADD_PARAGRAPHS, paragraphs)
    # Its ref, as a replayed step gets it (read_page may cut a long page before the link).
    meaning = TargetMeaning(
        role="link", name="Download", near='heading "Upgrade"', url=tab.page.url
    )
    found = await browser.find_again(meaning, within=10.0)
    assert found.found, found
    ref = found.input["target"]["ref"]
    link = tab.page.locator("a[href$=upgrade]")
    await link.scroll_into_view_if_needed()
    box = await link.bounding_box()
    assert box is not None
    point = {"type": "coordinate", "x": round(box["x"] + 5), "y": round(box["y"] + 5)}
    print(f"page of {elements} elements:")
    for name, target in (("by ref", {"type": "ref", "ref": ref}), ("at a point", point)):
        times: dict[bool, list[float]] = {True: [], False: []}
        for index in range(rounds * 2 + 4):
            on = index % 2 == 0
            keep_meaning(on)
            context = browser.context_of(use("left_click", target=target))
            started = time.perf_counter()
            judged = await browser.judge(context)
            elapsed = (time.perf_counter() - started) * 1000
            if index >= 4:
                times[on].append(elapsed)
            assert (judged.meaning is not None) == on, judged
            if index == 0:
                print(f"  {name}: near {judged.meaning.near if judged.meaning else None!r}")
        keep_meaning(True)
        added = statistics.median(times[True]) - statistics.median(times[False])
        print(
            f"  {name}: judge without {_spread(times[False])}; with {_spread(times[True])}; "
            f"added {added:.1f} ms (median) [{rounds} each]"
        )


async def finding(pool: BrowserPool, pages: PageServer, rounds: int) -> None:
    browser: PlaywrightBrowser = pool.for_session("find")
    docs = pages.url("again/docs.html")
    await browser.run(use("navigate", url=docs), progress=None)
    there = TargetMeaning(role="link", name="Download", near='heading "Upgrade"', url=docs)
    gone = TargetMeaning(role="link", name="Changelog", url=docs)
    found_ms: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        found = await browser.find_again(there, within=5.0)
        found_ms.append((time.perf_counter() - started) * 1000)
        assert found.found, found
    print(f"find_again, two candidates told apart by near: {_spread(found_ms)}")
    late: list[float] = []
    for _ in range(5):
        started = time.perf_counter()
        missing = await browser.find_again(gone, within=0.5)
        late.append((time.perf_counter() - started) * 1000 - 500)
        assert not missing.found
    print(f"find_again, not there, 0.5 s budget: returned {min(late):.0f}–{max(late):.0f} ms late")


def _spread(values: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(values, n=4)
    return f"median {median:.1f} ms (IQR {q1:.1f}–{q3:.1f})"


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--paragraphs", type=int, nargs="*", default=[0, 2000])
    args = parser.parse_args()
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
            for paragraphs in args.paragraphs:
                await judging(pool, pages, args.rounds, paragraphs)
            await finding(pool, pages, args.rounds)
        finally:
            await pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
