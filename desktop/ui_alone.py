"""`deskhand ui` when no Deskhand runs on the data dir: the command acts on its own.

It takes the same path as in the app, with the person's own rules: the same data dir, settings
and saved permission mode, the `screen` tool's source, the gate and the audit log
(`ui_actions.run_action`). With no window there is no one to ask, so an action that would ask is
refused as soon as it is described, with one line on how to allow it. Reads (screens, windows,
see, wait, screenshot) work as in the app. Element ids live in the process that saw them: a
`click B2` needs the `see` of the same run, which only a running app keeps between commands.

It loads only what the screen tool needs (no model SDK, no browser), so a command stays quick.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from desktop.approvals import ApprovalQueue
from desktop.function_tools import FunctionTools
from desktop.gate import Gate
from desktop.paths import DataPaths
from desktop.permissions import PermissionSettings, Rule
from desktop.screen_elements import ScreenElements
from desktop.settings import Settings, SettingsFile
from desktop.store import Store
from desktop.ui_actions import run_action
from desktop.ui_protocol import Request, Result
from tools.base import ToolRegistry
from tools.screen.backend import screen_status

__all__ = ["NEEDS_APP", "run_alone"]

NEEDS_APP = (
    "Refused: “{label}” needs your approval, and Deskhand is not running to ask you. Allow it "
    "in Deskhand → Settings → Permissions (Always allow), or start Deskhand so its window can ask."
)


class _Seen:
    """The person's own terminal: no "may Claude look at the screen" question."""

    def seen(self, session_id: int) -> bool:
        return True

    def saw(self, session_id: int) -> None:
        return None


def _never_saved(_key: str, _rule: Rule) -> None:
    """No one can answer here, so no "Always allow" is ever given (the app saves rules)."""


async def run_alone(data_dir: Path | None, action: dict[str, Any]) -> Result:
    """One action, run by this process with the person's rules and audit log."""
    paths = DataPaths.for_data_dir(data_dir)
    await asyncio.to_thread(paths.ensure)
    # As the file is now; a broken one is left for the app to set aside and report.
    settings = SettingsFile(paths.settings).read() or Settings()
    status = await asyncio.to_thread(screen_status)
    usable = settings.screen.enabled and status.available
    elements = ScreenElements(available=lambda: usable, own_windows=list, looks=_Seen())
    store = Store.open(paths.database)
    try:
        if usable:
            await elements.start()
        registry = ToolRegistry()
        registry.add(elements.tool)
        permissions: PermissionSettings = settings.permissions
        gate = Gate(
            settings=lambda: permissions,
            store=store,
            remember=_never_saved,
            approvals=ApprovalQueue(),  # no viewer: every question is refused
        )
        result = await run_action(
            Request(token="", input=action),
            FunctionTools(registry),
            gate,
            paths.attachments,
            needs_approval=NEEDS_APP,
            ask_first=False,
        )
        return result or Result(ok=False, error="Stopped.")  # None only when given up on
    finally:
        await elements.close()
        store.close()
