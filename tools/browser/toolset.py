"""The browser toolset's base: one chat session's tabs, the SDK's hooks, and judging a call.

`BrowserToolset` is what the members (`looking.py`, `driver.py`) stand on: the toolset over one
session of a `BrowserRuntime` (the pool builds one per chat), the SDK's URL policy and state
report, the error mapping around every member, and the description of a call the gate reads.

`judge(context)` (which the app calls once per call before it runs, on the confirm context
the SDK would build: `context_of(tool_use)`) gives (risk, reason, summary, page) for a call,
e.g. (Risk.CONSEQUENTIAL, ..., "Click 'Buy now' (button) on shop.example"). It resolves the element the call will really act
on (however it is addressed: ref, point, the focus a key lands on) and judges that; the
toolset keeps what was described (`effect.approval.Approved`), and right before acting resolves it
again: if the page or the element changed meanwhile, the call is refused with a fixed phrase
(`errors.PAGE_CHANGED`) rather than done on something nobody approved, and the run's result
says so (`ToolsetRun.changed`); the app then describes the call again and asks anew. A call
that was never described runs without that re-check.

The judgement also keeps what the call acts on by meaning (`Judged.meaning`: role, name, the
heading or landmark it sits near, the page; `effect.meaning`), and `find_again(meaning)` looks
for such a target in the active tab as it is now, handing back a fresh ref (`page.again`): how
a routine's step, replayed without the model, addresses what it recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TypeVar, cast

from anthropic.tools import ToolError, ToolsetUsageError
from anthropic.tools.browser import (
    BetaAsyncAbstractBrowserToolset20260801,
    BetaAsyncConfirmCallable,
    BetaBrowserState,
    BetaConfirmContext,
    BetaLocalFilePolicy,
    BetaToolConfigs,
    BetaToolsetCallContext,
    BetaURLContext,
)
from anthropic.types.beta import (
    BetaBrowserCoordinateTarget,
    BetaBrowserMemberInput,
    BetaBrowserMemberName,
    BetaBrowserToolsetConfigsParam,
    BetaResponseBrowserToolUseBlock,
)
from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.config import OPTIONAL_MEMBERS
from tools.browser.effect.approval import (
    Approved,
    ApprovedCalls,
    effect_of_target,
    ref_locator,
    resolve_effects,
)
from tools.browser.effect.destination import lands
from tools.browser.effect.meaning import target_meaning
from tools.browser.effect.passwords import secret_refs
from tools.browser.effect.risk import EFFECT_MEMBERS, browser_action, effect_summary, judge_effects
from tools.browser.effect.target import Effect, Mode
from tools.browser.network.url_policy import UrlRefused
from tools.browser.outcome.watch import UNREADABLE, Typed, Watch
from tools.browser.page import keys
from tools.browser.page.actionable import Budget, Element, connected
from tools.browser.page.again import NO_PAGE, find_again
from tools.browser.page.images import fit_scale
from tools.browser.page.refs import RefEntry
from tools.browser.page.snapshot import AriaNode, parse_snapshot
from tools.browser.runtime import BrowserRuntime
from tools.browser.session import BrowserSession
from tools.browser.tab import Tab
from tools.meaning import Found, TargetMeaning
from tools.outcome import Outcome
from tools.toolset_driver import Judged, ToolsetDriver, input_of

log = logging.getLogger(__name__)

__all__ = ["BrowserToolset"]

T = TypeVar("T")
# What the running call's approval covered (None: it was never described).
_approved: ContextVar[Approved | None] = ContextVar("deskhand_browser_approved", default=None)
# The running call's ref and the element it named when the call started (`_pin`).
_pinned: ContextVar[tuple[str, ElementHandle] | None] = ContextVar(
    "deskhand_browser_pinned", default=None
)
PIN_LIMIT = 5.0  # seconds to take hold of a ref's element; past that the ref is looked up later

SNAPSHOT_TIMEOUT_MS = 45_000
# Members whose effect on the page is looked at: the page before and after, settled (`outcome`).
ACTING_MEMBERS = frozenset(
    {"left_click", "right_click", "middle_click", "double_click", "triple_click", "type", "key"}
    | {"form_input", "navigate", "scroll_to", "hover", "left_click_drag", "left_mouse_up"}
)
# Members after which the page is always read again: what is under the pointer may change by
# CSS alone (a :hover menu), which the page's watcher cannot see.
POINTER_MEMBERS = frozenset({"hover", "left_click_drag", "left_mouse_up"})
# The running call's `Effect:` section, for its result (set by `_toolset_run`).
_effect_text: ContextVar[list[str] | None] = ContextVar("deskhand_browser_effect", default=None)


async def reading(tab: Tab, work: Awaitable[T]) -> T:
    """`work` of a member that only reads the page, with the tab's title read alongside it:
    the state report after the call then needs no round trip of its own."""
    result, tab.title_fresh = await asyncio.gather(work, tab.refresh_title())
    return result


class BrowserToolset(ToolsetDriver, BetaAsyncAbstractBrowserToolset20260801):
    """One chat session's browser toolset, without its members."""

    tool_use_union = BetaResponseBrowserToolUseBlock
    confirm_context = BetaConfirmContext
    title = "Browser"
    observe_effects = True  # look at each acting member's effect (bench turns it off to compare)

    def __init__(
        self,
        pool: BrowserRuntime,
        session: BrowserSession,
        *,
        confirm: BetaAsyncConfirmCallable | None,
        tool_configs: BetaToolConfigs | None = None,
    ) -> None:
        """The toolset over one session of `pool` (`BrowserPool.for_session` builds it).

        - `confirm`: the SDK's confirm callable, asked before every call (the app's gate);
          required when `javascript_exec` or `file_upload` is on.
        """
        self._pool = pool
        self._session = session
        self._confirm = confirm
        self._approved_calls = ApprovedCalls()
        config = pool.config
        self._config = config
        width, height = config.viewport
        self._scale = fit_scale(width, height)
        roots = [str(config.upload_dir)] if config.upload_dir is not None else []
        configs = {name: {"enabled": getattr(config, name)} for name in OPTIONAL_MEMBERS}
        super().__init__(
            configs=cast(BetaBrowserToolsetConfigsParam, configs),
            confirm=confirm,
            url_policy=self._check_url,
            file_policy=BetaLocalFilePolicy(
                upload_roots=roots,
                download_dir=config.downloads_dir,
                expose_download_paths=config.expose_download_paths,
            ),
            tool_configs=tool_configs,
        )

    # --- what the app reads --------------------------------------------------------------------

    @property
    def pool(self) -> BrowserRuntime:
        return self._pool

    @property
    def session_id(self) -> str:
        return self._session.key

    @property
    def confirm_hook(self) -> BetaAsyncConfirmCallable | None:
        return self._confirm

    @property
    def is_closed(self) -> bool:
        return self._toolset_closed

    def ref_label(self, ref: str) -> str | None:
        """The name of the element a ref points to, from the last read of its tab."""
        for tab in self._session.tabs.values():
            label = tab.refs.label(ref)
            if label is not None:
                return label
        return None

    async def judge(self, context: BetaConfirmContext) -> Judged:
        """The call `confirm` is asked about, judged from what it will act on in the page as it
        is now; remembered for the re-check before it acts."""
        member = context.member
        params = dict(input_of(context))
        tab = await self._existing_tab(context.input)
        effects: dict[int, Effect | None] = {}
        if member in EFFECT_MEMBERS:
            effects = await resolve_effects(member, context.input, tab, point=self._point)
        meaning = await target_meaning(member, context.input, tab, effects, point=self._point)
        risk, reason = judge_effects(member, list(effects.values()))
        url = tab.page.url if tab is not None else context.tab_url
        summary = effect_summary(member, params, url, effects, ref_label=self.ref_label)
        if context.tool_use is not None:
            approved = Approved(member=member, risk=risk, effects=effects)
            if tab is not None:
                approved = approved.model_copy(
                    update={
                        "tab_id": tab.tab_id,
                        "url": tab.page.url,
                        "generation": tab.refs.main_generation,
                    }
                )
            self._approved_calls.keep(context.tool_use.id, approved)
        return Judged(
            risk=risk,
            reason=reason,
            summary=summary,
            page=url,
            lands=lands(member, params, url, effects),
            meaning=meaning,
        )

    async def find_again(self, meaning: TargetMeaning, *, within: float) -> Found:
        """The element `meaning` names in the active tab as it is now, waited for up to `within`
        seconds, under a fresh ref the members act on (`page.again`)."""
        tab = await self._existing_tab(None)
        if tab is None:
            return Found(why=NO_PAGE)
        return await find_again(
            tab, meaning, within=within, read=self._snapshot, ref_of=self._ref_of(tab)
        )

    async def _existing_tab(self, input: object) -> Tab | None:
        """The tab a call addresses, without opening one (describing must not launch anything)."""
        if not self._session.launched:
            return None
        try:
            tab = await self._session.tab(getattr(input, "tab_id", None), create=False)
        except Exception:
            return None
        return None if tab.page.is_closed() else tab

    def retire(self) -> None:
        """Mark the toolset closed without waiting for calls in flight (at quit, with no loop)."""
        self._toolset_closed = True

    # --- the SDK's hooks -----------------------------------------------------------------------

    def _check_url(self, _context: BetaURLContext, url: str) -> None:
        try:
            self._pool.config.url_policy.check(url)
        except UrlRefused as refused:
            raise ToolError(refused.phrase) from None

    async def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        # A call the app will run again keeps the changes for the report of that run.
        drain = not self.changed_now()
        try:
            return await self._session.state(drain=drain)
        except Exception:
            # An exception here would stop the whole run; an empty report only loses one update.
            log.exception("Could not collect the browser state")
            return BetaBrowserState(tabs=[])

    async def execute(
        self,
        context: BetaToolsetCallContext,
        name: BetaBrowserMemberName,
        input: BetaBrowserMemberInput,
    ) -> Any:
        self.report_progress(
            lambda: browser_action(name, input.to_dict(), ref_label=self.ref_label)
        )
        self._session.titles_unread()  # a read stopped before its report leaves none behind
        use = context.tool_use
        token = _approved.set(self._approved_calls.take(use.id) if use is not None else None)
        pinned = await self._pin(input)
        pin = _pinned.set(pinned)
        try:
            if name in ACTING_MEMBERS and self.observe_effects:
                return await self._watched(context, name, input)
            return await super().execute(context, name, input)
        except (ToolError, ToolsetUsageError):
            raise
        except errors.PageChanged as exc:
            if exc.partly_done:
                raise errors.refusal(errors.PAGE_CHANGED_MIDWAY) from exc
            self.mark_changed()
            raise errors.refusal(errors.PAGE_CHANGED) from exc
        except keys.UnknownKey as exc:
            raise errors.refusal(errors.UNKNOWN_KEY) from exc
        except Exception as exc:
            raise errors.from_playwright(exc, navigating=name == "navigate") from exc
        finally:
            _pinned.reset(pin)
            _approved.reset(token)
            if pinned is not None:
                with contextlib.suppress(PlaywrightError):
                    await pinned[1].dispose()

    async def _pin(self, input: object) -> tuple[str, ElementHandle] | None:
        """Take hold of the element a call's ref names, before anything reads the page again.

        Reading the page's aria tree (what an action did is read before and after it) numbers
        Playwright's refs anew, and an element missing from that read (hidden for a moment,
        about to come back) could no longer be found under its ref. Held, it is acted on once
        it can be, and known to be gone when it is. None: no ref, or not found now (then the
        member looks it up itself and says why not)."""
        target = getattr(input, "target", None)
        if getattr(target, "type", None) != "ref":
            return None
        ref = str(getattr(target, "ref", ""))
        tab = await self._existing_tab(input)
        located = ref_locator(tab, ref) if tab is not None else None
        if located is None:
            return None
        locator = located[0]
        try:
            if await asyncio.wait_for(locator.count(), PIN_LIMIT) != 1:
                return None
            handle = await locator.element_handle(timeout=PIN_LIMIT * 1000)
        except (PlaywrightError, TimeoutError):
            return None
        return ref, handle

    async def _toolset_run(self, context: BetaToolsetCallContext, name: str, input: Any) -> Any:
        """The SDK's pipeline for one call, with the member's `Effect:` section put in the result
        the model reads, right before the tabs' state."""
        effect: list[str] = []
        token = _effect_text.set(effect)
        try:
            content = await super()._toolset_run(context, name, input)
        finally:
            _effect_text.reset(token)
        if not effect:
            return content
        blocks = list(content)
        at = next(
            (i for i, block in enumerate(blocks) if block.get("type") == "browser_state"),
            len(blocks),
        )
        blocks.insert(at, {"type": "text", "text": effect[0]})
        return blocks

    # --- what an action did --------------------------------------------------------------------

    async def _watched(
        self, context: BetaToolsetCallContext, name: BetaBrowserMemberName, input: Any
    ) -> Any:
        """The member, with the page looked at before and after it: its outcome is reported
        (`report_outcome`) and its `Effect:` section goes in the result."""
        before_tab = await self._existing_tab(input)
        watch = await Watch.before(self._session, before_tab, read=name != "navigate")
        result = await super().execute(context, name, input)
        tab = before_tab or await self._existing_tab(input)
        if tab is None:
            return result
        try:
            outcome = await watch.outcome(
                tab,
                ref_of=self._ref_of(tab),
                typed=self._typed(name, input, tab),
                pointer=name in POINTER_MEMBERS,
            )
        except Exception:
            # The action ran: a failure to look at it afterwards must not turn it into an error.
            log.exception("Could not read what a browser action did")
            outcome = Outcome(kind="unconfirmed", note=UNREADABLE)
        self.report_outcome(outcome)
        effect = _effect_text.get()
        if effect is not None:
            effect[:] = [outcome.effect_text()]
        return result

    @staticmethod
    def _typed(name: str, input: Any, tab: Tab) -> Typed | None:
        """What a typing member meant the field to hold, to read it back."""
        if name == "type":
            return Typed(text=str(input.text), replaces=False)
        if name == "form_input" and isinstance(input.value, str):
            entry = tab.refs.resolve(input.target.ref)
            return Typed(input.value, replaces=True, pw_ref=entry.pw_ref if entry else None)
        return None

    # --- helpers -------------------------------------------------------------------------------

    async def _tab(self, input: object) -> Tab:
        return await self._session.tab(getattr(input, "tab_id", None))

    def _point(self, target: BetaBrowserCoordinateTarget) -> tuple[float, float]:
        """A screenshot coordinate as a viewport coordinate, refusing points off the viewport."""
        width, height = self._config.viewport
        x, y = target.x / self._scale, target.y / self._scale
        if not (0 <= x <= width and 0 <= y <= height):
            raise errors.refusal(errors.OUTSIDE_VIEWPORT)
        return x, y

    async def _locator(self, tab: Tab, ref: str) -> Element:
        return (await self._locate(tab, ref))[0]

    async def _locate(self, tab: Tab, ref: str) -> tuple[Element, RefEntry]:
        """The element a ref names, refused when the ref is unknown here or its element has
        left the page (a removed element never comes back under its ref: not waited for)."""
        located = ref_locator(tab, ref)
        if located is None:
            raise self._refused(errors.STALE_REF)
        locator, entry = located
        pinned = _pinned.get()
        if pinned is not None and pinned[0] == ref:
            if not await connected(pinned[1]):
                raise self._refused(errors.DETACHED)
            return pinned[1], entry
        found = await locator.count()
        if found == 0:
            raise self._refused(errors.DETACHED)
        if found > 1:
            raise self._refused(errors.AMBIGUOUS_REF)
        return locator, entry

    def _budget(self) -> Budget:
        """The time the member starting now may wait for its target (Settings → Browser)."""
        return Budget.start(self._config.action_timeout)

    @classmethod
    def _refused(cls, phrase: str) -> ToolError:
        """The member did nothing, for the reason `phrase` gives: reported as its outcome, and
        the error the model reads."""
        cls.report_outcome(Outcome(kind="refused", note=phrase))
        return errors.refusal(phrase)

    # --- the re-check before acting ------------------------------------------------------------

    @staticmethod
    def _page_unchanged(tab: Tab) -> Approved | None:
        """What the running call's approval covered, after checking the tab still shows the
        page it was for."""
        approved = _approved.get()
        if approved is not None:
            approved.check_page(tab)
        return approved

    async def _target_unchanged(
        self,
        tab: Tab,
        target: Any,
        *,
        step: int = 0,
        mode: Mode = "click",
        always: bool = False,
        located: tuple[Element, RefEntry] | None = None,
    ) -> Effect | None:
        """The effect on `target` now (resolved as `judge` resolved it), refused if it is not
        the one approved. Resolved only when there is an approval to hold it to, or `always` (the
        password checks need it). `located`: the ref's element, when already looked up."""
        approved = self._page_unchanged(tab)
        if approved is None and not always:
            return None
        effect = await effect_of_target(tab, target, point=self._point, mode=mode, located=located)
        if approved is not None:
            approved.check(step, effect, strict=True)
        return effect

    async def _focus_allows(
        self, tab: Tab, chord: list[str], step: int, approved: Approved | None, *, strict: bool
    ) -> None:
        """Before one chord: never text into a password field, and no activation beyond the
        approval. The focus is read anew each time: a page may move it between two keys."""
        activation = keys.activation(chord)
        typing = keys.is_text_entry(chord)
        if activation is None and not typing:
            return
        effect = await tab.inspector.focused(activation or "type")
        if typing and effect is None:
            raise errors.refusal(errors.FOCUS_UNKNOWN)
        if typing and effect is not None and effect.password:
            raise errors.refusal(errors.PASSWORD_FIELD)
        if activation is not None and approved is not None:
            approved.check(step, effect, strict=strict, partly_done=step > 0)

    async def _snapshot(self, tab: Tab, *, boxes: bool = False) -> tuple[AriaNode, set[str]]:
        """The page's aria tree, for members that only read the page. `boxes`, needed only to
        tell what is on screen, costs extra time."""
        root = parse_snapshot(await self._snapshot_text(tab, boxes=boxes))
        return root, await secret_refs(tab.page, root.walk())

    @staticmethod
    async def _snapshot_text(tab: Tab, *, boxes: bool = False) -> str:
        """The snapshot's text, for members that only read the page (see `reading`)."""
        # A page with tens of thousands of elements takes seconds to snapshot on a busy machine.
        snapshot = tab.page.aria_snapshot(mode="ai", boxes=boxes, timeout=SNAPSHOT_TIMEOUT_MS)
        return await reading(tab, snapshot)

    @staticmethod
    def _ref_of(tab: Tab) -> Callable[[AriaNode], str]:
        def ref_of(node: AriaNode) -> str:
            assert node.pw_ref is not None
            return tab.refs.ref_for(node.pw_ref, node.role, node.name)

        return ref_of

    async def _press(self, tab: Tab, chord: list[str]) -> None:
        keyboard = tab.page.keyboard
        *held, last = chord
        for key in held:
            await keyboard.down(key)
        try:
            await keyboard.press(last)
        finally:
            for key in reversed(held):
                await keyboard.up(key)
