"""Acting on a ref's element (real Chromium): waited for the way Playwright's actionability checks
wait, within the call's budget, and refused with the check that failed, never reported as done.

Each test runs the member the way the app does (`toolset.run`) and checks the exact text the
model reads, the outcome the member reports, and what the page really received (its buttons
count their clicks). The page: tests/support/pages/actionable.html.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from anthropic.types.beta import BetaToolUseBlock

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import TEST_POLICY, Driver, Gate, Result
from tools.browser import BrowserConfig, BrowserPool, errors
from tools.outcome import Outcome

pytestmark = pytest.mark.anyio

BUDGET = 4.0  # seconds a call may wait for its target here (the app's comes from Settings)
COVERED = (
    'Refused: the element is covered by dialog "Cookies", which would receive the click '
    "instead; nothing was done. Deal with that first, or take a screenshot."
)
NOT_ENABLED = (
    "Refused: the element is not enabled (it is disabled), so nothing was done. "
    "Look at the page for what it is waiting for."
)
_ids = itertools.count(1)


@pytest.fixture(scope="module")
async def pool(
    anyio_backend: str, chromium: dict[str, Any], gate: Gate, folders: dict[str, Path]
) -> AsyncIterator[BrowserPool]:
    config = BrowserConfig(
        headless=True,
        url_policy=TEST_POLICY,
        downloads_dir=folders["downloads"],
        action_timeout=BUDGET,
        **chromium,
    )
    pool = BrowserPool(config, confirm=gate)
    yield pool
    await pool.close()


async def run(browser: Driver, member: str, **input: Any) -> tuple[Result, Outcome | None]:
    """One call as the app runs it: the tool_result block and the outcome the member reported."""
    use = BetaToolUseBlock(
        type="tool_use",
        id=f"toolu_act{next(_ids)}",
        name=member,
        input=input,
        toolset_name="browser",
    )
    ran = await browser.toolset.run(use, progress=None)
    json.dumps(ran.block)
    return Result.of(ran.block), ran.outcome


async def open_page(browser: Driver, pages: PageServer) -> Result:
    await browser.open(pages.url("actionable.html"))
    return await browser("read_page", filter="interactive")


def ref(controls: Result, name: str) -> dict[str, Any]:
    return {"target": {"type": "ref", "ref": controls.ref(name)}}


async def clicks(browser: Driver, button: str) -> int:
    return int(await browser.eval(f"window.clicks[{json.dumps(button)}] || 0"))


async def test_a_button_under_a_transparent_overlay_is_refused_and_the_overlay_named(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_page(browser, pages)
    started = time.monotonic()
    result, outcome = await run(browser, "left_click", **ref(controls, '"Buy"'))
    assert result.is_error and result.text == COVERED
    assert outcome == Outcome(kind="refused", note=COVERED)
    # It waited for the cover to go, all the budget long, and nothing got the click.
    assert time.monotonic() - started >= BUDGET - 0.1
    assert await clicks(browser, "buy") == 0
    assert await browser.eval("window.coverClicks") == 0


async def test_a_cover_that_lifts_is_waited_for_then_the_button_clicked(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_page(browser, pages)
    await browser.eval("lift(700)")
    started = time.monotonic()
    result, outcome = await run(browser, "left_click", **ref(controls, '"Pay"'))
    assert not result.is_error, result.text
    assert time.monotonic() - started >= 0.6
    assert await clicks(browser, "veiled") == 1
    assert outcome is None or outcome.kind != "refused"


async def test_a_disabled_button_is_refused_as_not_enabled(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_page(browser, pages)
    result, outcome = await run(browser, "left_click", **ref(controls, '"Send"'))
    assert result.is_error and result.text == NOT_ENABLED
    assert outcome == Outcome(kind="refused", note=NOT_ENABLED)
    assert "not enabled" in outcome.effect_text()
    assert await clicks(browser, "send") == 0


async def test_an_element_that_comes_back_late_is_waited_for_then_clicked(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_page(browser, pages)
    await browser.eval("hideFor(800)")
    result, _outcome = await run(browser, "left_click", **ref(controls, '"Continue"'))
    assert not result.is_error, result.text
    assert await clicks(browser, "later") == 1


async def test_a_moving_element_is_clicked_once_it_stops(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_page(browser, pages)
    await browser.eval("slide()")
    result, _outcome = await run(browser, "left_click", **ref(controls, '"Catch me"'))
    assert not result.is_error, result.text
    assert await clicks(browser, "slider") == 1
    # It was clicked where it came to rest, not on the way there.
    assert (
        await browser.eval("document.getElementById('slider').getBoundingClientRect().left") == 400
    )


async def test_an_element_that_never_stops_moving_is_refused_as_still_moving(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_page(browser, pages)
    result, outcome = await run(browser, "left_click", **ref(controls, '"Wobbly"'))
    phrase = errors.NOT_ACTIONABLE["moving"]
    assert result.is_error and result.text == phrase
    assert outcome == Outcome(kind="refused", note=phrase)
    assert await clicks(browser, "wobble") == 0


async def test_a_detached_element_is_refused_at_once(browser: Driver, pages: PageServer) -> None:
    controls = await open_page(browser, pages)
    await browser.eval("document.getElementById('old').remove()")
    started = time.monotonic()
    result, outcome = await run(browser, "left_click", **ref(controls, '"Old offer"'))
    assert result.is_error and result.text == errors.DETACHED
    assert outcome == Outcome(kind="refused", note=errors.DETACHED)
    assert time.monotonic() - started < BUDGET  # a removed element never comes back


async def test_an_element_removed_while_waited_for_is_refused_as_detached(
    browser: Driver, pages: PageServer
) -> None:
    """Hidden when the call starts (so not in the aria tree read before the action), then
    removed: the element held since the call started is known to be gone, not waited for."""
    controls = await open_page(browser, pages)
    await browser.eval(
        "const old = document.getElementById('old'); old.style.display = 'none';"
        " setTimeout(() => old.remove(), 500)"
    )
    started = time.monotonic()
    result, outcome = await run(browser, "left_click", **ref(controls, '"Old offer"'))
    assert result.is_error and result.text == errors.DETACHED
    assert outcome == Outcome(kind="refused", note=errors.DETACHED)
    assert time.monotonic() - started < BUDGET


async def test_a_hidden_element_is_refused_as_hidden(browser: Driver, pages: PageServer) -> None:
    controls = await open_page(browser, pages)
    await browser.eval("document.getElementById('folded').style.display = 'none'")
    result, outcome = await run(browser, "hover", **ref(controls, '"Details"'))
    phrase = errors.NOT_ACTIONABLE["hidden"]
    assert result.is_error and result.text == phrase
    assert outcome == Outcome(kind="refused", note=phrase)


async def test_form_input_into_a_read_only_field_is_refused_as_not_editable(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_page(browser, pages)
    result, outcome = await run(browser, "form_input", **ref(controls, '"Code"'), value="AB")
    phrase = errors.NOT_ACTIONABLE["readonly"]
    assert result.is_error and result.text == phrase
    assert outcome == Outcome(kind="refused", note=phrase)
    assert await browser.eval("document.getElementById('code').value") == "X1"


async def test_a_click_at_a_point_is_judged_and_lands_on_what_is_really_there(
    browser: Driver, pages: PageServer
) -> None:
    """The Buy button's point, under the transparent cookie layer: the gate judges the layer,
    and the click goes to the layer, not the button beneath."""
    await open_page(browser, pages)
    point = {"type": "coordinate", "x": 120, "y": 58}
    use = BetaToolUseBlock(
        type="tool_use",
        id=f"toolu_act{next(_ids)}",
        name="left_click",
        input={"target": point},
        toolset_name="browser",
    )
    judged = await browser.toolset.judge(browser.toolset.context_of(use))
    assert judged.summary == "Click 'Cookies' (dialog) on 127.0.0.1"
    result = Result.of((await browser.toolset.run(use, progress=None)).block)
    assert not result.is_error, result.text
    assert await browser.eval("window.coverClicks") == 1
    assert await clicks(browser, "buy") == 0
