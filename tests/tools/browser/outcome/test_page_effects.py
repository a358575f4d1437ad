"""What the model reads after an acting member, on pages built to fail silently (real Chromium).

Each test runs the member the way the app does (`toolset.run`) and checks the exact `Effect:`
section in the result the model reads, and the outcome the member reports beside it.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import anyio
import pytest
from anthropic.types.beta import BetaToolUseBlock

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import Driver, Result
from tools.outcome import Outcome

pytestmark = pytest.mark.anyio

_ids = itertools.count(1)


async def act(browser: Driver, member: str, **input: Any) -> tuple[Result, Outcome | None]:
    """One call as the app runs it: the tool_result block and the reported outcome."""
    use = BetaToolUseBlock(
        type="tool_use",
        id=f"toolu_fx{next(_ids)}",
        name=member,
        input=input,
        toolset_name="browser",
    )
    run = await browser.toolset.run(use, progress=None)
    json.dumps(run.block)  # sendable as it is
    return Result.of(run.block), run.outcome


def effect_of(result: Result) -> str:
    """The `Effect:` section, which sits right before the tabs' state."""
    (section,) = [text for text in result.texts if text.startswith("Effect:")]
    content = result.block["content"]
    assert content[-1]["type"] == "browser_state"
    assert content[-2] == {"type": "text", "text": section}
    return section


async def open_effects(browser: Driver, pages: PageServer) -> Result:
    await browser.open(pages.url("effects.html"))
    return await browser("read_page", filter="interactive")


def click(ref: str) -> dict[str, Any]:
    return {"target": {"type": "ref", "ref": ref}}


