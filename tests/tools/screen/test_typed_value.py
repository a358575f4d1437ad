"""`screen set_value` on fields that offer no AT-SPI editable text: clicked and typed into.

The Qt form of `tests/support/typed_target.py` has real line edits whose accessible objects are
plain widgets with the text-field role (as custom-drawn editors have), on a real X server with a
real accessibility bus. What is checked is what the form itself reports: its fields' real text.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest

from tests.support.atspi import SessionBus, atspi_missing
from tests.support.desk import wait_accessible
from tests.support.typed_target import PLAIN_START
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing
from tests.tools.screen.conftest import Elements
from tools.screen import errors
from tools.screen.a11y.atspi.reader import Accessibility
from tools.screen.geometry import Point, Rect
from tools.screen.worker import ScreenWorker

pytestmark = pytest.mark.anyio

FORM_RECT = (40, 40, 400, 240)


@dataclass
class TypedDesk:
    display: str
    bus: SessionBus
    form: TargetApp
    widgets: dict[str, Rect]


@pytest.fixture(scope="module")
def typed_desk() -> Iterator[TypedDesk]:
    missing = xvfb_missing() or atspi_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(1280, 800) as server, SessionBus(server.display) as bus:
        form = TargetApp(
            server.display, FORM_RECT, module="tests.support.typed_target", env=bus.app_env()
        )
        form.start()
        try:
            deadline = time.monotonic() + 20
            while not form.of("ready"):
                assert time.monotonic() < deadline, "the form never reported ready"
                time.sleep(0.02)
            wait_accessible(bus, {form.pid or 0})
            widgets = {name: Rect(*rect) for name, rect in form.of("ready")[0]["widgets"].items()}
            yield TypedDesk(server.display, bus, form, widgets)
        finally:
            form.close()


@pytest.fixture
async def typed(anyio_backend: str, typed_desk: TypedDesk) -> AsyncIterator[Elements]:
    from tools.screen.backends.x11.backend import X11Backend

    accessibility = Accessibility(session=typed_desk.bus.address)
    worker = ScreenWorker(lambda: X11Backend(typed_desk.display))
    made = Elements(accessibility, worker)
    yield made
    await worker.close()
    await accessibility.close()


def centre(rect: Rect) -> Point:
    return Point(rect.x + rect.width // 2, rect.y + rect.height // 2)


async def ids(elements: Elements) -> dict[str, str]:
    """The snapshot's id of each field, by name."""
    seen = await elements.ok("see", title="Typed target")
    found = {}
    for line in seen.text.splitlines()[1:]:
        element_id, rest = line.split(" ", 1)
        found[rest.split('"')[1]] = element_id
    return found


async def test_a_field_without_editable_text_is_clicked_selected_and_typed_into(
    typed_desk: TypedDesk, typed: Elements
) -> None:
    found = await ids(typed)
    typed.events.clear()
    result = await typed.ok("set_value", id=found["Plain"], value="Grace Hopper")
    assert result.text == (
        f"Typed 'Grace Hopper' into {found['Plain']} 'Plain' (text field, typed_target.py) "
        "(its text cannot be read back).\n"
        "Effect: unknown.\n"
        "Not confirmed: the field's text cannot be read back."
    )
    # The old text was replaced, not added to: the field's last text is exactly the value.
    await typed_desk.form.text("Grace Hopper")
    await typed_desk.form.settle(0.2)
    assert typed_desk.form.last_text() == "Grace Hopper"
    assert PLAIN_START not in typed_desk.form.last_text()
    assert typed.asked[-1].risk == "change"  # judged like typing into that field
    # The visualizer saw a click ring at the field's centre, then the typed text there.
    point = centre(typed_desk.widgets["Plain"])
    kinds = [(chat, event.kind, event.points, event.text) for chat, event in typed.events]
    assert kinds == [
        (typed.session_id, "click", (point,), ""),
        (typed.session_id, "type", (point,), "Grace Hopper"),
    ]


async def test_a_field_a_click_does_not_focus_gets_no_keystrokes(
    typed_desk: TypedDesk, typed: Elements
) -> None:
    found = await ids(typed)
    await typed.ok("set_value", id=found["Plain"], value="keep me")
    await typed_desk.form.text("keep me")
    typed_desk.form.clear()
    refused = await typed("set_value", id=found["Locked"], value="stray")
    assert refused.is_error and refused.text == errors.NOT_FOCUSED
    await typed_desk.form.settle(0.3)
    # The focus stayed in "Plain", and not a character went there (or anywhere).
    assert typed_desk.form.of("text") == []


async def test_a_password_field_without_editable_text_is_never_typed_into(
    typed_desk: TypedDesk, typed: Elements
) -> None:
    found = await ids(typed)
    asked = len(typed.asked)
    typed_desk.form.clear()
    refused = await typed("set_value", id=found["Hidden"], value="hunter2")
    assert refused.is_error and refused.text == errors.SECURE_VALUE
    assert len(typed.asked) == asked  # refused before anyone was asked
    await typed_desk.form.settle(0.3)
    assert typed_desk.form.of("text") == [] and typed_desk.form.of("focus") == []


async def test_a_denied_set_value_types_nothing(typed_desk: TypedDesk, typed: Elements) -> None:
    found = await ids(typed)
    typed_desk.form.clear()
    typed.answer = False
    refused = await typed("set_value", id=found["Plain"], value="not allowed")
    assert refused.is_error
    await typed_desk.form.settle(0.3)
    assert typed_desk.form.of("text") == [] and typed_desk.form.of("focus") == []


async def test_line_breaks_are_not_typed_as_key_presses(
    typed_desk: TypedDesk, typed: Elements
) -> None:
    found = await ids(typed)
    typed_desk.form.clear()
    refused = await typed("set_value", id=found["Plain"], value="one\nsubmit")
    assert refused.is_error and refused.text == errors.NOT_TYPEABLE
    await asyncio.sleep(0.1)
    await typed_desk.form.settle(0.3)
    assert typed_desk.form.of("text") == []


async def test_a_field_with_editable_text_is_still_set_directly(
    typed_desk: TypedDesk, typed: Elements
) -> None:
    found = await ids(typed)
    typed_desk.form.clear()
    result = await typed.ok("set_value", id=found["Other"], value="Ada")
    assert result.text == (
        f"Set {found['Other']} 'Other' (text field, typed_target.py) to 'Ada'.\n"
        'Effect:\n~ text "Other": "" → "Ada"'
    )
    await typed_desk.form.text("Ada")
    assert typed_desk.form.of("focus") == []  # set through AT-SPI: no click moved the focus
