"""Risk from the effect, with real Chromium: however an action is addressed, the gate judges the
element it will really act on, and the driver holds the action to what was approved.

The confirm here does what the app's does: it asks `judge` on the live page, then answers
like a person in Autonomous mode would be asked to (changes run, consequential calls are
declined). The pages record every request, so "no order was posted" is checked at the server.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from anthropic.tools.browser import BetaConfirmContext

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import TEST_POLICY, Driver
from tools.browser import BrowserConfig, BrowserPool, PlaywrightBrowser, errors
from tools.browser.effect.risk import UNKNOWN_REASON

pytestmark = pytest.mark.anyio


@dataclass
class Asked:
    member: str
    input: dict[str, Any]
    risk: str
    reason: str
    summary: str


class Autonomous:
    """The app's confirm in short: describe the call on the live page; run changes, decline
    consequential calls (as the person would, when asked). `before_answer` runs between the
    description and the answer, standing for the time the person takes."""

    def __init__(self) -> None:
        self.toolset: PlaywrightBrowser | None = None
        self.asked: list[Asked] = []
        self.before_answer: Callable[[], Awaitable[None]] | None = None

    async def __call__(self, context: BetaConfirmContext) -> bool:
        assert self.toolset is not None
        judged = await self.toolset.judge(context)
        risk, reason, summary = judged.risk, judged.reason, judged.summary
        self.asked.append(Asked(context.member, context.input.to_dict(), risk, reason, summary))
        if self.before_answer is not None:
            await self.before_answer()
        return risk != "consequential"

    def last(self, member: str) -> Asked:
        return [asked for asked in self.asked if asked.member == member][-1]


@pytest.fixture(scope="module")
def person() -> Autonomous:
    return Autonomous()


@pytest.fixture(scope="module")
async def effect_pool(
    anyio_backend: str,
    chromium: dict[str, Any],
    person: Autonomous,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[BrowserPool]:
    config = BrowserConfig(
        headless=True,
        url_policy=TEST_POLICY,
        downloads_dir=tmp_path_factory.mktemp("downloads"),
        javascript_exec=True,
        **chromium,
    )
    pool = BrowserPool(config, confirm=person)
    yield pool
    await pool.close()


_sessions = itertools.count(1)


@pytest.fixture
async def app(effect_pool: BrowserPool, person: Autonomous) -> AsyncIterator[Driver]:
    session_id = f"effect-{next(_sessions)}"
    person.toolset = effect_pool.for_session(session_id)
    person.asked.clear()
    person.before_answer = None
    yield Driver(person.toolset)
    await effect_pool.close_session(session_id)


def orders(pages: PageServer) -> list[str]:
    return [path for path in pages.paths() if path in ("/order", "/frame-order")]


async def run_script(app: Driver, script: str) -> Any:
    """Act on the page directly (test-side): what the page or the person does meanwhile."""
    tab = await app.toolset._session.tab(None)
    return await tab.page.evaluate(script)


def at(x: int, y: int) -> dict[str, Any]:
    return {"type": "coordinate", "x": x, "y": y}


# Where the shop page puts things (see tests/support/pages/shop.html).
QUANTITY, BUY, NEXT = at(100, 115), at(350, 120), at(500, 120)
GERMAN, FRENCH, JAPANESE, FRAME_PAY = at(100, 220), at(250, 220), at(400, 220), at(100, 340)


# --- the same purchase, however it is addressed ----------------------------------------------


async def test_buy_now_is_consequential_by_ref_point_keys_and_mouse_pairs(
    app: Driver, pages: PageServer, person: Autonomous
) -> None:
    before = orders(pages)
    await app.open(pages.url("shop.html"))
    page = await app("read_page", filter="interactive")

    by_ref = await app("left_click", target={"type": "ref", "ref": page.ref('"Buy now"')})
    assert by_ref.is_error
    assert person.last("left_click").risk == "consequential"
    assert person.last("left_click").summary == "Click 'Buy now' (button) on 127.0.0.1"

    await app("left_click", target=BUY)
    assert person.last("left_click").risk == "consequential"
    assert person.last("left_click").summary == "Click 'Buy now' (button) on 127.0.0.1"

    focused = await app("left_click", target=QUANTITY)  # a text field: a change, so it runs
    assert not focused.is_error and person.last("left_click").risk == "change"
    await app("key", text="Tab Return")
    keyed = person.last("key")
    assert keyed.risk == "consequential"
    assert "'Buy now' (button)" in keyed.summary

    await app("left_click", target=QUANTITY)
    await app("key", text="Tab space")  # Space activates a focused button too
    assert person.last("key").risk == "consequential"

    await app("left_mouse_down", target=BUY)
    await app("left_mouse_up", target=BUY)
    assert person.last("left_mouse_down").risk == "consequential"
    assert person.last("left_mouse_up").risk == "consequential"
    assert "'Buy now' (button)" in person.last("left_mouse_up").summary

    await app("left_click_drag", target=BUY, **{"from": BUY})
    assert person.last("left_click_drag").risk == "consequential"

    assert orders(pages) == before  # every route was asked about, and declined


async def test_a_payment_button_inside_a_cross_origin_frame_is_judged_at_its_point(
    app: Driver, pages: PageServer, person: Autonomous
) -> None:
    before = orders(pages)
    await app.open(pages.url("shop.html"))
    await app("wait", duration=0.3)  # the frame loads after the page
    await app("left_click", target=FRAME_PAY)
    asked = person.last("left_click")
    assert asked.risk == "consequential"
    assert asked.summary == "Click 'Pay now' (button) on 127.0.0.1"
    assert orders(pages) == before


async def test_a_harmless_button_stays_a_change_however_it_is_clicked(
    app: Driver, pages: PageServer, person: Autonomous
) -> None:
    await app.open(pages.url("shop.html"))
    page = await app("read_page", filter="interactive")
    by_ref = await app("left_click", target={"type": "ref", "ref": page.ref('"Next"')})
    assert not by_ref.is_error
    assert person.last("left_click").risk == "change"
    assert person.last("left_click").summary == "Click 'Next' (button) on 127.0.0.1"
    await run_script(app, "document.getElementById('status').textContent = 'idle'")
    by_point = await app("left_click", target=NEXT)
    assert not by_point.is_error and person.last("left_click").risk == "change"
    assert await run_script(app, "document.getElementById('status').textContent") == (
        "next pressed"
    )
    keyed = await app("key", text="Return")  # the focus is on Next after the click
    assert not keyed.is_error and person.last("key").risk == "change"


@pytest.mark.parametrize(
    ("point", "name"), [(GERMAN, "Jetzt kaufen"), (FRENCH, "Acheter"), (JAPANESE, "購入")]
)
async def test_buying_words_in_other_languages(
    app: Driver, pages: PageServer, person: Autonomous, point: dict[str, Any], name: str
) -> None:
    await app.open(pages.url("shop.html"))
    clicked = await app("left_click", target=point)
    assert clicked.is_error  # declined: it was asked about
    asked = person.last("left_click")
    assert asked.risk == "consequential" and f"'{name}' (button)" in asked.summary


async def test_an_effect_that_cannot_be_told_is_consequential(
    app: Driver, pages: PageServer, person: Autonomous
) -> None:
    # No page yet: nothing can be seen, so Return asks.
    await app("key", text="Return")
    asked = person.last("key")
    assert (asked.risk, asked.reason) == ("consequential", UNKNOWN_REASON)

    await app.open(pages.url("shop.html"))
    old = (await app("read_page", filter="interactive")).ref('"Next"')
    await app.open(pages.url("second.html"))
    stale = await app("left_click", target={"type": "ref", "ref": old})
    assert stale.is_error
    assert (person.last("left_click").risk, person.last("left_click").reason) == (
        "consequential",
        UNKNOWN_REASON,
    )


# --- held to the approval, right before acting ---------------------------------------------


async def test_a_page_that_navigates_itself_after_the_approval_is_not_clicked(
    app: Driver, pages: PageServer, person: Autonomous
) -> None:
    await app.open(pages.url("shop.html"))

    async def page_moves_on() -> None:
        tab = await app.toolset._session.tab(None)
        await tab.page.evaluate("location.href = '/second.html'")
        await tab.page.wait_for_url("**/second.html")

    person.before_answer = page_moves_on
    clicked = await app("left_click", target=NEXT)
    assert clicked.is_error and clicked.text == errors.PAGE_CHANGED
    assert person.last("left_click").risk == "change"  # it was approved, for the shop page
    assert await run_script(app, "document.title") == "Second page"


async def test_focus_moved_after_the_approval_stops_the_key(
    app: Driver, pages: PageServer, person: Autonomous
) -> None:
    before = orders(pages)
    await app.open(pages.url("shop.html"))
    await app("left_click", target=NEXT)  # the focus is on Next

    async def focus_moves() -> None:
        await run_script(app, "document.getElementById('buy').focus()")

    person.before_answer = focus_moves
    pressed = await app("key", text="Return")
    assert person.last("key").risk == "change"  # approved for Next
    assert pressed.is_error and pressed.text == errors.PAGE_CHANGED
    assert orders(pages) == before


async def test_each_key_of_a_sequence_is_held_to_the_approved_risk(
    app: Driver, pages: PageServer, person: Autonomous
) -> None:
    before = orders(pages)
    await app.open(pages.url("shop.html"))
    await app("left_click", target=NEXT)
    # The page turns Tab into a jump to "Buy now": the approval foresaw Tab landing on Help.
    await run_script(app, "window.trapTab = true")
    pressed = await app("key", text="Tab Return")
    asked = person.last("key")
    assert asked.risk == "change" and "'Help' (button)" in asked.summary
    assert pressed.is_error and pressed.text == errors.PAGE_CHANGED_MIDWAY
    assert await run_script(app, "document.activeElement.id") == "buy"  # Tab ran, Return did not
    assert orders(pages) == before


# --- passwords, whatever the route -----------------------------------------------------------


async def password_value(app: Driver) -> str:
    return str(await run_script(app, "document.getElementById('pw').value"))


async def test_tab_then_letters_from_the_username_field_never_reach_the_password(
    app: Driver, pages: PageServer
) -> None:
    await app.open(pages.url("login.html"))
    await app("left_click", target=at(200, 70))
    typed = await app("type", text="ada")
    assert not typed.is_error
    pressed = await app("key", text="Tab h u n t e r 2")
    assert pressed.is_error and pressed.text == errors.PASSWORD_FIELD
    assert await password_value(app) == ""
    assert await run_script(app, "document.getElementById('user').value") == "ada"


async def test_form_input_on_a_password_fields_label_is_refused(
    app: Driver, pages: PageServer
) -> None:
    await app.open(pages.url("login.html"))
    page = await app("read_page", filter="all")
    (label_line,) = [line for line in page.text.splitlines() if line.endswith(": Password")]
    label = page.ref(label_line)
    filled = await app("form_input", target={"type": "ref", "ref": label}, value="hunter2")
    assert filled.is_error and filled.text == errors.PASSWORD_FIELD
    assert await password_value(app) == ""


async def test_pasting_into_a_password_field_is_refused_in_every_form(
    app: Driver, pages: PageServer
) -> None:
    await app.open(pages.url("login.html"))
    selected = await app("triple_click", target=at(60, 230))  # "hunter2" becomes the selection
    assert not selected.is_error
    pasted = await app("middle_click", target=at(250, 120))
    assert pasted.is_error and pasted.text == errors.PASSWORD_FIELD
    dropped = await app("left_click_drag", target=at(250, 120), **{"from": at(60, 230)})
    assert dropped.is_error and dropped.text == errors.PASSWORD_FIELD
    await app("left_mouse_down", target=at(60, 230))
    released = await app("left_mouse_up", target=at(250, 120))
    assert released.is_error and released.text == errors.PASSWORD_FIELD
    await app("left_click", target=at(250, 120))  # focusing the field is fine
    for chord in ("ctrl+v", "shift+Insert", "cmd+v"):
        keyed = await app("key", text=chord)
        assert keyed.is_error and keyed.text == errors.PASSWORD_FIELD, chord
    assert await password_value(app) == ""


async def test_a_password_field_in_a_closed_shadow_root_refuses_typing(
    app: Driver, pages: PageServer
) -> None:
    await app.open(pages.url("login.html"))
    clicked = await app("left_click", target=at(100, 310))
    assert not clicked.is_error
    assert await run_script(app, "document.activeElement.id") == "vault"  # page script sees a host
    typed = await app("type", text="hunter2")
    assert typed.is_error and typed.text == errors.PASSWORD_FIELD
    keyed = await app("key", text="h")
    assert keyed.is_error and keyed.text == errors.PASSWORD_FIELD
    assert await run_script(app, "window.vaultValue()") == ""


async def test_focus_is_checked_before_each_chunk_of_typed_text(
    app: Driver, pages: PageServer
) -> None:
    await app.open(pages.url("login.html"))
    # The page moves the focus to the password field once a first chunk of text has arrived.
    await run_script(
        app,
        """document.getElementById('user').addEventListener('input', (event) => {
             if (event.target.value.length === 16) document.getElementById('pw').focus();
           })""",
    )
    await app("left_click", target=at(200, 70))
    typed = await app("type", text="a" * 16 + "hunter2")
    assert typed.is_error and typed.text == errors.PASSWORD_FIELD
    assert await password_value(app) == ""


async def test_typing_stops_when_the_page_moves_the_focus_to_another_field(
    app: Driver, pages: PageServer
) -> None:
    await app.open(pages.url("login.html"))
    # Once a first chunk has arrived, the page hands the focus to a field of its own.
    await run_script(
        app,
        """const note = document.createElement('input');
           note.id = 'note'; note.setAttribute('aria-label', 'Note');
           document.body.appendChild(note);
           document.getElementById('user').addEventListener('input', (event) => {
             if (event.target.value.length === 16) note.focus();
           })""",
    )
    await app("left_click", target=at(200, 70))
    typed = await app("type", text="a" * 16 + "the rest of it")
    assert typed.is_error and typed.text == errors.PAGE_CHANGED_MIDWAY
    assert await run_script(app, "document.getElementById('note').value") == ""
    assert await run_script(app, "document.getElementById('user').value") == "a" * 16


async def test_typing_elsewhere_still_works(app: Driver, pages: PageServer) -> None:
    await app.open(pages.url("shop.html"))
    await app("left_click", target=QUANTITY)
    await app("key", text="ctrl+a")
    typed = await app("type", text="3")
    assert not typed.is_error
    assert await run_script(app, "document.getElementById('qty').value") == "3"
