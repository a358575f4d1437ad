"""The `tabs` tool reads back what a click, a fill, a switch, an open or a close did, in the
Node JXA stand-in (a simulation): fields whose scripts keep or rewrite the value, a button whose
handler does nothing, effects at once, late and by navigating, and a browser that ignores a call.
Each test asserts the exact `Effect:` lines the model reads."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.jxa.desktop_world import desktop, safari
from tests.support.mac_standin import NINE, Tabs
from tools.base import ToolResult

FORM = "https://shop.example.com/form"


def form_world(**elements: dict[str, Any]) -> dict[str, Any]:
    """Safari showing one page whose elements are `elements` (by id)."""
    page = {
        "text": "Checkout",
        "elements": [
            {"selector": f"#{name}", "tag": record.pop("tag", "input"), "type": "text", **record}
            for name, record in elements.items()
        ],
    }
    return desktop(apps={"Safari": safari([[("Checkout", FORM)]], pages={FORM: page})})


def effect(result: ToolResult) -> str:
    assert not result.is_error, result.text
    assert result.outcome is not None
    section = result.text[result.text.index("\nEffect:") + 1 :]
    assert section == result.outcome.effect_text()
    return section


def test_a_fill_reads_the_field_back(tabs: Tabs) -> None:
    tabs.world.write(form_world(name={"value": ""}))
    result = tabs.call(action="fill", selector="#name", text="Ana")
    assert effect(result) == 'Effect:\n~ field "#name": "" → "Ana"'


def test_a_field_whose_script_strips_digits_differs(tabs: Tabs) -> None:
    tabs.world.write(form_world(name={"value": "", "strip": "[0-9]"}))
    result = tabs.call(action="fill", selector="#name", text="AB12")
    assert effect(result) == (
        'Effect:\n~ field "#name": "" → "AB"\nThe field holds "AB", not the text typed.'
    )
    assert result.outcome is not None and result.outcome.kind == "differs"


def test_a_read_only_field_differs(tabs: Tabs) -> None:
    tabs.world.write(form_world(name={"value": "fixed", "readonly": True}))
    result = tabs.call(action="fill", selector="#name", text="Ana")
    assert effect(result) == (
        'Effect: none: the field did not change.\nThe field holds "fixed", not the text typed.'
    )


def test_a_button_whose_handler_does_nothing_has_no_effect(
    tabs: Tabs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tools.mac.tabs.inputs.CLICK_SETTLE_MS", 300)
    tabs.world.write(form_world(go={"tag": "button"}))
    result = tabs.call(action="click", selector="#go")
    assert effect(result) == (
        "Effect: none: the page's address and text did not change within 0.3 s."
    )
    assert result.outcome is not None and result.outcome.kind == "no_effect"


def test_a_click_that_shows_an_inline_error(tabs: Tabs) -> None:
    tabs.world.write(form_world(go={"tag": "button", "show": "Email is invalid"}))
    result = tabs.call(action="click", selector="#go")
    assert effect(result) == 'Effect:\n~ page "Checkout": its text changed'


def test_an_effect_600_ms_late_is_still_caught(tabs: Tabs) -> None:
    late = {"text": "Saved ✓", "after_ms": 600}
    tabs.world.write(form_world(go={"tag": "button", "show_late": late}))
    result = tabs.call(action="click", selector="#go")
    assert effect(result) == 'Effect:\n~ page "Checkout": its text changed'


def test_a_click_that_navigates(tabs: Tabs) -> None:
    tabs.world.write(form_world(go={"tag": "a", "navigate": "https://shop.example.com/done"}))
    result = tabs.call(action="click", selector="#go")
    assert effect(result) == "Effect:\n→ navigated to https://shop.example.com/done"


def test_a_browser_that_ignores_a_new_tab_is_not_confirmed(tabs: Tabs) -> None:
    world = desktop(apps={"Safari": safari(NINE)})
    world["ignore"] = [{"app": "Safari", "command": "make"}]
    tabs.world.write(world)
    result = tabs.call(action="open_url", url="https://example.com/")
    assert effect(result) == (
        "Effect: unknown: nothing could be read back from Safari.\n"
        "Not confirmed: no new tab appeared in the front window."
    )


def test_a_browser_that_ignores_close_differs(tabs: Tabs) -> None:
    world = desktop(apps={"Safari": safari(NINE)})
    world["ignore"] = [{"app": "Safari", "command": "close"}]
    tabs.world.write(world)
    result = tabs.call(action="close_tab", indices=[2])
    assert effect(result) == (
        'Effect:\n- tab "r/python" (https://www.reddit.com/r/python)\n'
        "Differs from what was asked: 9 tabs are left, not 8."
    )
