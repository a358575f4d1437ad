"""Deskhand's own places: the folders and files no tool may read, list or change.

They are the data, config, log and cache folders (the platform's, and every `--data-dir` this
process opened), the key file, the `deskhand ui` socket folder and the app bundle. Whoever
opens a data dir to run calls on it registers it here (`protect`: the workspace, the standalone
`deskhand ui` runner), so whichever entry point runs a call, the check sees the places of the
data dir it works on, and always the platform's own.
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.system.paths import DataPaths
from desktop.system.settings.signed import KEY_NAME
from tools.data import Data

# Temporary socket folders (`desktop/command/protocol.py`) are made with this prefix.
SOCKET_PREFIX = "deskhand-ui-"
# Words that name Deskhand's places in a path that cannot be resolved ("$X/Deskhand/api-key").
OWN_WORDS = ("deskhand", "deskhand.db", "deskhand.app")


class Place(Data, frozen=True):
    """One own place: where it is, and what the person calls it ("the key file")."""

    path: Path
    name: str
    folder: bool = True


_data_paths: list[DataPaths] = []


def protect(paths: DataPaths) -> None:
    """Count `paths`' folders and files among the own places for the rest of this process."""
    if paths not in _data_paths:
        _data_paths.append(paths)


def _of(paths: DataPaths) -> list[Place]:
    places = [
        Place(path=paths.key_file, name="key file", folder=False),
        Place(path=paths.database, name="chat history", folder=False),
        Place(path=paths.settings, name="settings", folder=False),
        Place(path=paths.mcp_config, name="connector list", folder=False),
        Place(path=paths.settings.with_name(KEY_NAME), name="settings key", folder=False),
        Place(  # desktop/calls/sources/mcp/approved.py
            path=paths.mcp_config.with_name("mcp-approved.json"),
            name="connector approvals",
            folder=False,
        ),
        Place(  # desktop/calls/sources/mcp/sign_ins.py: connectors' tokens, without a keychain
            path=paths.mcp_config.with_name("mcp-sign-ins.json"),
            name="connector sign-ins",
            folder=False,
        ),
        Place(path=paths.root / "ui", name="socket folder"),
        Place(path=paths.attachments, name="attachments folder"),
        Place(path=paths.logs, name="log folder"),
        Place(path=paths.cache, name="cache folder"),
        Place(path=paths.root, name="data folder"),
        Place(path=paths.settings.parent, name="config folder"),
    ]
    return places


def app_bundle() -> Path | None:
    """The app bundle this process runs from (macOS `Deskhand.app`), or a frozen app's folder."""
    if not getattr(sys, "frozen", False):
        return None
    executable = Path(sys.executable).resolve()
    for parent in executable.parents:
        if parent.suffix == ".app":
            return parent
    return executable.parent


def places() -> list[Place]:
    """Every own place, most specific first (a file before the folder that holds it)."""
    found: list[Place] = []
    for paths in [*_data_paths, DataPaths.for_data_dir(None)]:
        found += _of(paths)
    bundle = app_bundle()
    if bundle is not None:
        found.append(Place(path=bundle, name="app"))
    unique = list(dict.fromkeys(found))
    files = [p for p in unique if not p.folder]
    folders = sorted((p for p in unique if p.folder), key=lambda p: -len(p.path.parts))
    return files + folders


def socket_folder(path: Path) -> bool:
    """Inside a private temporary folder the `deskhand ui` socket uses when the data dir is deep."""
    return any(part.startswith(SOCKET_PREFIX) for part in path.parts)
