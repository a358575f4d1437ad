"""`app_command`'s read-back against the real Finder (macOS only).

It sets the Finder comment of a file in a temporary folder and reads it back: what the stand-in
cannot show is that the real Finder answers `properties()` and a property get after `set` the
way call.js reads them. Nothing outside the temporary folder is changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.base import ToolResult
from tools.mac.osa.engine import macos_available

from .test_real_mac import RealMac, mac

__all__ = ["mac"]

pytestmark = [
    pytest.mark.macos,
    pytest.mark.skipif(not macos_available(), reason="needs macOS with osascript"),
]


def finder_steps(path: Path) -> list[dict[str, str]]:
    """A reference to `path` from the startup disk, folder by folder."""
    *folders, name = path.resolve().parts[1:]
    steps = [{"property": "startup disk"}]
    steps += [{"elements": "folders", "name": folder} for folder in folders]
    return [*steps, {"elements": "files", "name": name}]


def test_a_finder_comment_is_read_back(mac: RealMac, tmp_path: Path) -> None:
    target = tmp_path / "read back.txt"
    target.write_text("x")
    result: ToolResult = mac.call(
        mac.command,
        app="Finder",
        command="set",
        reference=[*finder_steps(target), {"property": "comment"}],
        parameters={"to": "Deskhand read-back"},
    )
    assert not result.is_error, result.text
    assert result.outcome is not None and result.outcome.kind == "done", result.text
    assert result.text.endswith(': "Deskhand read-back"')
