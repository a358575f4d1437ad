"""What the screen's actions say they did on a real Mac, read back through the Accessibility API.

Marked `macos` (skipped elsewhere); the terminal running them needs the Accessibility
permission (they skip, saying where to grant it, without it). The window is a small AppKit app
started here (pyobjc): a disabled button "Submit", a button "Nothing" with no action, a check
box "Remember me", a text field "Name" and a password field holding `SECRET`. The same checks
as the AT-SPI tests (`test_window_effects.py`): the exact `Effect:` lines.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tools.screen.a11y.accessible import App, Node
from tools.screen.a11y.effect import Watch, not_enabled
from tools.screen.geometry import Point

if TYPE_CHECKING:
    from tools.screen.a11y.ax.reader import AxAccessibility

pytestmark = [
    pytest.mark.macos,
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS"),
]

TITLE = "Deskhand effects"
SECRET = "hunter2-mac-77"
FORM_APP = textwrap.dedent(
    """
    import sys
    from AppKit import (NSApplication, NSBackingStoreBuffered, NSButton, NSMakeRect,
                        NSSecureTextField, NSSwitchButton, NSTextField, NSWindow)

    app = NSApplication.sharedApplication()
    app.setActivationPolicy_(0)
    window = NSWindow.alloc().initWithContentRect_styleMask_backing_defer_(
        NSMakeRect(200, 200, 420, 260), 15, NSBackingStoreBuffered, False)
    window.setTitle_(sys.argv[1])
    view = window.contentView()

    def button(title, x):
        made = NSButton.alloc().initWithFrame_(NSMakeRect(x, 210, 100, 30))
        made.setTitle_(title)
        view.addSubview_(made)
        return made

    button("Submit", 20).setEnabled_(False)
    button("Nothing", 130)
    box = NSButton.alloc().initWithFrame_(NSMakeRect(20, 170, 200, 24))
    box.setButtonType_(NSSwitchButton)
    box.setTitle_("Remember me")
    view.addSubview_(box)
    name = NSTextField.alloc().initWithFrame_(NSMakeRect(20, 130, 240, 24))
    name.setAccessibilityLabel_("Name")
    view.addSubview_(name)
    secret = NSSecureTextField.alloc().initWithFrame_(NSMakeRect(20, 90, 240, 24))
    secret.setAccessibilityLabel_("Password")
    secret.setStringValue_(sys.argv[2])
    view.addSubview_(secret)
    window.makeKeyAndOrderFront_(None)
    app.activateIgnoringOtherApps_(True)
    app.run()
    """
)


def trusted() -> None:
    from tools.screen.a11y.ax import reader as ax

    status = ax.status()
    if not status.available:
        pytest.skip(f"{status.reason} {status.fix}")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def accessibility() -> AsyncIterator[AxAccessibility]:
    trusted()
    from tools.screen.a11y.ax.reader import AxAccessibility

    made = AxAccessibility()
    yield made
    await made.close()


@pytest.fixture
def form(tmp_path: Path) -> Iterator[None]:
    script = tmp_path / "effects_app.py"
    script.write_text(FORM_APP)
    process = subprocess.Popen([sys.executable, str(script), TITLE, SECRET])
    yield
    process.terminate()
    process.wait(10)


async def _window(accessibility: AxAccessibility) -> tuple[App, Node, list[Node]]:
    """The form's app, its window and the window's elements."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for app in await accessibility.apps():
            for frame in await accessibility.frames(app):
                if frame.name == TITLE:
                    nodes, _ = await accessibility.tree([frame.ref])
                    return app, frame, nodes
        await asyncio.sleep(0.2)
    raise AssertionError(f"no window titled {TITLE!r} appeared")


def _named(nodes: list[Node], name: str) -> Node:
    return next(n for n in nodes if n.name == name)


