"""What a running Deskhand offers the ways in that are not the window: `deskhand ui`'s socket,
`deskhand apps call`, `deskhand routine` and `deskhand mcp`.

They never import the workspace (it is the composition root, above them): the entry points hand
it in, and this is what they may use of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop.calls.approvals import ApprovalQueue
    from desktop.calls.gate import Gate
    from desktop.calls.toolbox import Toolbox
    from desktop.routines.schedules.scheduler import Scheduler
    from desktop.routines.service import Routines
    from desktop.system.keystore import KeyStore
    from desktop.system.paths import DataPaths
    from desktop.system.settings.live import LiveSettings
    from desktop.system.settings.model import Settings
    from desktop.system.store import Store
    from tools.base import ToolRegistry


class Running(Protocol):
    """One data dir's running Deskhand: its places, settings, key, store, call pipeline and
    routines."""

    paths: DataPaths
    live: LiveSettings
    keys: KeyStore
    store: Store
    approvals: ApprovalQueue

    @property
    def scheduler(self) -> Scheduler:
        """Scheduled routines (`deskhand routine schedule`)."""
        ...

    @property
    def routines(self) -> Routines: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def toolbox(self) -> Toolbox: ...

    @property
    def registry(self) -> ToolRegistry: ...

    @property
    def gate(self) -> Gate: ...

    async def close(self) -> None: ...
