"""What a browser action will really affect: the element it lands on, however it is addressed.

A click by ref, a click at a point, Return on the focused element, the release of a mouse
button, a `form_input`: each comes down to one element and what acting on it does. This
module finds that element and describes it as an `Effect` (role, accessible name, tag, the
form it submits and how, the link it follows, whether it is or forwards to a password field);
`risk` judges it. Every route runs the same page-side description (`scripts.FACTS`):

- points: Chromium's own hit test (CDP `DOM.getNodeForLocation`), which sees into closed
  shadow roots and same-process frames, and is repeated inside out-of-process frames;
- the focus: `document.activeElement`, followed through shadow roots (closed ones included,
  reached through CDP) and frames;
- refs: the element Playwright resolved for the ref.

The CDP routes run in an isolated world, where page scripts cannot change what the
description reads. Anything that cannot be established (no page, no element, a failed or
slow evaluation) comes back as None: an unknown effect, which the gate treats as consequential.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from playwright.async_api import CDPSession, ElementHandle, Locator, Page
from playwright.async_api import Error as PlaywrightError

from tools.browser.effect.model import Effect, Mode, _effect
from tools.browser.effect.scripts import FACTS_CALL, FACTS_EVALUATE, FRAME_BOX, SCROLL, TAB_STEP
from tools.browser.page import keys

log = logging.getLogger(__name__)

__all__ = ["Effect", "Inspector", "Mode", "effect_of_locator"]  # Effect and Mode: see effect_model


RESOLVE_TIMEOUT = 5.0  # a page too busy to answer within this is an unknown effect
REF_TIMEOUT = 2.0  # a ref's element that is not there by then is gone (an unknown effect)
WORLD = "deskhand-effect"
GROUP = "deskhand-effect"  # every remote object made here, released after each question
FRAME_TAGS = frozenset({"IFRAME", "FRAME"})
MAX_DEPTH = 8  # frames and shadow roots followed, at most
_T = TypeVar("_T")


async def effect_of_locator(
    locator: Locator | ElementHandle, mode: Mode, *, role: str = "", name: str = ""
) -> Effect | None:
    """The effect of acting on the element a ref resolved to (`role`/`name` from the snapshot),
    looked up by its ref or already held."""
    if isinstance(locator, Locator):
        evaluating = locator.evaluate(FACTS_EVALUATE, mode, timeout=REF_TIMEOUT * 1000)
    else:
        evaluating = locator.evaluate(FACTS_EVALUATE, mode)
    try:
        facts = await asyncio.wait_for(evaluating, REF_TIMEOUT * 2)
    except (PlaywrightError, TimeoutError):
        return None
    if isinstance(facts, dict) and facts.get("same"):
        # The snapshot's accessible name is the one the model read: prefer it.
        facts = {**facts, "role": role or facts.get("role"), "name": name or facts.get("name")}
    return _effect(facts, mode)


@dataclass(frozen=True)
class _Node:
    """One element, found over CDP: the session of its frame's process, its frame, its id, and
    a handle to it in the isolated world when one is already at hand."""

    session: CDPSession
    frame_id: str
    backend_id: int
    object_id: str | None = None


_FAILURES = (PlaywrightError, KeyError, ValueError, TypeError)


class Inspector:
    """One tab's documents as CDP sees them: hit tests, the focus chain, element descriptions.

    Sessions are opened on first use and kept (one for the page, one per out-of-process frame),
    and so are the isolated worlds made in them; a question that fails (a frame went away, a
    world went with its document) is asked once more from scratch.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self._main: CDPSession | None = None
        self._main_frame: str | None = None
        self._frames: dict[str, CDPSession] = {}
        self._worlds: dict[tuple[int, str], int] = {}
        self._used: set[CDPSession] = set()

    # --- the public questions ------------------------------------------------------------------

    async def at_point(self, x: float, y: float, mode: Mode = "click") -> Effect | None:
        """The effect of `mode` on the element at viewport point (x, y), frames included."""
        return await self._ask(lambda: self._at_point(x, y, mode), None)

    async def focused(self, mode: Mode) -> Effect | None:
        """The effect of `mode` on the element that has the keyboard focus now."""
        return await self._ask(lambda: self._focused(mode), None)

    async def key_effects(self, chords: list[list[str]]) -> dict[int, Effect | None]:
        """What each chord of a sequence would act on, pressed one after the other from now.

        Keyed by chord index, for chords that type or activate; Tab and Shift+Tab move the
        predicted focus the way the browser would. After a chord whose outcome cannot be
        foreseen (a focus move it cannot follow, an activation that may load a page) the
        rest are unknown (None)."""
        unknown: dict[int, Effect | None] = dict.fromkeys(_acting(chords))
        return await self._ask(lambda: self._key_effects(chords), unknown, limit=2)

    # --- asking --------------------------------------------------------------------------------

    async def _ask(self, work: Callable[[], Awaitable[_T]], unknown: _T, *, limit: int = 1) -> _T:
        """`work()`, again from scratch if it failed; `unknown` if it still fails or is slow."""
        deadline = asyncio.get_running_loop().time() + RESOLVE_TIMEOUT * limit
        try:
            for attempt in range(2):
                remaining = deadline - asyncio.get_running_loop().time()
                try:
                    return await asyncio.wait_for(work(), max(remaining, 0.01))
                except _FAILURES:
                    if attempt:
                        raise
                    await self._forget()
        except (*_FAILURES, TimeoutError):
            log.info("Could not establish what an action affects", exc_info=True)
        finally:
            await self._release()
        return unknown

    async def _forget(self) -> None:
        """Start afresh: new sessions, new worlds (the old ones may have died with a frame)."""
        sessions = [self._main, *self._frames.values()]
        self._main, self._main_frame = None, None
        self._frames.clear()
        self._worlds.clear()
        self._used.clear()
        for session in sessions:
            if session is not None:
                with contextlib.suppress(PlaywrightError):
                    await session.detach()

    async def _release(self) -> None:
        used, self._used = self._used, set()
        for session in used:
            with contextlib.suppress(PlaywrightError):
                await session.send("Runtime.releaseObjectGroup", {"objectGroup": GROUP})

    # --- routes --------------------------------------------------------------------------------

    async def _at_point(self, x: float, y: float, mode: Mode) -> Effect | None:
        node = await self._node_at(x, y)
        return None if node is None else await self._describe(node, mode)

    async def _focused(self, mode: Mode) -> Effect | None:
        node = await self._focus_node()
        return None if node is None else await self._describe(node, mode)

    async def _key_effects(self, chords: list[list[str]]) -> dict[int, Effect | None]:
        acting = _acting(chords)
        out: dict[int, Effect | None] = {}
        node = await self._focus_node()
        for index, chord in enumerate(chords):
            if index in acting:
                effect = None
                if node is not None:
                    effect = await self._describe(node, keys.activation(chord) or "type")
                out[index] = effect
                if effect is None or effect.action == "activate":
                    node = None  # it may load a page or change it: the rest is unknown
            move = keys.focus_move(chord)
            if move is None:
                node = None
            elif move and node is not None:
                node = await self._tab_step(node, move)
        return out

    # --- CDP plumbing --------------------------------------------------------------------------

    async def _send(self, session: CDPSession, method: str, params: dict[str, Any]) -> Any:
        self._used.add(session)
        return await session.send(method, params)

    async def _session(self) -> tuple[CDPSession, str]:
        """The page's own session and its main frame's id."""
        if self._main is None:
            self._main = await self.page.context.new_cdp_session(self.page)
        if self._main_frame is None:
            self._main_frame = await self._frame_id_of(self._main)
        return self._main, self._main_frame

    @staticmethod
    async def _frame_id_of(session: CDPSession) -> str:
        tree = await session.send("Page.getFrameTree", {})
        return str(tree["frameTree"]["frame"]["id"])

    async def _frame_session(self, frame_id: str) -> CDPSession | None:
        """The session of an out-of-process frame, found among the page's frames."""
        known = self._frames.get(frame_id)
        if known is not None:
            return known
        context = self.page.context
        for frame in self.page.frames[1:]:
            try:
                session = await context.new_cdp_session(frame)
            except PlaywrightError:
                continue  # an in-process frame: its nodes are in its parent's session
            try:
                found = await self._frame_id_of(session)
            except PlaywrightError:
                continue
            if found in self._frames:
                with contextlib.suppress(PlaywrightError):
                    await session.detach()
                continue
            self._frames[found] = session
        return self._frames.get(frame_id)

    async def _world(self, session: CDPSession, frame_id: str) -> int:
        key = (id(session), frame_id)
        known = self._worlds.get(key)
        if known is None:
            # The same name gives back the same world until the frame's document changes.
            world = await self._send(
                session, "Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD}
            )
            known = self._worlds[key] = int(world["executionContextId"])
        return known

    async def _object_of(self, node: _Node) -> str:
        if node.object_id is not None:
            return node.object_id
        world = await self._world(node.session, node.frame_id)
        resolved = await self._send(
            node.session,
            "DOM.resolveNode",
            {"backendNodeId": node.backend_id, "executionContextId": world, "objectGroup": GROUP},
        )
        return str(resolved["object"]["objectId"])

    async def _call(self, node: _Node, function: str, *args: Any, by_value: bool = True) -> Any:
        result = await self._send(
            node.session,
            "Runtime.callFunctionOn",
            {
                "objectId": await self._object_of(node),
                "functionDeclaration": function,
                "arguments": [{"value": arg} for arg in args],
                "returnByValue": by_value,
                "objectGroup": GROUP,
            },
        )
        if "exceptionDetails" in result:
            raise ValueError("the page-side description failed")
        return result["result"]

    async def _evaluate(
        self, session: CDPSession, frame_id: str, expression: str, *, by_value: bool = True
    ) -> Any:
        result = await self._send(
            session,
            "Runtime.evaluate",
            {
                "expression": expression,
                "contextId": await self._world(session, frame_id),
                "returnByValue": by_value,
                "objectGroup": GROUP,
            },
        )
        if "exceptionDetails" in result:
            raise ValueError("the page-side evaluation failed")
        return result["result"]

    async def _describe(self, node: _Node, mode: Mode) -> Effect | None:
        result = await self._call(node, FACTS_CALL, mode)
        return _effect(result.get("value"), mode, node.backend_id)

    # --- hit testing ---------------------------------------------------------------------------

    async def _node_at(self, x: float, y: float) -> _Node | None:
        session, frame_id = await self._session()
        for _ in range(MAX_DEPTH):
            scroll_x, scroll_y = (await self._evaluate(session, frame_id, SCROLL))["value"]
            try:
                # Document coordinates: the viewport point plus the frame's scroll offset.
                hit = await self._send(
                    session,
                    "DOM.getNodeForLocation",
                    {"x": round(x + scroll_x), "y": round(y + scroll_y)},
                )
            except PlaywrightError:
                return None  # nothing there (outside the document)
            node = _Node(session, str(hit["frameId"]), int(hit["backendNodeId"]))
            described = await self._send(
                session, "DOM.describeNode", {"backendNodeId": node.backend_id}
            )
            info = described["node"]
            if info.get("nodeName") not in FRAME_TAGS or "frameId" not in info:
                return node
            # An out-of-process frame: Chromium's hit test stops at its element; go on inside.
            left, top, width, height = (await self._call(node, FRAME_BOX))["value"]
            x, y = x - left, y - top
            if not (0 <= x < width and 0 <= y < height):
                return node  # on the frame's border or padding
            child = await self._frame_session(str(info["frameId"]))
            if child is None:
                return None
            session, frame_id = child, str(info["frameId"])
        return None

    # --- the focus -----------------------------------------------------------------------------

    async def _focus_node(self) -> _Node | None:
        session, frame_id = await self._session()
        active = await self._evaluate(session, frame_id, "document.activeElement", by_value=False)
        object_id = active.get("objectId")
        for _ in range(MAX_DEPTH * 2):
            if object_id is None:
                return None
            described = await self._send(
                session, "DOM.describeNode", {"objectId": object_id, "depth": 0, "pierce": True}
            )
            info = described["node"]
            node = _Node(session, frame_id, int(info["backendNodeId"]), str(object_id))
            inner = await self._shadow_focus(node, info.get("shadowRoots") or [])
            if inner is not None:
                object_id = inner
                continue
            if info.get("nodeName") in FRAME_TAGS and "frameId" in info:
                frame_id = str(info["frameId"])
                if "contentDocument" not in info:
                    child = await self._frame_session(frame_id)
                    if child is None:
                        return None
                    session = child
                active = await self._evaluate(
                    session, frame_id, "document.activeElement", by_value=False
                )
                object_id = active.get("objectId")
                continue
            return node
        return None

    async def _shadow_focus(self, node: _Node, roots: list[dict[str, Any]]) -> str | None:
        """The focused element inside `node`'s shadow root (open or closed), if any."""
        for root in roots:
            if root.get("shadowRootType") == "user-agent":
                continue
            root_node = _Node(node.session, node.frame_id, int(root["backendNodeId"]))
            result = await self._call(
                root_node, "function() { return this.activeElement; }", by_value=False
            )
            object_id = result.get("objectId")
            if object_id is not None:
                return str(object_id)
        return None

    async def _tab_step(self, node: _Node, direction: int) -> _Node | None:
        result = await self._call(node, TAB_STEP, direction, by_value=False)
        object_id = result.get("objectId")
        if object_id is None:
            return None
        described = await self._send(node.session, "DOM.describeNode", {"objectId": object_id})
        return _Node(
            node.session, node.frame_id, int(described["node"]["backendNodeId"]), str(object_id)
        )


def _acting(chords: list[list[str]]) -> set[int]:
    """Indexes of the chords that type or activate (what the focus check and the risk care about)."""
    return {
        index
        for index, chord in enumerate(chords)
        if keys.activation(chord) is not None or keys.is_text_entry(chord)
    }
