"""What the screen's actions say they did, read back from a real Qt window through AT-SPI.

The form of `tests/support/effect_target.py` (a disabled button, a button that does nothing, a
check box, text fields, one limited to two characters, a password field) runs on a real X
server with a real accessibility bus. Each test acts the way the model does, through the
`screen` tool's pipeline or the computer toolset, and checks the exact text the model reads,
with its `Effect:` section, against what the form itself reports happened.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest

from tests.support.atspi import SessionBus, atspi_missing
from tests.support.desk import wait_accessible
from tests.support.effect_target import NOTES, SECRET
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing
from tests.tools.screen.conftest import Elements, Screen
from tools.screen.a11y.atspi.watching import AtspiWatchingInspector, RefreshingAccessibility
from tools.screen.geometry import Point, Rect
from tools.screen.worker import ScreenWorker

pytestmark = pytest.mark.anyio

FORM_RECT = (40, 40, 420, 380)
APP = "effect_target.py"  # the name Qt gives the app on the accessibility bus


@dataclass
class Form:
    display: str
    bus: SessionBus
    app: TargetApp
    widgets: dict[str, Rect]

    def centre(self, name: str) -> Point:
        rect = self.widgets[name]
        return Point(rect.x + rect.width // 2, rect.y + rect.height // 2)


@pytest.fixture(scope="module")
def session() -> Iterator[tuple[str, SessionBus]]:
    missing = xvfb_missing() or atspi_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(1280, 800) as server, SessionBus(server.display) as bus:
        yield server.display, bus


@pytest.fixture
def form(session: tuple[str, SessionBus]) -> Iterator[Form]:
    """A fresh form for every test: what one test changed is not the next one's start."""
    display, bus = session
    app = TargetApp(display, FORM_RECT, module="tests.support.effect_target", env=bus.app_env())
    app.start()
    try:
        deadline = time.monotonic() + 20
        while not app.of("ready"):
            assert time.monotonic() < deadline, "the form never reported ready"
            time.sleep(0.02)
        wait_accessible(bus, {app.pid or 0})
        widgets = {name: Rect(*rect) for name, rect in app.of("ready")[0]["widgets"].items()}
        yield Form(display, bus, app, widgets)
    finally:
        app.close()


@pytest.fixture
async def parts(
    anyio_backend: str, form: Form
) -> AsyncIterator[tuple[RefreshingAccessibility, ScreenWorker]]:
    from tools.screen.backends.x11.backend import X11Backend

    # As the app opens it: after an action, its elements are read again in one batch.
    accessibility = RefreshingAccessibility(session=form.bus.address)
    worker = ScreenWorker(lambda: X11Backend(form.display))
    yield accessibility, worker
    await worker.close()
    await accessibility.close()


@pytest.fixture
def elements(parts: tuple[RefreshingAccessibility, ScreenWorker]) -> Elements:
    return Elements(*parts)


@pytest.fixture
async def computer(
    form: Form, parts: tuple[RefreshingAccessibility, ScreenWorker]
) -> AsyncIterator[Screen]:
    made = Screen(form.display, inspector=AtspiWatchingInspector(*parts, own_pids={1}))
    yield made
    await made.toolset.close()


async def ids(elements: Elements) -> dict[str, str]:
    """The snapshot's id of each element, by name."""
    seen = await elements.ok("see", title="Effects")
    found = {}
    for line in seen.text.splitlines()[1:]:
        element_id, rest = line.split(" ", 1)
        if '"' in rest:
            found[rest.split('"')[1]] = element_id
    return found


# --- the `screen` tool's element actions ---------------------------------------------------------


async def test_checking_the_box_says_it_is_checked(form: Form, elements: Elements) -> None:
    found = await ids(elements)
    result = await elements.ok("click", id=found["Remember me"])
    assert result.text == (
        f"Pressed {found['Remember me']} 'Remember me' (checkbox, {APP}).\n"
        "Effect:\n"
        '~ checkbox "Remember me": checked'
    )
    assert form.app.of("checked")[-1]["checked"] is True


async def test_a_field_set_says_its_value_before_and_after(form: Form, elements: Elements) -> None:
    found = await ids(elements)
    result = await elements.ok("set_value", id=found["Name"], value="AB")
    assert result.text == (
        f"Set {found['Name']} 'Name' (text field, {APP}) to 'AB'.\n"
        "Effect:\n"
        '~ text "Name": "" → "AB"'
    )
    assert form.app.of("text")[-1] == {**form.app.of("text")[-1], "name": "Name", "text": "AB"}


async def test_a_field_that_keeps_less_says_what_it_holds(form: Form, elements: Elements) -> None:
    found = await ids(elements)
    result = await elements.ok("set_value", id=found["Code"], value="ABCD")
    assert result.text == (
        f"Put 'ABCD' into {found['Code']} 'Code' (text field, {APP}).\n"
        "Effect:\n"
        '~ text "Code": "" → "AB"\n'
        'The field holds "AB", not the text typed.'
    )


