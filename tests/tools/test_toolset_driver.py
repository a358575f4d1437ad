"""The confirm context the drivers forge (`ToolsetDriver.context_of`) against the one the SDK builds.

The app judges a toolset call before the SDK runs it, on a confirm context built ahead with
pydantic's raw constructor (nothing validated, as the SDK builds its own). That holds only while
the SDK's context has the fields the drivers read, of the types they read, and refuses an input
that does not parse before it asks anyone. These tests run a call through the SDK's own
`tool_result` with a `confirm` that keeps what it was given, and compare: an SDK upgrade that
changes what `confirm` receives fails here, not in front of a person.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.tools.browser import BetaAsyncAbstractBrowserToolset20260801, BetaBrowserState
from anthropic.tools.computer import BetaAsyncAbstractComputerToolset20260801
from anthropic.types.beta import BetaToolUseBlock

from tools.browser.toolset import BrowserToolset
from tools.screen.driver import ScreenComputer
from tools.toolset_driver import ToolsetDriver

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Kept:
    """A confirm callable that keeps each context it is given and declines the call (what runs
    after `confirm` is not what these tests are about)."""

    def __init__(self) -> None:
        self.contexts: list[Any] = []

    async def __call__(self, context: Any) -> bool:
        self.contexts.append(context)
        return False


class Browser(ToolsetDriver, BetaAsyncAbstractBrowserToolset20260801):
    """The browser family's SDK class with the app driver's context types and no browser."""

    tool_use_union = BrowserToolset.tool_use_union
    confirm_context = BrowserToolset.confirm_context

    async def _browser_state(self, context: Any) -> BetaBrowserState:
        return BetaBrowserState(tabs=[])

    async def execute(self, context: Any, name: Any, input: Any) -> Any:
        raise AssertionError("never run: confirm declines")


class Computer(ToolsetDriver, BetaAsyncAbstractComputerToolset20260801):
    """The computer family's SDK class with the app driver's context types and no screen."""

    tool_use_union = ScreenComputer.tool_use_union
    confirm_context = ScreenComputer.confirm_context

    async def execute(self, context: Any, name: Any, input: Any) -> Any:
        raise AssertionError("never run: confirm declines")


def use(toolset: str, name: str, input: dict[str, Any]) -> BetaToolUseBlock:
    return BetaToolUseBlock(
        type="tool_use", id="toolu_1", name=name, input=input, toolset_name=toolset
    )


CALLS = [
    (Browser, "browser", "left_click", {"target": {"type": "ref", "ref": "e3"}}),
    (Browser, "browser", "navigate", {"url": "https://example.com/", "tab_id": "tab_2"}),
    (Browser, "browser", "key", {"text": "ctrl+a Return", "repeat": 2}),
    (Computer, "computer", "left_click", {"coordinate": [10, 20]}),
    (Computer, "computer", "type", {"text": "hello"}),
]


@pytest.mark.parametrize(("family", "toolset", "member", "input"), CALLS)
async def test_the_forged_context_is_the_one_the_sdk_gives_confirm(
    family: type[Browser | Computer], toolset: str, member: str, input: dict[str, Any]
) -> None:
    kept = Kept()
    driver = family(confirm=kept)
    call = use(toolset, member, input)
    forged = driver.context_of(call)
    await driver.tool_result(call)
    [given] = kept.contexts
    # Same class, so every field the drivers read exists with the SDK's meaning.
    assert type(forged) is type(given) is family.confirm_context
    assert forged.member == given.member == member
    assert type(forged.input) is type(given.input)
    assert forged.input.to_dict() == given.input.to_dict()
    assert forged.tool_use is not None and given.tool_use is not None
    assert forged.tool_use.id == given.tool_use.id == "toolu_1"


def test_the_contexts_have_the_fields_the_drivers_read() -> None:
    # The browser's judge reads the tab from the input and falls back on `tab_url`; both
    # drivers read `member`, `input` and `tool_use`. A new field here is one we do not set.
    assert set(BrowserToolset.confirm_context.model_fields) == {
        "tool_use",
        "member",
        "input",
        "tab_id",
        "tab_url",
    }
    assert set(ScreenComputer.confirm_context.model_fields) == {"tool_use", "member", "input"}


@pytest.mark.parametrize(
    ("family", "toolset", "member", "input"),
    [
        (Browser, "browser", "left_click", {"target": {"type": "nowhere"}}),
        (Computer, "computer", "left_click", {"coordinate": "here"}),
    ],
)
async def test_an_input_that_does_not_parse_is_refused_before_confirm(
    family: type[Browser | Computer], toolset: str, member: str, input: dict[str, Any]
) -> None:
    kept = Kept()
    driver = family(confirm=kept)
    call = use(toolset, member, input)
    assert driver.context_of(call) is None  # nothing to judge: the app shows no judgement
    result = await driver.tool_result(call)
    assert result.get("is_error") and kept.contexts == []
