"""The app tools against the real Finder, Notes and Mail (macOS only, read-only).

These check what the stand-in cannot: that real dictionaries (with the system's
CocoaStandard.sdef) parse, that JXA takes the JXA names and reference steps call.js builds,
and that the results render. Nothing is changed or sent: writes are exercised as dry runs,
except `app_command`'s read-back, which sets the Finder comment of a file in a temporary folder
and reads it back (nothing outside that folder is changed).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.base import RunContext, ToolResult
from tools.mac.osa.engine import OsaEngine, macos_available
from tools.mac.sdef.app_tools import AppCommandTool, AppDictionaryTool, AppsListTool
from tools.mac.sdef.catalog import AppCatalog

pytestmark = [
    pytest.mark.macos,
    pytest.mark.skipif(not macos_available(), reason="needs macOS with osascript"),
]


class RealMac:
    def __init__(self, cache: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.engine = OsaEngine(workers=1)
        self.catalog = AppCatalog(cache)
        self.apps_list = AppsListTool(self.catalog)
        self.dictionary = AppDictionaryTool(self.catalog)
        self.command = AppCommandTool(self.catalog, self.engine)
        self.ctx = RunContext(session_id=1, attachments_dir=cache)

    def call(self, tool: Any, **fields: Any) -> ToolResult:
        return self.loop.run_until_complete(tool.run(tool.Input.model_validate(fields), self.ctx))

    def answer(self, **fields: Any) -> Any:
        result = self.call(self.command, **fields)
        assert not result.is_error, result.text
        return json.loads(result.text.split("\n", 1)[1])

    def close(self) -> None:
        self.loop.run_until_complete(self.engine.aclose())
        self.loop.close()


@pytest.fixture(scope="module")
def mac(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealMac]:
    real = RealMac(tmp_path_factory.mktemp("sdef-cache"))
    yield real
    real.close()


def test_real_apps_are_listed_with_their_dictionaries(mac: RealMac) -> None:
    listed = mac.call(mac.apps_list)
    assert "- Finder [com.apple.finder]" in listed.text
    shown = mac.call(mac.dictionary, app="Finder", name="reveal")
    assert '"name":"reveal"' in shown.text
    app = mac.loop.run_until_complete(mac.catalog.find("Finder"))
    assert app is not None and app.skipped_includes == []


def test_finder_reads(mac: RealMac) -> None:
    name = mac.answer(
        app="Finder", command="get", reference=[{"property": "startup disk"}, {"property": "name"}]
    )
    assert isinstance(name, str) and name
    assert mac.answer(app="Finder", command="count", reference=[{"elements": "disks"}]) >= 1
    items = mac.answer(
        app="Finder", command="get", reference=[{"property": "home"}, {"elements": "folders"}]
    )
    assert all("reference" in item for item in items)


def test_notes_folder_names(mac: RealMac) -> None:
    names = mac.answer(
        app="Notes", command="get", reference=[{"elements": "folders"}, {"property": "name"}]
    )
    assert isinstance(names, list) and all(isinstance(n, str) for n in names)


def test_mail_accounts_and_a_dry_run_send(mac: RealMac) -> None:
    names = mac.answer(
        app="Mail", command="get", reference=[{"elements": "accounts"}, {"property": "name"}]
    )
    assert isinstance(names, list)
    dry = mac.call(
        mac.command,
        app="Mail",
        command="send",
        dry_run=True,
        reference=[{"elements": "outgoing messages", "index": 1}],
    )
    assert not dry.is_error and '"risk": "consequential"' in dry.text


# --- app_command's read-back -------------------------------------------------------------


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
