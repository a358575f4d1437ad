"""The tool sources this machine offers, built from the settings; it starts and closes them.

Sources, in the order their tools are offered: the function tools (Mac apps, offered only
where osascript exists), `update_plan`, then the browser toolset when it is on, the screen where this
computer allows it, then the MCP servers' tools (last, so that when they are many the tool
search entry ends the list). The browser's and the screen's sources are built when first
needed: they bring in Playwright and the SDK, which take more than a second to load, and
the window shows before that. Those modules are imported in one place
(`desktop/system/heavy.py`, after the window's first paint); the toolbox waits for it before it
builds either source, and never imports them itself meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop.calls.contract import ActionGroup, ToolSource
from desktop.calls.sources.browser.hand import BrowserHand
from desktop.calls.sources.browser.source import BrowserSource, browser_config
from desktop.calls.sources.function_tools import FunctionTools
from desktop.calls.sources.mcp.source import McpSource
from desktop.calls.sources.screen.hooks import ScreenHooks
from desktop.calls.sources.toolsets import ToolsetSource
from desktop.system import heavy
from desktop.system.paths import DataPaths
from desktop.system.settings.model import Settings
from tools.base import FunctionTool, ToolRegistry
from tools.mac.osa.automation import AutomationLog
from tools.mac.osa.engine import OsaEngine, macos_available

# How long a message sent at launch waits for the tool sources still starting.
START_WAIT = 15.0

if TYPE_CHECKING:
    from desktop.calls.sources.screen.source import ScreenControl
    from tools.browser.pool import BrowserPool
    from tools.mac.osa.errors import OsaProblem
    from tools.screen.backends.window_shot import WindowShooter


class Toolbox:
    """Owns the tool sources and the long-lived things behind them (osascript workers, browser)."""

    def __init__(
        self,
        settings: Settings,
        paths: DataPaths,
        *,
        on_automation_change: Callable[[dict[str, str]], None] | None = None,
        on_problem: Callable[[OsaProblem], None] | None = None,
        on_save_preset: Callable[[dict[str, Any]], None] | None = None,
        current_settings: Callable[[], Settings] | None = None,
        plan_tool: FunctionTool[Any] | None = None,
        navigation_hold: Callable[[str], Callable[[str], bool] | None] | None = None,
        browser_hand: BrowserHand | None = None,
        screen_hooks: ScreenHooks | None = None,
    ) -> None:
        self._settings = current_settings or (lambda: settings)
        self._navigation_hold = navigation_hold  # where a chat's plan lets its tabs go
        self._starting = False
        self._started = asyncio.Event()
        self.registry = ToolRegistry()
        self.functions = FunctionTools(self.registry)
        # `update_plan`, for chats only: a source of its own, so the entry points that run the
        # function tools outside a chat (`deskhand ui`, `deskhand apps call`) never offer it.
        self.plans = FunctionTools(ToolRegistry([plan_tool] if plan_tool is not None else []))
        self.osa: OsaEngine | None = None
        self.automation = AutomationLog(settings.apps.automation)
        if on_automation_change is not None:
            log = self.automation
            log.subscribe(lambda _app, _state: on_automation_change(dict(log.states())))
        self._downloads = paths.downloads
        self._browser_pool: BrowserPool | None = None
        self._browser: ToolsetSource | None = None
        self._browser_built = False
        # Take over / Hand back, and the screen's hooks: the window wires itself to these
        # (the workspace's own) before the toolbox is built.
        self.browser_hand = browser_hand if browser_hand is not None else BrowserHand()
        self._screen: ScreenControl | None = None
        self.screen_hooks = screen_hooks if screen_hooks is not None else ScreenHooks()
        self._screen_source: ToolsetSource | None = None
        self._window_shooter: WindowShooter | None = None
        if settings.apps.macos_enabled and macos_available():
            # The Mac's own tools: loaded only where they can run.
            from tools.mac.apps import AppsTool
            from tools.mac.macos import MacosTool
            from tools.mac.sdef import AppCatalog, AppCommandTool, AppDictionaryTool, AppsListTool
            from tools.mac.tabs import TabsTool

            self.osa = OsaEngine(automation=self.automation)
            self.registry.add(MacosTool(self.osa, on_problem=on_problem))
            self.registry.add(
                AppsTool(
                    self.osa,
                    presets=lambda: [p.model_dump() for p in self._settings().apps.presets],
                    save_preset=on_save_preset,
                    on_problem=on_problem,
                )
            )
            self.registry.add(
                TabsTool(self.osa, on_problem=on_problem, window_shots=self._window_shots)
            )
            # Any other scriptable app, from its own dictionary (three tools, not thousands).
            catalog = AppCatalog(paths.cache / "dictionaries")
            self.registry.add(AppsListTool(catalog))
            self.registry.add(AppDictionaryTool(catalog))
            self.registry.add(AppCommandTool(catalog, self.osa, on_problem=on_problem))
        # MCP servers from the config dir's mcp.json; they start in `start`, behind the window.
        self.mcp = McpSource(
            paths.mcp_config,
            logs_dir=paths.logs,
            cache_path=paths.cache / "mcp-tools.json",
            others=self._tools_besides_mcp,
            # Tool search is a Claude model's: a compatible server running another model
            # gets every tool, as it would without it.
            can_defer=lambda: self._settings().model.model.startswith("claude"),
        )

    def _window_shots(self) -> WindowShooter:
        """What captures the person's browser window for `tabs screenshot`, made on first use
        (it loads the screen's libraries): it follows Settings → Screen and hides the
        visualizer while it reads pixels, like the screen's own captures."""
        if self._window_shooter is None:
            heavy.wait()  # the screen's modules come from the one place that imports them
            from tools.screen.backends.window_shot import WindowShooter

            hooks = self.screen_hooks
            self._window_shooter = WindowShooter(
                enabled=lambda: self._settings().screen.enabled,
                before_capture=lambda: hooks.before_capture() if hooks.before_capture else None,
                after_capture=lambda: hooks.after_capture() if hooks.after_capture else None,
            )
        return self._window_shooter

    def _build_browser(self) -> None:
        """The browser's pool and source, once; the pool launches nothing until first used."""
        if self._browser_built:
            return
        self._browser_built = True
        settings = self._settings()
        if settings.browser.enabled:
            heavy.wait()  # at once once loaded; `settled` and `start` await it off the loop
            from tools.browser.pool import BrowserPool

            self._browser_pool = BrowserPool(browser_config(settings.browser, self._downloads))
            if self._navigation_hold is not None:
                self._browser_pool.hold_navigations(self._navigation_hold)
            self._browser = BrowserSource(self._browser_pool, self.browser_hand)

    @property
    def browser_pool(self) -> BrowserPool | None:
        self._build_browser()
        return self._browser_pool

    @property
    def built_browser_pool(self) -> BrowserPool | None:
        """The pool if it was built (new settings need no pool that does not exist yet)."""
        return self._browser_pool

    @property
    def browser(self) -> ToolsetSource | None:
        self._build_browser()
        return self._browser

    @property
    def screen(self) -> ScreenControl:
        """The screen's toolsets and status; offered once `start` found a usable display (and
        while Settings → Screen allows it)."""
        if self._screen is None:
            heavy.wait()  # at once once loaded; `settled` and `start` await it off the loop
            from desktop.calls.sources.screen.source import ScreenControl

            self._screen = ScreenControl(
                enabled=lambda: self._settings().screen.enabled, hooks=self.screen_hooks
            )
            self._screen_source = self._screen.source()
            self.registry.add(self._screen.elements.tool)  # `screen`: see, wait, click by id
        return self._screen

    @property
    def screen_source(self) -> ToolsetSource:
        self.screen  # noqa: B018  (builds it)
        assert self._screen_source is not None
        return self._screen_source

    async def desktop_context(self) -> str | None:
        """For the system prompt: the displays when Claude may use the screen, and on a Mac the
        bounded snapshot of apps, screens, presets and tabs, if on."""
        settings = self._settings()
        parts = [await self.screen.displays_text()]
        if self.osa is not None and settings.apps.desktop_context:
            from tools.mac.desktop_context import desktop_snapshot

            presets = [p.model_dump() for p in settings.apps.presets]
            parts.append(await desktop_snapshot(self.osa, presets))
        return "\n\n".join(part for part in parts if part) or None

    def sources(self) -> list[ToolSource]:
        sources: list[ToolSource] = [self.functions, self.plans]
        if self.browser is not None:
            sources.append(self.browser)
        sources.append(self.screen_source)
        sources.append(self.mcp)
        return sources

    def _tools_besides_mcp(self) -> int:
        """How many `tools[]` entries the other sources offer (MCP tools defer above a total)."""
        return sum(len(s.api_tools()) for s in self.sources() if s is not self.mcp)

    def action_groups(self) -> list[ActionGroup]:
        """Every tool's actions with their usual risk, for Settings → Permissions."""
        return [group for source in self.sources() for group in source.action_groups()]

    def title_of(self, tool: str) -> str:
        """A tool's display name ("Browser", "macOS") for the rules key `tool`."""
        for group in self.action_groups():
            if group.tool == tool:
                return group.title
        return tool.capitalize()

    async def start(self) -> None:
        """Start every source (behind the window: MCP servers may take seconds to answer)."""
        self._starting = True
        try:
            await heavy.ready()  # the browser's and the screen's modules, loaded off the loop
            for source in self.sources():
                await source.start()
        finally:
            self._starting = False
            self._started.set()

    async def settled(self, limit: float = START_WAIT) -> None:
        """While the sources are starting, wait for them (at most `limit` seconds), so that a
        message sent at launch already sees every tool; at once otherwise. Either way the
        tools' modules are loaded first (off the loop: a message sent the moment the window
        shows waits here, and the window stays responsive)."""
        await heavy.ready()
        if self._starting:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._started.wait(), limit)

    def _live_sources(self) -> list[ToolSource]:
        """The sources built so far (closing needs no browser that was never built)."""
        built = [self.functions, self.plans, self._browser, self._screen_source, self.mcp]
        return [source for source in built if source is not None]

    async def close_session(self, session_id: int) -> None:
        """A chat was deleted: each source lets go of what it held for it (browser tabs)."""
        for source in self._live_sources():
            await source.close_session(session_id)

    async def close(self) -> None:
        for source in reversed(self._live_sources()):
            await source.close()
        self._browser_built = True  # closed: nothing is built after this
        self._browser = None
        self._browser_pool = None
        if self._window_shooter is not None:
            await self._window_shooter.close()
            self._window_shooter = None
        if self.osa is not None:
            await self.osa.aclose()
            self.osa = None
