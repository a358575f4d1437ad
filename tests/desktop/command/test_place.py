"""The command finds the running app where the app put its socket's info, without loading the
app's own path model: both name the same data dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.command.place import ServerInfo, data_root, info_path, read_info, write_private
from desktop.system.paths import DataPaths


@pytest.mark.parametrize("given", [None, "relative/data", "~/deskhand-data"])
def test_the_commands_data_dir_is_the_apps(
    given: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    data_dir = Path(given) if given is not None else None
    assert data_root(data_dir) == DataPaths.for_data_dir(data_dir).root


def test_only_a_live_apps_info_is_read(tmp_path: Path) -> None:
    info_path(tmp_path).parent.mkdir()
    assert read_info(tmp_path) is None  # no app ran here
    alive = ServerInfo(socket="/tmp/x.sock", token="t" * 32, pid=os.getpid())
    write_private(info_path(tmp_path), alive.to_json())
    assert read_info(tmp_path) == alive
    assert oct(info_path(tmp_path).stat().st_mode & 0o777) == "0o600"
    gone = alive._replace(pid=2**22 + 12345)  # no such process
    write_private(info_path(tmp_path), gone.to_json())
    assert read_info(tmp_path) is None
    info_path(tmp_path).write_text('{"socket": 1}')  # not what the app writes
    assert read_info(tmp_path) is None
