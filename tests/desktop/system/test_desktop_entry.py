"""Deskhand in the Linux app launcher: the .desktop entry and icons, checked by the freedesktop validator."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.system import desktop_entry

ROOT = Path(__file__).resolve().parents[3]


def validate(entry: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.fail("desktop-file-validate is missing (Debian: desktop-file-utils)")
    checked = subprocess.run([tool, str(entry)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout


def test_the_entry_and_icons_go_to_the_users_data_home(tmp_path: Path) -> None:
    program = tmp_path / "apps" / "deskhand"
    changed = desktop_entry.install(program, home=tmp_path / "share")
    entry = tmp_path / "share" / "applications" / "deskhand.desktop"
    assert entry in changed
    validate(entry)
    text = entry.read_text()
    assert f"Exec={program}\n" in text and "Icon=deskhand\n" in text and "Name=Deskhand\n" in text
    for size in (48, 256):
        assert (tmp_path / f"share/icons/hicolor/{size}x{size}/apps/deskhand.png").is_file()
    assert (tmp_path / "share/icons/hicolor/scalable/apps/deskhand.svg").is_file()
    # At the next start nothing is rewritten.
    assert desktop_entry.install(program, home=tmp_path / "share") == []


def test_a_program_path_with_spaces_and_quotes_is_quoted_as_the_spec_says(tmp_path: Path) -> None:
    program = tmp_path / 'My "Apps" 100%' / "deskhand"
    desktop_entry.install(program, home=tmp_path / "share")
    entry = tmp_path / "share" / "applications" / "deskhand.desktop"
    validate(entry)
    exec_line = next(line for line in entry.read_text().splitlines() if line.startswith("Exec="))
    # String escapes first (\\\\ -> \\), then the Exec quoting (\\" -> ") and %% -> %.
    value = exec_line.removeprefix("Exec=").replace("\\\\", "\\")
    assert value.startswith('"') and value.endswith('"')
    unquoted = value[1:-1].replace('\\"', '"').replace("%%", "%")
    assert unquoted == str(program)


@pytest.mark.skipif(sys.platform != "linux", reason="the launcher entry is for Linux")
def test_the_command_installs_it_for_this_install(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "install-desktop-entry"],
        cwd=ROOT,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "app launcher" in done.stdout
    entry = (tmp_path / "applications" / "deskhand.desktop").read_text()
    started = Path(sys.executable).resolve().with_name("deskhand")
    assert f"Exec={started}\n" in entry
