"""`PlaywrightBrowser`: the SDK's browser toolset (`browser_toolset_20260801`) driven by Playwright.

How the app uses it (the SDK validates inputs, runs the URL policy and `confirm`, renders
results; this package only implements the members):

    pool = BrowserPool(BrowserConfig(downloads_dir=..., url_policy=UrlPolicy(...)))
    browser = pool.for_session(session_id, confirm=gate_for(session_id))  # one per chat
    tools = [browser.to_dict(), *function_tools]
    ...
    judged = await browser.judge(browser.context_of(use))  # what the card and the gate show
    run = await browser.run(use, progress=card.progress)   # the tool_result block, and
    # whether it was refused because the page changed after `judge` (then judge and ask anew)
    await pool.close_session(session_id); await pool.close()

`run(use)` never raises for the model's mistakes or the page's failures: refusals and errors
come back as `is_error` results with fixed phrases (only the SDK's `ToolsetUsageError`, a bug
in the calling code, propagates). After an error, the app answers the turn's later browser
calls with the SDK's "Not executed" result, as the SDK guide shows. `confirm(context)`
receives a `BetaConfirmContext` (member, parsed input, tab_id, tab_url of the last report,
tool_use) and must return True to run the call; it does not say which chat the call is for,
hence one confirm per session (pass the same callable each time: a different one rebuilds the
toolset).

The layers: `toolset.py` (the session, the SDK's hooks, judging a call and the re-check before
acting), `looking.py` (navigation, seeing, tabs, developer tools), and here the members that act
on the page: pointer, keys and forms. `close()` only retires the toolset: the pool owns the
browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable
from typing import Any, Literal, cast

from anthropic.tools.browser import BetaToolsetCallContext, beta_check_upload_path
from anthropic.types.beta import (
    BetaBrowserDoubleClickInput,
    BetaBrowserFileUploadInput,
    BetaBrowserFormInputInput,
    BetaBrowserHoldKeyInput,
    BetaBrowserHoverInput,
    BetaBrowserKeyInput,
    BetaBrowserLeftClickDragInput,
    BetaBrowserLeftClickInput,
    BetaBrowserLeftMouseDownInput,
    BetaBrowserLeftMouseUpInput,
    BetaBrowserMiddleClickInput,
    BetaBrowserMouseMoveInput,
    BetaBrowserRightClickInput,
    BetaBrowserScrollInput,
    BetaBrowserScrollToInput,
    BetaBrowserTripleClickInput,
    BetaBrowserTypeInput,
)
from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.effect.approval import key_chords
from tools.browser.effect.passwords import is_password
from tools.browser.effect.target import Effect
from tools.browser.looking import MAX_DURATION, LookingMembers
from tools.browser.page import keys
from tools.browser.page.actionable import Budget, Element, NotActionable, Way, act
from tools.browser.page.forms import set_field
from tools.browser.tab import Tab
from tools.toolset_driver import Progress, progress_scope

__all__ = ["PlaywrightBrowser", "Progress", "progress_scope"]

WHEEL_NOTCH = 100  # pixels per scroll-wheel notch, as Chromium scrolls on Linux and Windows
MouseButton = Literal["left", "middle", "right"]
TYPE_CHUNK = 16  # characters typed between two checks of the focus
INSERT_CHUNK = 500  # the same, for long text inserted at once
# Form fields form_input sets itself; on anything else Playwright would follow a label.
FIELD_ROLES = frozenset(
    {"textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "switch", "slider"}
    | {"spinbutton", "option", "menuitemcheckbox", "menuitemradio"}
)


class PlaywrightBrowser(LookingMembers):
    """Every member of the browser toolset, on one chat session's tabs."""

    async def _click(
        self,
        input: BetaBrowserLeftClickInput
        | BetaBrowserRightClickInput
        | BetaBrowserMiddleClickInput
        | BetaBrowserDoubleClickInput
        | BetaBrowserTripleClickInput,
        *,
        button: MouseButton = "left",
        count: int = 1,
    ) -> None:
        budget = self._budget()
        tab = await self._tab(input)
        modifiers = keys.modifier_keys(input.modifiers)
        target = input.target
        self._page_unchanged(tab)
        located = await self._locate(tab, target.ref) if target.type == "ref" else None
        # A middle click pastes the X11 selection into the field under it: never a password one.
        effect = await self._target_unchanged(
            tab, target, always=button == "middle", located=located
        )
        if button == "middle" and effect is None:
            raise self._refused(errors.TARGET_UNKNOWN)
        if button == "middle" and effect is not None and effect.password:
            raise self._refused(errors.PASSWORD_FIELD)
        before = tab.nav_mark()
        if located is not None:
            locator = located[0]
            # Playwright waits until the element can take the click (its hit-target check
            # stops a click that would land on a cover); a refusal names the check that failed.
            await self._acting(
                locator,
                "click",
                lambda timeout: locator.click(
                    button=button,
                    click_count=count,
                    modifiers=cast(Any, modifiers),
                    timeout=timeout,
                ),
                budget,
            )
        elif target.type == "coordinate":
            # A point is clicked where it is: what is there now was judged and approved (the
            # re-check above), whatever lies under it.
            x, y = self._point(target)
            for key in modifiers:
                await tab.page.keyboard.down(key)
            try:
                await tab.page.mouse.click(x, y, button=button, click_count=count)
            finally:
                for key in reversed(modifiers):
                    await tab.page.keyboard.up(key)
        await tab.settle(before)

    async def _acting(
        self,
        locator: Element,
        way: Way,
        action: Callable[[float], Awaitable[object]],
        budget: Budget,
    ) -> None:
        """`action(timeout_ms)` on a ref's element once it can take it; refused, with the check
        that failed, when it could not within the call's budget."""
        try:
            await act(locator, way, action, budget)
        except NotActionable as exc:
            noun = "click" if way == "click" else "pointer" if way == "hover" else "action"
            phrase = errors.not_actionable(exc.check, noun=noun, cover=exc.cover)
            raise self._refused(phrase) from None

    # --- members: pointer ----------------------------------------------------------------------

    async def left_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftClickInput
    ) -> None:
        await self._click(input)

    async def right_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserRightClickInput
    ) -> None:
        await self._click(input, button="right")

    async def middle_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserMiddleClickInput
    ) -> None:
        await self._click(input, button="middle")

    async def double_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserDoubleClickInput
    ) -> None:
        await self._click(input, count=2)

    async def triple_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserTripleClickInput
    ) -> None:
        await self._click(input, count=3)

    async def hover(self, context: BetaToolsetCallContext, input: BetaBrowserHoverInput) -> None:
        budget = self._budget()
        tab = await self._tab(input)
        target = input.target
        if target.type == "ref":
            locator = await self._locator(tab, target.ref)
            await self._acting(
                locator, "hover", lambda timeout: locator.hover(timeout=timeout), budget
            )
        else:
            await tab.page.mouse.move(*self._point(target))

    async def mouse_move(
        self, context: BetaToolsetCallContext, input: BetaBrowserMouseMoveInput
    ) -> None:
        tab = await self._tab(input)
        await tab.page.mouse.move(*self._point(input.target))

    async def left_mouse_down(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftMouseDownInput
    ) -> None:
        tab = await self._tab(input)
        point = self._point(input.target)
        # Where it went down is what a later release may drop onto a field.
        tab.pointer_down = await self._target_unchanged(tab, input.target, always=True)
        await tab.page.mouse.move(*point)
        await tab.page.mouse.down()

    async def left_mouse_up(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftMouseUpInput
    ) -> None:
        tab = await self._tab(input)
        point = self._point(input.target)
        end = await self._target_unchanged(tab, input.target, always=True)
        self._refuse_drop(tab.pointer_down, end)
        before = tab.nav_mark()
        await tab.page.mouse.move(*point)
        await tab.page.mouse.up()
        tab.pointer_down = None
        await tab.settle(before)

    @staticmethod
    def _refuse_drop(start: Effect | None, end: Effect | None) -> None:
        """A drag that ends on a password field would drop its text there: refused. (Pressing
        and releasing on the same password field only focuses it.)"""
        if end is None:
            raise PlaywrightBrowser._refused(errors.TARGET_UNKNOWN)
        if not end.password:
            return
        if start is None or start.node is None or start.node != end.node:
            raise PlaywrightBrowser._refused(errors.PASSWORD_FIELD)

    async def left_click_drag(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftClickDragInput
    ) -> None:
        tab = await self._tab(input)
        start, end = self._point(input.from_), self._point(input.target)
        first = await self._target_unchanged(tab, input.from_, step=0, always=True)
        last = await self._target_unchanged(tab, input.target, step=1, always=True)
        self._refuse_drop(first, last)
        mouse = tab.page.mouse
        await mouse.move(*start)
        await mouse.down()
        try:
            # Several steps: drag-and-drop code listens for moves, not just the end point.
            await mouse.move(*end, steps=8)
        finally:
            await mouse.up()

    async def scroll(self, context: BetaToolsetCallContext, input: BetaBrowserScrollInput) -> None:
        tab = await self._tab(input)
        amount = input.scroll_amount if input.scroll_amount is not None else 3
        amount = max(1, min(10, amount))
        dx, dy = {
            "up": (0, -1),
            "down": (0, 1),
            "left": (-1, 0),
            "right": (1, 0),
        }[input.scroll_direction]
        await tab.page.mouse.move(*self._point(input.target))
        before = await self._scroll_offset(tab)
        await tab.page.mouse.wheel(dx * amount * WHEEL_NOTCH, dy * amount * WHEEL_NOTCH)
        await self._scroll_settled(tab, before)

    @staticmethod
    async def _scroll_offset(tab: Tab) -> tuple[float, float] | None:
        if tab.cdp is None:
            return None
        try:
            metrics = await tab.cdp.send("Page.getLayoutMetrics")
        except PlaywrightError:
            return None
        viewport = metrics["cssVisualViewport"]
        return float(viewport["pageX"]), float(viewport["pageY"])

    async def _scroll_settled(self, tab: Tab, before: tuple[float, float] | None) -> None:
        """Wait until the page stops scrolling: the wheel returns before the page has moved."""
        if before is None:
            await asyncio.sleep(0.15)
            return
        last, steady = before, 0
        for _ in range(40):  # two seconds at most, for a page that scrolls smoothly or not at all
            await asyncio.sleep(0.05)
            now = await self._scroll_offset(tab)
            if now is None:
                return
            steady = steady + 1 if now == last else 0
            if (now != before and steady >= 1) or steady >= 4:
                return
            last = now

    async def scroll_to(
        self, context: BetaToolsetCallContext, input: BetaBrowserScrollToInput
    ) -> None:
        budget = self._budget()
        tab = await self._tab(input)
        locator = await self._locator(tab, input.target.ref)
        await self._acting(
            locator,
            "scroll",
            lambda timeout: locator.scroll_into_view_if_needed(timeout=timeout),
            budget,
        )

    # --- members: keyboard and forms -------------------------------------------------------------

    async def type(self, context: BetaToolsetCallContext, input: BetaBrowserTypeInput) -> None:
        tab = await self._tab(input)
        approved = self._page_unchanged(tab)
        keyboard = tab.page.keyboard
        # One input event per long chunk instead of hundreds of key events: seconds faster.
        inserting = len(input.text) > 200
        before = tab.nav_mark()
        for index, chunk in enumerate(_chunks(input.text, inserting=inserting)):
            enter = not inserting and chunk in ("\n", "\r")
            if index == 0 or not enter:
                # The field typed into: the approved one at first, never a password field.
                field = await tab.inspector.focused("type")
                if field is None:
                    raise errors.refusal(errors.FOCUS_UNKNOWN)
                if field.password and not enter:
                    raise errors.refusal(errors.PASSWORD_FIELD)
                if index == 0 and approved is not None:
                    approved.check(0, field, strict=True)
                elif approved is not None:  # later chunks: still the field that was approved
                    approved.check_field(0, field, partly_done=True)
            if enter:
                pressed = await tab.inspector.focused("enter")
                if approved is not None:
                    approved.check(1, pressed, strict=False, partly_done=index > 0)
            if inserting:
                await keyboard.insert_text(chunk)
            else:
                await keyboard.type(chunk)
        await tab.settle(before)

    async def key(self, context: BetaToolsetCallContext, input: BetaBrowserKeyInput) -> None:
        tab = await self._tab(input)
        chords = keys.parse_sequence(input.text)
        repeat = max(1, min(100, input.repeat or 1))
        approved = self._page_unchanged(tab)
        foreseen = len(key_chords(input.text, input.repeat))
        before = tab.nav_mark()
        step = 0
        for _ in range(repeat):
            for chord in chords:
                # Steps past those the approval foresaw are held to its risk like unforeseen ones.
                held = approved
                if approved is not None and step >= foreseen:
                    held = approved.model_copy(update={"effects": {}})
                await self._focus_allows(tab, chord, step, held, strict=step == 0)
                await self._press(tab, chord)
                step += 1
        await tab.settle(before)

    async def hold_key(
        self, context: BetaToolsetCallContext, input: BetaBrowserHoldKeyInput
    ) -> None:
        if not 0 <= input.duration <= MAX_DURATION:
            raise errors.refusal(errors.DURATION_TOO_LONG)
        tab = await self._tab(input)
        chord = keys.parse_chord(input.text)
        approved = self._page_unchanged(tab)
        await self._focus_allows(tab, chord, 0, approved, strict=True)
        keyboard = tab.page.keyboard
        pressed: list[str] = []
        try:
            for key in chord:
                await keyboard.down(key)
                pressed.append(key)
            await asyncio.sleep(input.duration)
        finally:
            for key in reversed(pressed):
                with contextlib.suppress(PlaywrightError):
                    await keyboard.up(key)

    async def form_input(
        self, context: BetaToolsetCallContext, input: BetaBrowserFormInputInput
    ) -> None:
        budget = self._budget()
        tab = await self._tab(input)
        self._page_unchanged(tab)
        located = await self._locate(tab, input.target.ref)
        locator, entry = located
        # Playwright fills the control of a label (or of whatever sits inside one): the field
        # that would really be set is the one judged, and a password one is refused.
        effect = await self._target_unchanged(
            tab, input.target, mode="fill", always=True, located=located
        )
        if effect is None:
            raise self._refused(errors.TARGET_UNKNOWN)
        if effect.password or await is_password(locator):
            raise self._refused(errors.PASSWORD_FIELD)
        if effect.input_type == "file":
            raise self._refused(errors.USE_FILE_UPLOAD)
        if entry.role not in FIELD_ROLES and not effect.editable and effect.tag != "select":
            raise self._refused(errors.NOT_A_FORM_FIELD)
        try:
            await set_field(locator, entry.role, input.value, budget=budget)
        except NotActionable as exc:
            phrase = errors.not_actionable(exc.check, noun="action", cover=exc.cover)
            raise self._refused(phrase) from None

    async def file_upload(
        self, context: BetaToolsetCallContext, input: BetaBrowserFileUploadInput
    ) -> None:
        if input.document_ids:
            raise errors.refusal(errors.DOCUMENTS_UNSUPPORTED)
        upload_dir = self._config.upload_dir
        paths = input.paths or []
        if upload_dir is None or not paths:
            raise errors.refusal("file_upload has no configured upload roots")
        # The SDK's file policy vetted these already; checked again where the file is opened.
        vetted = [beta_check_upload_path(path, [str(upload_dir)]) for path in paths]
        budget = self._budget()
        tab = await self._tab(input)
        locator = await self._locator(tab, input.target.ref)
        if (await locator.get_attribute("type") or "").strip().lower() != "file":
            raise errors.refusal(errors.NOT_A_FILE_INPUT)
        await locator.set_input_files(vetted, timeout=budget.timeout_ms())


def _chunks(text: str, *, inserting: bool) -> list[str]:
    """`text` in the pieces typed between two focus checks; each line break on its own, since
    typing one presses Return."""
    if inserting:
        return [text[start : start + INSERT_CHUNK] for start in range(0, len(text), INSERT_CHUNK)]
    pieces: list[str] = []
    for part in re.split(r"([\r\n])", text):
        if part in ("\r", "\n"):
            pieces.append(part)
        else:
            pieces.extend(
                part[start : start + TYPE_CHUNK] for start in range(0, len(part), TYPE_CHUNK)
            )
    return pieces
