"""Open at login: off until the person turns it on; on Linux an XDG autostart entry that
`desktop-file-validate` accepts, installed when the setting is turned on and removed when off."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.system.autostart import autostart_path, set_linux
from desktop.workspace import Workspace
from tests.support.waiting import wait_until

needs_validator = pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None,
    reason="needs desktop-file-validate (Debian: desktop-file-utils)",
)


def validate(path: Path) -> str:
    checked = subprocess.run(
        ["desktop-file-validate", str(path)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return checked.stdout + checked.stderr


@needs_validator
def test_the_autostart_entry_validates_and_starts_this_program(tmp_path: Path) -> None:
    program = tmp_path / "my apps" / "deskhand"  # a path that needs quoting in Exec
    path = set_linux(True, program, home=tmp_path / "config")
    assert path == tmp_path / "config" / "autostart" / "deskhand.desktop"
    assert validate(path) == ""  # not even a hint
    text = path.read_text()
    assert f'Exec="{program}"\n' in text
    assert "X-GNOME-Autostart-enabled=true\n" in text
    set_linux(False, program, home=tmp_path / "config")
    assert not path.exists()


@needs_validator
def test_turning_the_setting_on_and_off_installs_and_removes_it(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = autostart_path()
    assert workspace.settings.general.open_at_login is False  # off by default

    async def toggle(on: bool) -> None:
        settings = workspace.settings.model_copy(deep=True)
        settings.general.open_at_login = on
        workspace.live.apply(settings)  # as the Settings dialog's OK does
        await wait_until(lambda: path.is_file() == on, what="the login item")

    asyncio.run(toggle(True))
    assert path.is_file()
    validate(path)
    asyncio.run(toggle(False))
    assert not path.exists()


@pytest.mark.macos
@pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS and System Events")
def test_the_apps_login_item_is_added_and_removed_on_a_mac(tmp_path: Path) -> None:
    """On a real Mac: System Events lists the bundle's login item once added, and not after."""
    from desktop.system.autostart import set_macos

    bundle = tmp_path / "Deskhand.app"
    (bundle / "Contents" / "MacOS").mkdir(parents=True)

    def listed() -> bool:
        names = subprocess.run(
            [
                "osascript",
                "-e",
                'tell application "System Events" to get the path of every login item',
            ],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        return str(bundle) in names

    assert asyncio.run(set_macos(True, bundle))
    try:
        assert listed()
    finally:
        assert asyncio.run(set_macos(False, bundle))
    assert not listed()
