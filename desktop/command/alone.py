"""`deskhand ui` when no Deskhand runs on the data dir: the command acts on its own.

It takes the same path as in the app, with the person's own rules: the same data dir, settings
and saved permission mode, the `screen` tool's source, the gate and the audit log
(`actions.run_action`). With no window there is no one to ask, so an action that would ask is
refused as soon as it is described, with one line on how to allow it. Reads (screens, windows,
see, wait, screenshot) work as in the app.

Element ids outlive the command: a `see` (or `wait`) saves its snapshots in the data dir
(`snapshots.py`, a file only the person can read) and a later `click B2` puts them back before
it is described. The element is then read again as in the app (gone, moved, its window closed:
"see again"), and must still have the role and name it was shown with; the gate judges it as it
is now. On macOS elements cannot be found again by another process, so there ids need the app.

It loads only what the screen tool needs (no model SDK, no browser), so a command stays quick.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from desktop.calls.approvals import ApprovalQueue
from desktop.calls.gate import Gate
from desktop.calls.own_places.places import protect
from desktop.calls.sources.screen.elements import ScreenElements
from desktop.command.actions import UI_SESSION, run_action, why_unavailable
from desktop.command.protocol import Request, Result
from desktop.command.snapshots import keep_snapshots, put_back
from desktop.system.keystore import KeyStore
from desktop.system.paths import DataPaths
from desktop.system.settings.model import SettingsFile
from desktop.system.settings.permissions import PermissionSettings, Rule
from desktop.system.store import Store
from tools.base import ToolRegistry
from tools.screen import errors
from tools.screen.backends.factory import screen_status
from tools.screen.see.snapshot import SnapshotStore

log = logging.getLogger(__name__)

__all__ = ["NEEDS_APP", "run_alone"]

MAKES_IDS = frozenset({"see", "wait"})
USES_IDS = frozenset({"click", "set_value", "scroll_to"})
NOT_KEPT = "(On this computer these ids last only while Deskhand runs: start it to act on them.)"
NEEDS_APP = (
    "Refused: “{label}” needs your approval, and Deskhand is not running to ask you. Allow it "
    "in Deskhand → Settings → Permissions (Always allow), or start Deskhand so its window can ask."
)

SETTINGS_UNREADABLE = (
    "Deskhand's settings file cannot be read, so your rules cannot be applied and nothing ran. "
    "Start Deskhand: it sets the broken file aside and says what it kept."
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
    protect(paths)  # from now on no tool may touch its folders and files
    # As the file is now. A broken one is left for the app to set aside and report; until then
    # nothing runs, since the person's rules (Never, Screen off) are in it.
    settings_file = SettingsFile(paths.settings)
    settings = settings_file.read()
    if settings is None:
        return Result(ok=False, error=SETTINGS_UNREADABLE, code="refused")
    if settings_file.outside is not None:  # not in force: the person has not kept them
        print(settings_file.outside.warning(), file=sys.stderr, flush=True)
    # Known from now on, so that no result carries it (desktop/calls/own_places/guard.py).
    keys = KeyStore(
        account=paths.keychain_account, key_file=paths.key_file, storage=settings.key_storage
    )
    await keys.aget()
    status = await asyncio.to_thread(screen_status)
    usable = settings.screen.enabled and status.available
    elements = ScreenElements(available=lambda: usable, own_windows=list, looks=_Seen())
    store = Store.open(paths.database)
    try:
        if usable:
            await elements.start()
        snapshots = elements.tool.snapshots
        name = action.get("action")
        if usable and (name in MAKES_IDS or name in USES_IDS):
            unusable = await asyncio.to_thread(put_back, paths.root, snapshots, UI_SESSION)
            if name in USES_IDS and (missing := unusable or _missing(snapshots, action)):
                return Result(ok=False, error=missing, code="not_found")
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
            registry,
            gate,
            paths.attachments,
            needs_approval=NEEDS_APP,
            ask_first=False,
            unavailable=lambda: why_unavailable(
                enabled=settings.screen.enabled, screen=status, elements=elements.status
            ),
        )
        if result is None:
            return Result(ok=False, error="Stopped.", code="failed")  # only when given up on
        if usable and name in MAKES_IDS and result.ok:
            result = await _keep(paths.root, elements, result)
        return result
    finally:
        await elements.close()
        store.close()


def _missing(snapshots: SnapshotStore, action: dict[str, Any]) -> str | None:
    """Why an id names nothing kept (no fresh snapshot, or none with that id): "see again",
    rather than the gate's "needs your approval" for an element it cannot know."""
    snapshot = snapshots.get(UI_SESSION, action.get("snapshot"))
    if snapshot is None:
        return errors.NO_SNAPSHOT
    return errors.NO_SUCH_ID if action.get("id") not in snapshot.items else None


async def _keep(root: Path, elements: ScreenElements, result: Result) -> Result:
    """Save the snapshots for the next command (saying so where their ids cannot be kept)."""
    try:
        kept = await asyncio.to_thread(keep_snapshots, root, elements.tool.snapshots, UI_SESSION)
    except OSError:
        log.info("the element ids could not be saved", exc_info=True)
        return result
    return result if kept else result.model_copy(update={"text": f"{result.text}\n{NOT_KEPT}"})
