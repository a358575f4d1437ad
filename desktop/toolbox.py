"""The tool sources this machine offers, built from the settings; it starts and closes them.

Sources, in the order their tools are offered: the function tools (Mac apps, offered only
where osascript exists), then the browser toolset when it is on. The browser's source is
built when first needed: it brings in Playwright and the SDK, which take more than a
second to load, and the window shows before that (the app loads them after its first
paint, off the event loop).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.browser_toolset import browser_config, browser_family
from desktop.function_tools import FunctionTools
from desktop.settings import Settings
from desktop.tool_calls import ActionGroup, ToolSource
from desktop.toolsets import ToolsetSource
from tools.apps import AppsTool
from tools.base import ToolRegistry
from tools.desktop_context import desktop_snapshot
from tools.macos import AutomationLog, MacosTool, macos_available
from tools.osa.engine import OsaEngine
from tools.osa.errors import OsaProblem
from tools.tabs import TabsTool

if TYPE_CHECKING:
    from tools.browser.pool import BrowserPool


class Toolbox:
    """Owns the tool sources and the long-lived things behind them (osascript workers, browser)."""

    def __init__(
        self,
        settings: Settings,
        *,
        downloads: Path,
        on_automation_change: Callable[[dict[str, str]], None] | None = None,
        on_problem: Callable[[OsaProblem], None] | None = None,
        on_save_preset: Callable[[dict[str, Any]], None] | None = None,
        current_settings: Callable[[], Settings] | None = None,
    ) -> None:
        self._settings = current_settings or (lambda: settings)
        self.registry = ToolRegistry()
        self.functions = FunctionTools(self.registry)
        self.osa: OsaEngine | None = None
        self.automation = AutomationLog(settings.apps.automation)
        if on_automation_change is not None:
            log = self.automation
            log.subscribe(lambda _app, _state: on_automation_change(dict(log.states())))
        self._downloads = downloads
        self._browser_pool: BrowserPool | None = None
        self._browser: ToolsetSource | None = None
        self._browser_built = False
        if settings.apps.macos_enabled and macos_available():
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
            self.registry.add(TabsTool(self.osa, on_problem=on_problem))

    def _build_browser(self) -> None:
        """The browser's pool and source, once; the pool launches nothing until first used."""
        if self._browser_built:
            return
        self._browser_built = True
        settings = self._settings()
        if settings.browser.enabled:
            from tools.browser.pool import BrowserPool

            self._browser_pool = BrowserPool(browser_config(settings.browser, self._downloads))
            self._browser = ToolsetSource(browser_family(self._browser_pool))

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

    async def desktop_context(self) -> str | None:
        """The bounded snapshot of apps, screens, presets and tabs for the system prompt, if on."""
        settings = self._settings()
        if self.osa is None or not settings.apps.desktop_context:
            return None
        presets = [p.model_dump() for p in settings.apps.presets]
        return await desktop_snapshot(self.osa, presets)

    def sources(self) -> list[ToolSource]:
        sources: list[ToolSource] = [self.functions]
        if self.browser is not None:
            sources.append(self.browser)
        return sources

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
        for source in self.sources():
            await source.start()

    def _live_sources(self) -> list[ToolSource]:
        """The sources built so far (closing needs no browser that was never built)."""
        return [self.functions, *([self._browser] if self._browser is not None else [])]

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
        if self.osa is not None:
            await self.osa.aclose()
            self.osa = None