async def test_a_read_only_field_holds_its_text_not_the_typed_one(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_effects(browser, pages)
    await act(browser, "left_click", **click(controls.ref('"Code"')))
    result, outcome = await act(browser, "type", text="AB")
    assert effect_of(result) == (
        'Effect: none: nothing on the page changed.\nThe field holds "X1", not the text typed.'
    )
    assert outcome is not None and outcome.kind == "differs"


async def test_a_field_whose_script_strips_digits(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    await act(browser, "left_click", **click(controls.ref('"Letters"')))
    result, outcome = await act(browser, "type", text="AB12")
    assert effect_of(result) == (
        'Effect:\n~ textbox "Letters": "" → "AB"\nThe field holds "AB", not the text typed.'
    )
    assert outcome == Outcome(
        kind="differs",
        changes=['~ textbox "Letters": "" → "AB"'],
        note='The field holds "AB", not the text typed.',
    )


async def test_typed_text_the_field_holds_is_done(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    result, outcome = await act(
        browser, "form_input", **click(controls.ref('"Name"')), value="Ann Lee"
    )
    assert effect_of(result) == 'Effect:\n~ textbox "Name": "" → "Ann Lee"'
    assert outcome is not None and outcome.kind == "done"


async def test_a_button_whose_handler_does_nothing(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    result, outcome = await act(browser, "left_click", **click(controls.ref("Do nothing")))
    assert result.texts[0] == "Clicked."
    assert effect_of(result) == "Effect: none: nothing on the page changed."
    assert outcome == Outcome(kind="no_effect")


async def test_a_submit_that_shows_an_inline_error_instead_of_leaving(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_effects(browser, pages)
    await act(browser, "form_input", **click(controls.ref('"Email"')), value="ann")
    result, outcome = await act(browser, "left_click", **click(controls.ref("Create account")))
    assert effect_of(result) == 'Effect:\n+ alert "Email is invalid"'
    assert result.active["url"] == pages.url("effects.html")
    assert outcome is not None and outcome.kind == "done"


async def test_an_effect_600_ms_late_is_caught(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    result, _outcome = await act(browser, "left_click", **click(controls.ref('"Save"')))
    assert effect_of(result) == 'Effect:\n~ status "" → "Saved ✓"'


async def test_a_link_that_opens_a_new_tab(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    result, outcome = await act(browser, "left_click", **click(controls.ref("Open help")))
    assert effect_of(result) == 'Effect:\n→ new tab tab_2: "Second page"'
    assert outcome is not None and outcome.kind == "done"


async def test_a_checkbox_ticked(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    result, _outcome = await act(browser, "left_click", **click(controls.ref("Remember me")))
    assert effect_of(result) == 'Effect:\n~ checkbox "Remember me": checked'


async def test_a_password_field_is_never_read_out(browser: Driver, pages: PageServer) -> None:
    """The page fills the password field as the user name is typed: the line says it changed,
    never what it holds."""
    controls = await open_effects(browser, pages)
    await act(browser, "left_click", **click(controls.ref('"User"')))
    result, outcome = await act(browser, "type", text="ann")
    assert effect_of(result) == (
        'Effect:\n~ textbox "User": "" → "ann"\n~ textbox "Password": (hidden)'
    )
    assert outcome is not None and "hunter2" not in outcome.model_dump_json()
    assert "hunter2" not in json.dumps(result.block)


async def test_typing_into_a_password_field_is_refused_and_nothing_is_reported(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_effects(browser, pages)
    await act(browser, "left_click", **click(controls.ref('"Password"')))
    result, outcome = await act(browser, "type", text="hunter2")
    assert result.is_error and outcome is None
    assert await browser.eval("document.getElementById('password').value") == ""


async def test_navigating_says_where_it_went(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("effects.html"))
    result, outcome = await act(browser, "navigate", url=pages.url("second.html"))
    assert effect_of(result) == f"Effect:\n→ navigated to {pages.url('second.html')}"
    assert outcome is not None and outcome.kind == "done"


async def test_an_effect_past_the_bound_is_not_waited_for(
    browser: Driver, pages: PageServer
) -> None:
    controls = await open_effects(browser, pages)
    started = time.monotonic()
    result, outcome = await act(browser, "left_click", **click(controls.ref('"Publish"')))
    assert time.monotonic() - started < 1.4  # its timer is due after the bound: not waited for
    assert effect_of(result) == "Effect: none: nothing on the page changed."
    assert outcome == Outcome(kind="no_effect")


async def test_a_native_dialog_and_a_download(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    result, _outcome = await act(browser, "left_click", **click(controls.ref('"Delete"')))
    assert effect_of(result) == 'Effect:\n→ dialog "Delete everything?"'
    result, _outcome = await act(browser, "left_click", **click(controls.ref('"Report"')))
    assert effect_of(result) == "Effect:\n→ download report.pdf"


async def test_a_page_too_big_to_compare_says_so(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    await browser.eval(
        """(() => {
            const box = document.createElement('div');
            for (let i = 0; i < 6000; i++) box.appendChild(document.createElement('span'));
            document.body.appendChild(box);
        })()"""
    )
    result, outcome = await act(browser, "left_click", **click(controls.ref("Remember me")))
    assert effect_of(result) == (
        "Effect: unknown.\nNot confirmed: the page is too large to compare before and after."
    )
    assert outcome is not None and outcome.kind == "unconfirmed"


async def test_a_select_says_which_option_it_holds(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("form.html"))
    controls = await browser("read_page", filter="interactive")
    result, outcome = await act(
        browser, "form_input", **click(controls.ref('combobox "Country"')), value="France"
    )
    assert effect_of(result) == 'Effect:\n~ combobox "Country": "Choose…" → "France"'
    assert outcome is not None and outcome.kind == "done"


async def test_a_change_between_two_calls_is_neither_calls_effect(
    browser: Driver, pages: PageServer
) -> None:
    """The page changes on its own after the first call: the second call's look before it
    reads the page again rather than the first call's tree."""
    controls = await open_effects(browser, pages)
    await act(browser, "left_click", **click(controls.ref('"Publish"')))  # "Published" in 2.5 s
    await anyio.sleep(2.8)
    assert await browser.eval("document.getElementById('status').textContent") == "Published"
    result, _outcome = await act(browser, "left_click", **click(controls.ref("Remember me")))
    assert effect_of(result) == 'Effect:\n~ checkbox "Remember me": checked'


async def test_a_menu_that_only_css_opens_on_hover(browser: Driver, pages: PageServer) -> None:
    controls = await open_effects(browser, pages)
    result, outcome = await act(browser, "hover", **click(controls.ref("Account menu")))
    link = (await browser("read_page", filter="interactive")).ref('link "Sign out"')
    # The new link's ref is the one a read gives: the model can click it without reading.
    assert effect_of(result) == f'Effect:\n+ list "Sign out"\n+ link "Sign out" [{link}]'
    assert outcome is not None and outcome.kind == "done"


async def in_frame(browser: Driver, pages: PageServer, frame: int, name: str) -> str:
    """The ref of `name` in the `frame`th frame of effects-framed.html (0: the same site's,
    1: another site's, in a process of its own)."""
    await browser.open(pages.url("effects-framed.html"))
    controls = await browser("read_page", filter="interactive")
    lines = [line for line in controls.text.splitlines() if name in line]
    assert len(lines) == 2, controls.text
    return Result(block={}, texts=[lines[frame]]).ref(name)


FRAMES = pytest.mark.parametrize("frame", [0, 1], ids=["same site", "other site"])


@FRAMES
async def test_an_effect_a_moment_late_inside_a_frame_is_caught(
    browser: Driver, pages: PageServer, frame: int
) -> None:
    """The frame's own timer, 300 ms after the click: set in the frame's document, where the
    main document's watcher does not see it."""
    save = await in_frame(browser, pages, frame, '"Save"')
    result, outcome = await act(browser, "left_click", **click(save))
    assert effect_of(result) == 'Effect:\n~ status "" → "Saved"'
    assert outcome is not None and outcome.kind == "done"


@FRAMES
async def test_a_link_followed_inside_a_frame_shows_the_frames_next_page(
    browser: Driver, pages: PageServer, frame: int
) -> None:
    """The frame's next page answers 400 ms after the click: the page is read once it is in
    (Playwright numbers the new document's elements anew, so its first one pairs with the old
    first one)."""
    link = await in_frame(browser, pages, frame, '"Next page"')
    result, outcome = await act(browser, "left_click", **click(link))
    assert effect_of(result) == (
        'Effect:\n~ paragraph "Save" → "Here at last."\n- status\n- link "Next page"'
    )
    assert result.active["url"] == pages.url("effects-framed.html")
    assert outcome is not None and outcome.kind == "done"
