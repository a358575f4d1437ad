"""The tools this machine offers, built from the settings; it also closes what they hold on quit.

Mac tools are offered only where osascript exists; elsewhere the model never sees them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.browser_calls import browser_config
from desktop.settings import Settings
from tools.apps import AppsTool
from tools.base import ToolRegistry
from tools.browser import BrowserPool
from tools.desktop_context import desktop_snapshot
from tools.macos import AutomationLog, MacosTool, macos_available
from tools.osa.engine import OsaEngine
from tools.osa.errors import OsaProblem
from tools.tabs import TabsTool


class Toolbox:
    """Owns the tool registry and the long-lived things behind tools (osascript workers, browser)."""

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
        self.osa: OsaEngine | None = None
        self.automation = AutomationLog(settings.apps.automation)
        if on_automation_change is not None:
            log = self.automation
            log.subscribe(lambda _app, _state: on_automation_change(dict(log.states())))
        # The pool launches nothing until the model first uses the browser.
        self.browser_pool: BrowserPool | None = (
            BrowserPool(browser_config(settings.browser, downloads))
            if settings.browser.enabled
            else None
        )
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

    async def desktop_context(self) -> str | None:
        """The bounded snapshot of apps, screens, presets and tabs for the system prompt, if on."""
        settings = self._settings()
        if self.osa is None or not settings.apps.desktop_context:
            return None
        presets = [p.model_dump() for p in settings.apps.presets]
        return await desktop_snapshot(self.osa, presets)

    async def close(self) -> None:
        if self.browser_pool is not None:
            await self.browser_pool.close()
            self.browser_pool = None
        if self.osa is not None:
            await self.osa.aclose()
            self.osa = None
