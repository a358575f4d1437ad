"""`PlaywrightBrowser`: the SDK's browser toolset (`browser_toolset_20260801`) driven by Playwright.

How the app uses it (the SDK validates inputs, runs the URL policy and `confirm`, renders
results; this class only implements the members):

    pool = BrowserPool(BrowserConfig(downloads_dir=..., url_policy=UrlPolicy(...)))
    browser = pool.for_session(session_id, confirm=gate_for(session_id))  # one per chat
    tools = [browser.to_dict(), *function_tools]      # or pass `browser` itself in tools=[...]
    ...
    for use in message.content:                       # tool_use blocks of the reply
        if use.type == "tool_use" and use.toolset_name == browser.toolset_name:   # "browser"
            with progress_scope(card.progress):       # optional: "Browser: click 'Sign in'"
                result = await browser.tool_result(use)   # the finished tool_result block param
    await pool.close_session(session_id); await pool.close()

`tool_result(use)` never raises for the model's mistakes or the page's failures: refusals
and errors come back as `is_error` results with fixed phrases (only the SDK's
`ToolsetUsageError`, a bug in the calling code, propagates). After an error, the app
answers the turn's later browser calls with the SDK's "Not executed" result, as the SDK
guide shows. `confirm(context)` (sync or async) receives a `BetaConfirmContext` (member,
parsed input, tab_id, tab_url of the last report, tool_use) and must return True to run
the call; it does not say which chat the call is for, hence one confirm per session (pass
the same callable each time: a different one rebuilds the toolset).

`await describe(context)` gives the gate (risk, reason, summary) for the call `confirm` is
asked about, e.g. ("consequential", ..., "Click 'Buy now' (button) on shop.example"). It
resolves the element the call will really act on (however it is addressed: ref, point, the
focus a key lands on) and judges that; the driver keeps what was described, and right before
acting resolves it again: if the page or the element changed meanwhile, the call is refused
with a fixed phrase (`errors.PAGE_CHANGED`) rather than done on something nobody approved,
and `changed_since_described(tool_use_id)` tells the app so, which then runs the call again:
`confirm` describes it on the page as it now is and asks anew.
A confirm that never calls `describe` approves without that re-check.

A standalone `PlaywrightBrowser(**options)` owns a private `BrowserRuntime` (one session);
`close()` closes it. A pooled instance's `close()` only retires the toolset: the pool owns the browser.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from anthropic.tools import ToolError, ToolsetUsageError
from anthropic.tools.browser import (
    BetaAsyncAbstractBrowserToolset20260801,
    BetaAsyncConfirmCallable,
    BetaBrowserNavigateResult,
    BetaBrowserState,
    BetaConfirmContext,
    BetaLocalFilePolicy,
    BetaScreenshotResult,
    BetaToolConfigs,
    BetaToolsetCallContext,
    BetaURLContext,
    beta_check_upload_path,
)
from anthropic.types.beta import (
    BetaBrowserCloseTabInput,
    BetaBrowserCoordinateTarget,
    BetaBrowserDoubleClickInput,
    BetaBrowserFileUploadInput,
    BetaBrowserFindInput,
    BetaBrowserFormInputInput,
    BetaBrowserGetPageTextInput,
    BetaBrowserHoldKeyInput,
    BetaBrowserHoverInput,
    BetaBrowserJavascriptExecInput,
    BetaBrowserKeyInput,
    BetaBrowserLeftClickDragInput,
    BetaBrowserLeftClickInput,
    BetaBrowserLeftMouseDownInput,
    BetaBrowserLeftMouseUpInput,
    BetaBrowserListTabsInput,
    BetaBrowserMemberInput,
    BetaBrowserMemberName,
    BetaBrowserMiddleClickInput,
    BetaBrowserMouseMoveInput,
    BetaBrowserNavigateInput,
    BetaBrowserNewTabInput,
    BetaBrowserReadConsoleInput,
    BetaBrowserReadNetworkInput,
    BetaBrowserReadPageInput,
    BetaBrowserRightClickInput,
    BetaBrowserScreenshotInput,
    BetaBrowserScrollInput,
    BetaBrowserScrollToInput,
    BetaBrowserStateTabEntryParam,
    BetaBrowserSwitchTabInput,
    BetaBrowserToolsetConfigsParam,
    BetaBrowserTripleClickInput,
    BetaBrowserTypeInput,
    BetaBrowserWaitInput,
    BetaBrowserZoomInput,
)
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from tools.browser import errors
from tools.browser.config import BrowserConfig, default_downloads_dir
from tools.browser.effect.approval import (
    Plan,
    Plans,
    effect_of_target,
    key_chords,
    ref_locator,
    resolve_effects,
)
from tools.browser.effect.destination import lands
from tools.browser.effect.passwords import is_password, secret_refs
from tools.browser.effect.risk import (
    EFFECT_MEMBERS,
    browser_action,
    browser_risk,
    browser_summary,
    effect_summary,
    judge_effects,
)
from tools.browser.effect.target import Effect, Mode
from tools.browser.network.check import Resolver
from tools.browser.network.proxy import NETWORK_ERROR_HEADER
from tools.browser.network.url_policy import UrlPolicy, UrlRefused
from tools.browser.page import keys
from tools.browser.page.controls import read_controls
from tools.browser.page.forms import set_field
from tools.browser.page.images import fit_scale, png_within_limits
from tools.browser.page.observe import DEFAULT_DEPTH, find_elements, render_page
from tools.browser.page.refs import RefEntry
from tools.browser.page.snapshot import AriaNode, parse_snapshot, release
from tools.browser.page.text import PAGE_TEXT_SCRIPT, RUN_SCRIPT, bound_text
from tools.browser.runtime import BrowserRuntime
from tools.browser.session import BrowserSession
from tools.browser.tab import Tab

log = logging.getLogger(__name__)

__all__ = ["PlaywrightBrowser", "Progress", "progress_scope"]

Progress = Callable[[str], None]
T = TypeVar("T")
_progress: ContextVar[Progress | None] = ContextVar("deskhand_browser_progress", default=None)
# The plan the running call was approved under (None: it was never described).
_plan: ContextVar[Plan | None] = ContextVar("deskhand_browser_plan", default=None)


@contextlib.contextmanager
def progress_scope(callback: Progress | None) -> Iterator[None]:
    """Send the progress lines of the browser calls awaited inside this block to `callback`."""
    token = _progress.set(callback)
    try:
        yield
    finally:
        _progress.reset(token)


WHEEL_NOTCH = 100  # pixels per scroll-wheel notch, as Chromium scrolls on Linux and Windows
MAX_DURATION = 30.0
SCRIPT_TIMEOUT = 30.0
ZOOM_UPSCALE = 4.0
LOG_CAP = 20_000
SNAPSHOT_TIMEOUT_MS = 45_000
CHANGED_KEPT = 64  # refusals for a changed page an app never asked about are dropped after this
MouseButton = Literal["left", "middle", "right"]
TYPE_CHUNK = 16  # characters typed between two checks of the focus
INSERT_CHUNK = 500  # the same, for long text inserted at once
# Form fields form_input sets itself; on anything else Playwright would follow a label.
FIELD_ROLES = frozenset(
    {"textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "switch", "slider"}
    | {"spinbutton", "option", "menuitemcheckbox", "menuitemradio"}
)


async def _reading(tab: Tab, work: Awaitable[T]) -> T:
    """`work` of a member that only reads the page, with the tab's title read alongside it:
    the state report after the call then needs no round trip of its own."""
    result, tab.title_fresh = await asyncio.gather(work, tab.refresh_title())
    return result


class PlaywrightBrowser(BetaAsyncAbstractBrowserToolset20260801):
    """Every member of the browser toolset, on one chat session's tabs."""

    def __init__(
        self,
        *,
        executable_path: str | None = None,
        channel: str | None = None,
        headless: bool = False,
        profile_dir: Path | None = None,
        url_policy: UrlPolicy | None = None,
        confirm: BetaAsyncConfirmCallable | None = None,
        downloads_dir: Path | None = None,
        upload_dir: Path | None = None,
        expose_download_paths: bool = False,
        read_console: bool = False,
        read_network: bool = False,
        javascript_exec: bool = False,
        file_upload: bool = False,
        viewport: tuple[int, int] = (1280, 800),
        progress: Progress | None = None,
        tool_configs: BetaToolConfigs | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        """A browser with its own private pool. Options are those of `BrowserConfig`, plus:

        - `confirm`: the SDK's confirm callable, asked before every call (the app's gate);
          required when `javascript_exec` or `file_upload` is on.
        - `progress`: called with one line ("Browser: click 'Sign in'") as each member starts.
        - `resolver`: host-name lookup for the request guard (tests); the system's by default.
        """
        config = BrowserConfig(
            executable_path=executable_path,
            channel=channel,
            headless=headless,
            profile_dir=profile_dir,
            url_policy=url_policy or UrlPolicy(),
            downloads_dir=downloads_dir or default_downloads_dir(),
            upload_dir=upload_dir,
            expose_download_paths=expose_download_paths,
            read_console=read_console,
            read_network=read_network,
            javascript_exec=javascript_exec,
            file_upload=file_upload,
            viewport=viewport,
        )
        pool = BrowserRuntime(config, resolver=resolver)
        self._setup(pool, pool.session("default"), confirm, progress, tool_configs, owns_pool=True)

    @classmethod
    def _bound(
        cls,
        pool: BrowserRuntime,
        session: BrowserSession,
        *,
        confirm: BetaAsyncConfirmCallable | None,
        progress: Progress | None,
        tool_configs: BetaToolConfigs | None = None,
    ) -> PlaywrightBrowser:
        """A toolset over a pool's session (what `BrowserPool.for_session` returns)."""
        self = cls.__new__(cls)
        self._setup(pool, session, confirm, progress, tool_configs, owns_pool=False)
        return self

    def _setup(
        self,
        pool: BrowserRuntime,
        session: BrowserSession,
        confirm: BetaAsyncConfirmCallable | None,
        progress: Progress | None,
        tool_configs: BetaToolConfigs | None,
        *,
        owns_pool: bool,
    ) -> None:
        self._pool = pool
        self._session = session
        self._owns_pool = owns_pool
        self._confirm = confirm
        self._plans = Plans()
        # Calls refused, nothing done, because the page changed after they were described.
        self._changed: OrderedDict[str, bool] = OrderedDict()
        self.progress = progress
        config = pool.config
        self._config = config
        width, height = config.viewport
        self._scale = fit_scale(width, height)
        roots = [str(config.upload_dir)] if config.upload_dir is not None else []
        configs = {
            name: {"enabled": getattr(config, name)}
            for name in ("read_console", "read_network", "javascript_exec", "file_upload")
        }
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

    def risk(self, member: str, input: Mapping[str, Any]) -> tuple[str, str]:
        return browser_risk(member, input, ref_label=self.ref_label)

    def summary(self, member: str, input: Mapping[str, Any], url: str | None = None) -> str:
        return browser_summary(member, input, url, ref_label=self.ref_label)

    def changed_since_described(self, tool_use_id: str) -> bool:
        """Whether that call was refused, nothing done, because what it would act on changed
        after `describe` (asked once: the app then describes it again and asks again)."""
        return self._changed.pop(tool_use_id, False)

    async def describe(self, context: BetaConfirmContext) -> tuple[str, str, str, list[str]]:
        """(risk, reason, summary, where else it lands) for the call `confirm` is asked about,
        judged from what it will act on in the page as it is now; remembered for the re-check
        before it acts."""
        member = context.member
        params = context.input.to_dict()
        tab = await self._existing_tab(context.input)
        effects: dict[int, Effect | None] = {}
        if member in EFFECT_MEMBERS:
            effects = await resolve_effects(member, context.input, tab, point=self._point)
        risk, reason = judge_effects(member, list(effects.values()))
        url = tab.page.url if tab is not None else context.tab_url
        summary = effect_summary(member, params, url, effects, ref_label=self.ref_label)
        if context.tool_use is not None:
            plan = Plan(member=member, risk=risk, effects=effects)
            if tab is not None:
                plan = plan.model_copy(
                    update={
                        "tab_id": tab.tab_id,
                        "url": tab.page.url,
                        "generation": tab.refs.main_generation,
                    }
                )
            self._plans.keep(context.tool_use.id, plan)
        return risk, reason, summary, lands(member, params, url, effects)

    async def _existing_tab(self, input: object) -> Tab | None:
        """The tab a call addresses, without opening one (describing must not launch anything)."""
        if not self._session.launched:
            return None
        try:
            tab = await self._session.tab(getattr(input, "tab_id", None), create=False)
        except Exception:
            return None
        return None if tab.page.is_closed() else tab

    async def close(self) -> None:
        """Retire the toolset; a standalone one also closes its browser."""
        await super().close()
        if self._owns_pool:
            await self._pool.close()

    async def close_toolset_only(self) -> None:
        await super().close()

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
        use = context.tool_use
        # A call the app will run again keeps the changes for the report of that run.
        drain = use is None or use.id not in self._changed
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
        self._report_progress(name, input)
        self._session.titles_unread()  # a read stopped before its report leaves none behind
        use = context.tool_use
        token = _plan.set(self._plans.take(use.id) if use is not None else None)
        try:
            return await super().execute(context, name, input)
        except (ToolError, ToolsetUsageError):
            raise
        except errors.PageChanged as exc:
            if exc.partly_done:
                raise errors.refusal(errors.PAGE_CHANGED_MIDWAY) from exc
            if use is not None:
                self._changed[use.id] = True
                while len(self._changed) > CHANGED_KEPT:
                    self._changed.popitem(last=False)
            raise errors.refusal(errors.PAGE_CHANGED) from exc
        except keys.UnknownKey as exc:
            raise errors.refusal(errors.UNKNOWN_KEY) from exc
        except Exception as exc:
            raise errors.from_playwright(exc, navigating=name == "navigate") from exc
        finally:
            _plan.reset(token)

    def _report_progress(self, name: str, input: BetaBrowserMemberInput) -> None:
        callback = _progress.get() or self.progress
        if callback is None:
            return
        try:
            line = "Browser: " + browser_action(name, input.to_dict(), ref_label=self.ref_label)
            callback(line)
        except Exception:
            log.exception("The browser progress callback failed")

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

    async def _locator(self, tab: Tab, ref: str) -> Locator:
        return (await self._locate(tab, ref))[0]

    async def _locate(self, tab: Tab, ref: str) -> tuple[Locator, RefEntry]:
        located = ref_locator(tab, ref)
        if located is None:
            raise errors.refusal(errors.STALE_REF)
        locator, entry = located
        found = await locator.count()
        if found == 0:
            raise errors.refusal(errors.STALE_REF)
        if found > 1:
            raise errors.refusal(errors.AMBIGUOUS_REF)
        return locator, entry

    # --- the re-check before acting ------------------------------------------------------------

    @staticmethod
    def _page_unchanged(tab: Tab) -> Plan | None:
        """The running call's plan, after checking the tab still shows the page it was for."""
        plan = _plan.get()
        if plan is not None:
            plan.check_page(tab)
        return plan

    async def _target_unchanged(
        self,
        tab: Tab,
        target: Any,
        *,
        step: int = 0,
        mode: Mode = "click",
        always: bool = False,
        located: tuple[Locator, RefEntry] | None = None,
    ) -> Effect | None:
        """The effect on `target` now (resolved as `describe` resolved it), refused if it is not
        the one approved. Resolved only when there is a plan to hold it to, or `always` (the
        password checks need it). `located`: the ref's element, when already looked up."""
        plan = self._page_unchanged(tab)
        if plan is None and not always:
            return None
        effect = await effect_of_target(tab, target, point=self._point, mode=mode, located=located)
        if plan is not None:
            plan.check(step, effect, strict=True)
        return effect

    async def _focus_allows(
        self, tab: Tab, chord: list[str], step: int, plan: Plan | None, *, strict: bool
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
        if activation is not None and plan is not None:
            plan.check(step, effect, strict=strict, partly_done=step > 0)

    async def _snapshot(self, tab: Tab, *, boxes: bool = False) -> tuple[AriaNode, set[str]]:
        """The page's aria tree, for members that only read the page. `boxes`, needed only to
        tell what is on screen, costs extra time."""
        root = parse_snapshot(await self._snapshot_text(tab, boxes=boxes))
        return root, await secret_refs(tab.page, root.walk())

    @staticmethod
    async def _snapshot_text(tab: Tab, *, boxes: bool = False) -> str:
        """The snapshot's text, for members that only read the page (see `_reading`)."""
        # A page with tens of thousands of elements takes seconds to snapshot on a busy machine.
        snapshot = tab.page.aria_snapshot(mode="ai", boxes=boxes, timeout=SNAPSHOT_TIMEOUT_MS)
        return await _reading(tab, snapshot)

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
            raise errors.refusal(errors.TARGET_UNKNOWN)
        if button == "middle" and effect is not None and effect.password:
            raise errors.refusal(errors.PASSWORD_FIELD)
        before = tab.nav_requests
        if located is not None:
            await located[0].click(
                button=button, click_count=count, modifiers=cast(Any, modifiers), timeout=5000
            )
        elif target.type == "coordinate":
            x, y = self._point(target)
            for key in modifiers:
                await tab.page.keyboard.down(key)
            try:
                await tab.page.mouse.click(x, y, button=button, click_count=count)
            finally:
                for key in reversed(modifiers):
                    await tab.page.keyboard.up(key)
        await tab.settle(before)

    # --- members: navigation -------------------------------------------------------------------

    async def navigate(
        self, context: BetaToolsetCallContext, input: BetaBrowserNavigateInput
    ) -> BetaBrowserNavigateResult:
        tab = await self._tab(input)
        page = tab.page
        response = None
        word = input.url
        if word in ("back", "forward", "reload"):
            before = page.url
            if word == "back":
                response = await page.go_back(wait_until="domcontentloaded")
                if response is None and page.url == before:
                    raise errors.refusal(errors.NO_HISTORY_BACK)
            elif word == "forward":
                response = await page.go_forward(wait_until="domcontentloaded")
                if response is None and page.url == before:
                    raise errors.refusal(errors.NO_HISTORY_FORWARD)
            else:
                response = await page.reload(wait_until="domcontentloaded")
        else:
            try:
                target = self._pool.config.url_policy.check(input.url)
            except UrlRefused as refused:
                raise errors.refusal(refused.phrase) from None
            tab.refused = False
            downloads_before = self._download_count()
            try:
                response = await page.goto(target, wait_until="domcontentloaded")
            except PlaywrightError as exc:
                if tab.refused:
                    raise errors.refusal(errors.NAV_REFUSED) from exc
                if self._download_count() > downloads_before:
                    raise errors.refusal(errors.DOWNLOAD_INSTEAD) from exc
                raise errors.from_playwright(exc, navigating=True) from exc
        if response is not None:
            code = response.headers.get(NETWORK_ERROR_HEADER.lower())
            if code:  # the egress proxy answered for a site it could not or would not reach
                raise errors.refusal(errors.NET_PHRASES.get(code, errors.GENERIC_NET))
        with contextlib.suppress(PlaywrightError):
            await page.wait_for_load_state("load", timeout=2000)
        await tab.refresh_title()
        return BetaBrowserNavigateResult(
            url=page.url, status=response.status if response is not None else None, title=tab.title
        )

    def _download_count(self) -> int:
        return sum(
            1
            for change in self._session.changes
            if isinstance(change, dict) and change.get("type") == "download_started"
        )

    # --- members: seeing -----------------------------------------------------------------------

    async def screenshot(
        self, context: BetaToolsetCallContext, input: BetaBrowserScreenshotInput
    ) -> BetaScreenshotResult:
        tab = await self._tab(input)
        png = await tab.page.screenshot(type="png", animations="disabled", caret="initial")
        if self._scale >= 0.999:
            return BetaScreenshotResult(data=base64.b64encode(png).decode("ascii"))
        data, media_type = await asyncio.to_thread(png_within_limits, png, self._scale)
        return BetaScreenshotResult(data=data, media_type=cast(Any, media_type))

    async def zoom(
        self, context: BetaToolsetCallContext, input: BetaBrowserZoomInput
    ) -> BetaScreenshotResult:
        tab = await self._tab(input)
        width, height = self._config.viewport
        if len(input.region) != 4:
            raise errors.refusal(errors.BAD_REGION)
        x0, y0, x1, y1 = (value / self._scale for value in input.region)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
        if x1 - x0 < 1 or y1 - y0 < 1:
            raise errors.refusal(errors.BAD_REGION)
        scale = fit_scale(x1 - x0, y1 - y0, upscale_limit=ZOOM_UPSCALE) * 0.999
        if tab.cdp is not None:
            # Rendered at the higher scale, so small text gains real detail rather than blur.
            metrics = await tab.cdp.send("Page.getLayoutMetrics")
            viewport = metrics["cssVisualViewport"]
            clip = {
                "x": x0 + viewport["pageX"],
                "y": y0 + viewport["pageY"],
                "width": x1 - x0,
                "height": y1 - y0,
                "scale": scale,
            }
            shot = await tab.cdp.send("Page.captureScreenshot", {"format": "png", "clip": clip})
            png = base64.b64decode(shot["data"])
            data, media_type = await asyncio.to_thread(png_within_limits, png, 1.0)
        else:
            png = await tab.page.screenshot(
                type="png", clip={"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}
            )
            data, media_type = await asyncio.to_thread(png_within_limits, png, scale)
        return BetaScreenshotResult(data=data, media_type=cast(Any, media_type))

    async def read_page(
        self, context: BetaToolsetCallContext, input: BetaBrowserReadPageInput
    ) -> str:
        tab = await self._tab(input)
        if input.filter == "interactive" and not input.ref:
            return await read_controls(
                tab.page,
                await self._snapshot_text(tab),
                depth=DEFAULT_DEPTH if input.depth is None else max(input.depth, 0),
                ref_of=self._ref_of(tab),
            )
        # A big page is tens of thousands of nodes per read (parsed with the collector paused):
        # with their links cut after, refcounting frees them and no full collection has to.
        root, secret = await self._snapshot(tab, boxes=input.filter is None)
        try:
            shown = root
            if input.ref:
                entry = tab.refs.resolve(input.ref)
                node = None
                if entry is not None:
                    node = next((n for n in root.walk() if n.pw_ref == entry.pw_ref), None)
                if node is None:
                    raise errors.refusal(errors.STALE_REF)
                shown = AriaNode(role="document", children=[node])
            return render_page(
                shown,
                ref_of=self._ref_of(tab),
                secret=secret,
                filter=input.filter,
                depth=input.depth,
                viewport=self._config.viewport,
            )
        finally:
            release(root)

    async def find(self, context: BetaToolsetCallContext, input: BetaBrowserFindInput) -> str:
        tab = await self._tab(input)
        root, secret = await self._snapshot(tab)
        return find_elements(root, input.query, ref_of=self._ref_of(tab), secret=secret)

    async def get_page_text(
        self, context: BetaToolsetCallContext, input: BetaBrowserGetPageTextInput
    ) -> str:
        tab = await self._tab(input)
        text = await _reading(tab, tab.page.evaluate(PAGE_TEXT_SCRIPT))
        return bound_text(str(text or ""), what="page text")

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
        tab = await self._tab(input)
        target = input.target
        if target.type == "ref":
            await (await self._locator(tab, target.ref)).hover(timeout=5000)
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
        before = tab.nav_requests
        await tab.page.mouse.move(*point)
        await tab.page.mouse.up()
        tab.pointer_down = None
        await tab.settle(before)

    @staticmethod
    def _refuse_drop(start: Effect | None, end: Effect | None) -> None:
        """A drag that ends on a password field would drop its text there: refused. (Pressing
        and releasing on the same password field only focuses it.)"""
        if end is None:
            raise errors.refusal(errors.TARGET_UNKNOWN)
        if not end.password:
            return
        if start is None or start.node is None or start.node != end.node:
            raise errors.refusal(errors.PASSWORD_FIELD)

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
        tab = await self._tab(input)
        await (await self._locator(tab, input.target.ref)).scroll_into_view_if_needed(timeout=5000)

    # --- members: keyboard and forms -------------------------------------------------------------

    async def type(self, context: BetaToolsetCallContext, input: BetaBrowserTypeInput) -> None:
        tab = await self._tab(input)
        plan = self._page_unchanged(tab)
        keyboard = tab.page.keyboard
        # One input event per long chunk instead of hundreds of key events: seconds faster.
        inserting = len(input.text) > 200
        before = tab.nav_requests
        for index, chunk in enumerate(_chunks(input.text, inserting=inserting)):
            enter = not inserting and chunk in ("\n", "\r")
            if index == 0 or not enter:
                # The field typed into: the approved one at first, never a password field.
                field = await tab.inspector.focused("type")
                if field is None:
                    raise errors.refusal(errors.FOCUS_UNKNOWN)
                if field.password and not enter:
                    raise errors.refusal(errors.PASSWORD_FIELD)
                if index == 0 and plan is not None:
                    plan.check(0, field, strict=True)
                elif plan is not None:  # later chunks: still the field that was approved
                    plan.check_field(0, field, partly_done=True)
            if enter:
                pressed = await tab.inspector.focused("enter")
                if plan is not None:
                    plan.check(1, pressed, strict=False, partly_done=index > 0)
            if inserting:
                await keyboard.insert_text(chunk)
            else:
                await keyboard.type(chunk)
        await tab.settle(before)

    async def key(self, context: BetaToolsetCallContext, input: BetaBrowserKeyInput) -> None:
        tab = await self._tab(input)
        chords = keys.parse_sequence(input.text)
        repeat = max(1, min(100, input.repeat or 1))
        plan = self._page_unchanged(tab)
        foreseen = len(key_chords(input.text, input.repeat))
        before = tab.nav_requests
        step = 0
        for _ in range(repeat):
            for chord in chords:
                # Steps past those the approval foresaw are held to its risk like unforeseen ones.
                held = plan
                if plan is not None and step >= foreseen:
                    held = plan.model_copy(update={"effects": {}})
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
        plan = self._page_unchanged(tab)
        await self._focus_allows(tab, chord, 0, plan, strict=True)
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
            raise errors.refusal(errors.TARGET_UNKNOWN)
        if effect.password or await is_password(locator):
            raise errors.refusal(errors.PASSWORD_FIELD)
        if effect.input_type == "file":
            raise errors.refusal(errors.USE_FILE_UPLOAD)
        if entry.role not in FIELD_ROLES and not effect.editable and effect.tag != "select":
            raise errors.refusal(errors.NOT_A_FORM_FIELD)
        await set_field(locator, entry.role, input.value)

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
        tab = await self._tab(input)
        locator = await self._locator(tab, input.target.ref)
        if (await locator.get_attribute("type") or "").strip().lower() != "file":
            raise errors.refusal(errors.NOT_A_FILE_INPUT)
        await locator.set_input_files(vetted, timeout=5000)

    # --- members: time, tabs, developer tools --------------------------------------------------

    async def wait(self, context: BetaToolsetCallContext, input: BetaBrowserWaitInput) -> None:
        if not 0 <= input.duration <= MAX_DURATION:
            raise errors.refusal(errors.DURATION_TOO_LONG)
        await asyncio.sleep(input.duration)

    async def new_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserNewTabInput
    ) -> BetaBrowserStateTabEntryParam:
        tab = await self._session.new_tab()
        return tab.entry(active=True)

    async def list_tabs(
        self, context: BetaToolsetCallContext, input: BetaBrowserListTabsInput
    ) -> list[BetaBrowserStateTabEntryParam]:
        active = self._session.active
        return [tab.entry(active=tab.tab_id == active) for tab in self._session.tabs.values()]

    async def switch_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserSwitchTabInput
    ) -> BetaBrowserStateTabEntryParam:
        return self._session.switch(input.tab_id).entry(active=True)

    async def close_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserCloseTabInput
    ) -> None:
        await self._session.close_tab(input.tab_id)

    async def read_console(
        self, context: BetaToolsetCallContext, input: BetaBrowserReadConsoleInput
    ) -> str:
        tab = await self._tab(input)
        lines = list(tab.console)
        tab.console.clear()
        if not lines:
            return "(no console messages since the last read)"
        return bound_text("\n".join(lines), what="console output", cap=LOG_CAP)

    async def read_network(
        self, context: BetaToolsetCallContext, input: BetaBrowserReadNetworkInput
    ) -> str:
        tab = await self._tab(input)
        await tab.logged()  # a request that just finished is still being written down
        lines = list(tab.network)
        tab.network.clear()
        if not lines:
            return "(no network requests since the last read)"
        return bound_text("\n".join(lines), what="network log", cap=LOG_CAP)

    async def javascript_exec(
        self, context: BetaToolsetCallContext, input: BetaBrowserJavascriptExecInput
    ) -> str:
        tab = await self._tab(input)
        before = tab.nav_requests
        try:
            # The model's code travels as an argument and runs through indirect eval: it is
            # never spliced into the driver's own script.
            outcome = await asyncio.wait_for(
                tab.page.evaluate(RUN_SCRIPT, input.text), SCRIPT_TIMEOUT
            )
        except TimeoutError as exc:
            raise errors.refusal(errors.SCRIPT_TIMEOUT) from exc
        await tab.settle(before)
        if not isinstance(outcome, dict) or not outcome.get("ok"):
            name = outcome.get("name") if isinstance(outcome, dict) else None
            return_name = (
                name if isinstance(name, str) and name.isalnum() and len(name) < 40 else None
            )
            raise errors.refusal(
                f"{errors.SCRIPT_THREW} ({return_name})."
                if return_name
                else f"{errors.SCRIPT_THREW}."
            )
        if outcome.get("undefined"):
            return "undefined"
        value = outcome.get("value")
        text = (
            value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        )
        return bound_text(text, what="result")


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