async def test_a_disabled_button_is_not_clicked(form: Form, elements: Elements) -> None:
    found = await ids(elements)
    asked = len(elements.asked)
    result = await elements("click", id=found["Submit"])
    assert result.is_error
    assert result.text == 'Refused: button "Submit" is not enabled, so it was not clicked.'
    assert len(elements.asked) == asked  # refused before anyone was asked
    assert form.app.of("clicked") == []


async def test_a_click_that_changes_nothing_says_so(form: Form, elements: Elements) -> None:
    found = await ids(elements)
    result = await elements.ok("click", id=found["Nothing"])
    assert result.text == (
        f"Pressed {found['Nothing']} 'Nothing' (button, {APP}).\n"
        "Effect: none: nothing in the window changed."
    )
    assert [event["name"] for event in form.app.of("clicked")] == ["Nothing"]  # it did run


async def test_an_element_that_appears_is_named(form: Form, elements: Elements) -> None:
    found = await ids(elements)
    result = await elements.ok("click", id=found["Keep"])
    assert result.text == (
        f"Pressed {found['Keep']} 'Keep' (button, {APP}).\nEffect:\n+ label \"Saved\""
    )


async def test_a_dialog_that_opens_is_named(form: Form, elements: Elements) -> None:
    found = await ids(elements)
    result = await elements.ok("click", id=found["Ask"])
    assert result.text == (
        f"Pressed {found['Ask']} 'Ask' (button, {APP}).\nEffect:\n+ dialog \"Save changes?\""
    )


# --- the computer toolset: clicks, typing and keys on the element there --------------------------


async def test_a_click_on_the_box_says_it_is_checked(form: Form, computer: Screen) -> None:
    point = form.centre("Remember me")
    result = await computer.ok("left_click", coordinate=[point.x, point.y])
    assert result.texts == [
        "Clicked.",
        f"Display 0, local ({point.x}, {point.y}), global ({point.x}, {point.y}).",
        'Effect:\n~ checkbox "Remember me": checked',
    ]
    assert form.app.of("checked")[-1]["checked"] is True


async def test_a_click_on_a_disabled_button_is_refused(form: Form, computer: Screen) -> None:
    point = form.centre("Submit")
    await computer.ok("screenshot")  # the point is known before the call: refused unasked
    result = await computer("left_click", coordinate=[point.x, point.y])
    assert result.is_error
    assert result.text == 'Refused: button "Submit" is not enabled, so it was not clicked.'
    assert computer.gate.asked[1:] == []  # only the screenshot was asked about
    # Without a screenshot the point is known only when the call runs: refused then, still
    # before any event.
    late = Screen(form.display, inspector=computer.toolset._inspector, own_pids={1})
    try:
        result = await late("left_click", coordinate=[point.x, point.y])
        assert result.is_error
        assert result.text == 'Refused: button "Submit" is not enabled, so it was not clicked.'
        assert len(late.gate.asked) == 1
        assert [event.kind for event in late.events] == []  # no click was even shown
    finally:
        await late.toolset.close()
    assert [event.kind for event in computer.events] == ["screenshot"]
    assert form.app.of("clicked") == []


async def test_a_click_on_a_button_that_does_nothing_says_so(form: Form, computer: Screen) -> None:
    point = form.centre("Nothing")
    result = await computer.ok("left_click", coordinate=[point.x, point.y])
    assert result.texts[-1] == "Effect: none: nothing in the window changed."
    assert [event["name"] for event in form.app.of("clicked")] == ["Nothing"]


async def test_typing_says_what_the_field_holds_and_a_tab_where_the_focus_went(
    form: Form, computer: Screen
) -> None:
    point = form.centre("Name")
    await computer.ok("left_click", coordinate=[point.x, point.y])
    typed = await computer.ok("type", text="AB")
    assert typed.texts == ["Typed.", 'Effect:\n~ text "Name": "" → "AB"']
    tabbed = await computer.ok("key", text="Tab")
    assert tabbed.texts == ["Pressed Tab.", 'Effect:\n~ text "Code": focused']
    again = await computer.ok("key", text="Tab")
    # A password field is named, its value never read or shown.
    assert again.texts == ["Pressed Tab.", 'Effect:\n~ password text "Password": focused']
    assert SECRET not in again.text


async def test_typing_past_what_is_read_of_a_long_text_says_its_length(
    form: Form, computer: Screen
) -> None:
    point = form.centre("Notes")
    await computer.ok("left_click", coordinate=[point.x, point.y])
    await computer.ok("key", text="ctrl+End")
    typed = await computer.ok("type", text="AB")
    assert typed.texts == [
        "Typed.",
        f'Effect:\n~ text "Notes": {len(NOTES):,} → {len(NOTES) + 2:,} characters',
    ]
    assert form.app.of("text")[-1]["text"] == NOTES + "AB"