def _centre(node: Node) -> Point:
    assert node.bounds is not None
    return Point(node.bounds.x + node.bounds.width // 2, node.bounds.y + node.bounds.height // 2)


async def test_checking_the_box_says_it_is_checked(
    accessibility: AxAccessibility, form: None
) -> None:
    app, frame, nodes = await _window(accessibility)
    box = _named(nodes, "Remember me")
    watch = await Watch(accessibility, app, frame, target=box).start()
    assert await accessibility.press(box.ref)
    outcome = await watch.outcome()
    assert outcome.effect_text() == 'Effect:\n~ checkbox "Remember me": checked'


async def test_a_field_set_says_its_value_before_and_after(
    accessibility: AxAccessibility, form: None
) -> None:
    app, frame, nodes = await _window(accessibility)
    name = _named(nodes, "Name")
    watch = await Watch(accessibility, app, frame, target=name).start()
    assert await accessibility.set_text(name.ref, "AB")
    outcome = await watch.outcome()
    assert outcome.effect_text() == 'Effect:\n~ text "Name": "" → "AB"'


async def test_a_press_that_changes_nothing_says_so(
    accessibility: AxAccessibility, form: None
) -> None:
    app, frame, nodes = await _window(accessibility)
    nothing = _named(nodes, "Nothing")
    watch = await Watch(accessibility, app, frame, target=nothing).start()
    assert await accessibility.press(nothing.ref)
    outcome = await watch.outcome()
    assert outcome.kind == "no_effect"
    assert outcome.effect_text() == "Effect: none: nothing in the window changed."


async def test_the_inspector_watches_the_element_under_a_point_and_a_disabled_one_is_refused(
    accessibility: AxAccessibility, form: None
) -> None:
    from tools.screen.a11y.ax.watching import AxWatchingInspector

    _app, _frame, nodes = await _window(accessibility)
    inspector = AxWatchingInspector(accessibility, own_pids={1})
    watch = await inspector.watch_at(_centre(_named(nodes, "Submit")))
    assert watch is not None and watch.target is not None
    assert (watch.target.role, watch.target.enabled) == ("push button", False)
    assert watch.frame.name == TITLE
    assert not_enabled(watch.target).note == (
        'Refused: button "Submit" is not enabled, so it was not clicked.'
    )
    # The password field is watched like any element, its value never read.
    password = _named(nodes, "Password")
    assert password.secure and password.value is None
    assert watch.before is not None
    assert all(SECRET not in (seen.value or "") for seen in watch.before.elements.values())


async def test_the_computer_toolset_reports_the_click_and_refuses_the_disabled_button(
    accessibility: AxAccessibility, form: None
) -> None:
    from anthropic.types.beta import BetaToolUseBlock

    from tools.screen import ScreenComputer
    from tools.screen.a11y.ax.watching import AxWatchingInspector

    _app, _frame, nodes = await _window(accessibility)

    async def allow(_context: object) -> bool:
        return True

    toolset = ScreenComputer(
        confirm=allow, inspector=AxWatchingInspector(accessibility, own_pids={1})
    )
    try:
        frame = await toolset._frame()  # the screenshot geometry the model's points are in

        async def click(node: Node) -> dict[str, object]:
            point = frame.to_image(_centre(node))
            use = BetaToolUseBlock(
                type="tool_use",
                id=f"toolu_{node.name.replace(' ', '_')}",
                name="left_click",
                input={"coordinate": [point.x, point.y]},
                toolset_name="computer",
            )
            return dict(await toolset.tool_result(use))

        refused = await click(_named(nodes, "Submit"))
        assert refused.get("is_error") is True
        assert 'Refused: button "Submit" is not enabled' in str(refused["content"])
        checked = await click(_named(nodes, "Remember me"))
        assert not checked.get("is_error")
        texts = [part["text"] for part in checked["content"]]  # type: ignore[attr-defined]
        assert texts[-1] == 'Effect:\n~ checkbox "Remember me": checked'
    finally:
        await toolset.close()


async def test_the_box_is_kept_by_meaning_and_found_again(
    accessibility: AxAccessibility, form: None
) -> None:
    # A click's target kept by meaning and found again, as the AT-SPI tests do it
    # (tests/tools/screen/test_refind.py), kept small.
    from tools.meaning import Found
    from tools.screen import ScreenComputer
    from tools.screen.a11y.ax.watching import AxWatchingInspector
    from tools.screen.a11y.find import subject
    from tools.screen.refind import meaning_of

    async def allow(_context: object) -> bool:
        return True

    _app, _frame, nodes = await _window(accessibility)
    inspector = AxWatchingInspector(accessibility, own_pids={1})
    toolset = ScreenComputer(confirm=allow, inspector=inspector)
    try:
        frame = await toolset._frame()
        box = _named(nodes, "Remember me")
        shown = frame.to_image(_centre(box))
        element = await inspector.element_at(_centre(box))
        meaning = meaning_of("left_click", {"coordinate": [shown.x, shown.y]}, element)
        assert meaning is not None
        assert (meaning.role, meaning.name) == (box.role, "Remember me") and meaning.app
        found = await toolset.find_again(meaning, within=5)
        assert found == Found(input={"coordinate": [shown.x, shown.y]}, count=1)
        renamed = meaning.model_copy(update={"name": "Forget me"})
        missing = await toolset.find_again(renamed, within=0.2)
        assert missing == Found(why=f"No {subject(renamed)} in {meaning.window or meaning.app}.")
    finally:
        await toolset.close()
