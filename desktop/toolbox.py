"""The tools this machine offers, built from the settings; it also closes what they hold on quit.

Mac tools are offered only where osascript exists; elsewhere the model never sees them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from desktop.browser_calls import browser_config
from desktop.settings import Settings
from tools.base import ToolRegistry
from tools.browser import BrowserPool
from tools.macos import AutomationLog, MacosTool, macos_available
from tools.osa.engine import OsaEngine
from tools.osa.errors import OsaProblem


class Toolbox:
    """Owns the tool registry and the long-lived things behind tools (osascript workers, browser)."""

    def __init__(
        self,
        settings: Settings,
        *,
        downloads: Path,
        on_automation_change: Callable[[dict[str, str]], None] | None = None,
        on_problem: Callable[[OsaProblem], None] | None = None,
    ) -> None:
        self.registry = ToolRegistry()
        self.osa: OsaEngine | None = None
        self.automation = AutomationLog(settings.apps.automation)
        if on_automation_change is not None:
            log = self.automation
            log.subscribe(lambda _app, _state: on_automation_change(log.states()))
        # The pool launches nothing until the model first uses the browser.
        self.browser_pool: BrowserPool | None = (
            BrowserPool(browser_config(settings.browser, downloads))
            if settings.browser.enabled
            else None
        )
        if settings.apps.macos_enabled and macos_available():
            self.osa = OsaEngine(automation=self.automation)
            self.registry.add(MacosTool(self.osa, on_problem=on_problem))

    async def close(self) -> None:
        if self.browser_pool is not None:
            await self.browser_pool.close()
            self.browser_pool = None
        if self.osa is not None:
            await self.osa.aclose()
            self.osa = None
