"""Which connectors the person approved, each tied to exactly what they were shown.

A server in mcp.json starts only once approved: one added by hand or by another program, or
whose command, arguments, environment keys, working folder, URL or trust changed, waits for
the person (a sheet in the window; Settings → Connectors lists it with a Start button). Adding
or changing a server in Settings, or importing it from Claude Desktop, is the person's approval.

Approvals live in `mcp-approved.json` beside mcp.json, inside Deskhand's own places, with a
code under Deskhand's settings key (desktop/system/settings/signed.py), so no other program can approve one.
On the first start with approvals (no key made before this run, no approvals file), the
servers already configured are adopted: nothing could have approved them before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from desktop.calls.sources.mcp.config import ServerEntry
from desktop.system.settings.signed import Seal

log = logging.getLogger(__name__)

FILE_NAME = "mcp-approved.json"


def fingerprint(entry: ServerEntry) -> str:
    """What an approval covers: how the server starts or is reached, and whether it is trusted
    (environment values and headers may be tokens that change; their names count)."""
    shown: dict[str, object] = {
        "command": entry.command,
        "args": entry.args,
        "env": sorted(entry.env),
        "cwd": entry.cwd,
        "url": entry.url,
        "headers": sorted(entry.headers),
        "trusted": entry.trusted,
    }
    if entry.oauth:  # only then: the approvals of servers that sign in by no other way stand
        shown["oauth"] = {"scopes": entry.scopes}
    canonical = json.dumps(shown, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class ConnectorApprovals:
    """The approved servers: name → fingerprint, with a code only Deskhand can make."""

    def __init__(self, path: Path, seal: Seal) -> None:
        self.path = path
        self.seal = seal
        self._approved: dict[str, str] | None = None

    def _read(self) -> dict[str, str]:
        if self._approved is not None:
            return self._approved
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = None
        except (OSError, ValueError):
            log.warning("connector approvals unreadable: every connector waits", exc_info=True)
            data = {}
        approved: dict[str, str] = {}
        if isinstance(data, dict):
            names = data.get("approved")
            if isinstance(names, dict) and self.seal.good(names, data.get("mac")):
                approved = {str(k): str(v) for k, v in names.items()}
            elif names:
                log.warning("connector approvals not signed by Deskhand: every connector waits")
        self._approved = approved
        return approved

    def adopt(self, servers: dict[str, ServerEntry]) -> None:
        """On the first start with approvals, the servers configured before are approved."""
        if not self.path.exists() and self.seal.new:
            self._write({name: fingerprint(entry) for name, entry in servers.items()})

    def knows(self, name: str) -> bool:
        """Whether a server of this name was approved before, in some other form."""
        return name in self._read()

    def approved(self, name: str, entry: ServerEntry) -> bool:
        return self._read().get(name) == fingerprint(entry)

    def approve(self, entries: dict[str, ServerEntry]) -> None:
        """The person approved these servers, exactly as given."""
        approved = dict(self._read())
        approved.update({name: fingerprint(entry) for name, entry in entries.items()})
        self._write(approved)

    def reread(self) -> None:
        """Read the file again when next asked (another Deskhand process may have approved)."""
        self._approved = None

    def forget(self, name: str) -> None:
        """A removed server: a server of that name added later waits for the person again."""
        approved = dict(self._read())
        if approved.pop(name, None) is not None:
            self._write(approved)

    def _write(self, approved: dict[str, str]) -> None:
        data = {"approved": approved, "mac": self.seal.code(approved)}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(json.dumps(data, indent=2))
        tmp.replace(self.path)
        self._approved = approved
