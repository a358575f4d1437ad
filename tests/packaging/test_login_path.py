"""Reading the login shell's PATH, with real shells and a throwaway home folder."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path

import pytest

from desktop.system.login_path import (
    MARKER,
    adopt_login_path,
    merge_paths,
    needed,
    restore_library_path,
)

FINDER_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"  # what launchd gives an app opened from the Finder
TOOL_DIR = "/opt/deskhand-test/bin"

# (shell, profile file a login shell reads, line that puts TOOL_DIR first)
SHELLS = [
    ("bash", ".bash_profile", f'export PATH="{TOOL_DIR}:$PATH"'),
    ("sh", ".profile", f'PATH="{TOOL_DIR}:$PATH"; export PATH'),
    ("zsh", ".zprofile", f'export PATH="{TOOL_DIR}:$PATH"'),
    ("fish", ".config/fish/config.fish", f"set -gx PATH {TOOL_DIR} $PATH"),
]


def home_with(tmp_path: Path, profile: str, *lines: str) -> dict[str, str]:
    home = tmp_path / "home"
    (home / profile).parent.mkdir(parents=True, exist_ok=True)
    (home / profile).write_text("\n".join(lines) + "\n")
    return {"HOME": str(home), "PATH": FINDER_PATH, "USER": "tester", "TERM": "dumb"}


@pytest.mark.parametrize(("name", "profile", "line"), SHELLS, ids=[s[0] for s in SHELLS])
def test_the_login_shell_path_comes_first_and_nothing_else_leaks_in(
    tmp_path: Path, name: str, profile: str, line: str
) -> None:
    shell = shutil.which(name)
    if shell is None:
        pytest.skip(f"{name} is not installed")
    # A chatty profile: a banner on stdout must not end up in PATH.
    env = home_with(tmp_path, profile, "echo 'Welcome back!'", line, "echo 'last login: today'")
    result = asyncio.run(adopt_login_path(env, shell=shell, force=True))
    assert result.source == "shell", result
    entries = env["PATH"].split(":")
    assert entries[0] == TOOL_DIR
    assert set(FINDER_PATH.split(":")) <= set(entries)  # nothing the app had is lost
    assert len(entries) == len(set(entries))
    assert not any("Welcome" in e or "login" in e or MARKER in e for e in entries)
    assert result.path == env["PATH"] and result.detail == shell


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")  # a zombie has already been killed


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to see the shell's child is gone")
def test_a_hanging_profile_is_killed_at_the_time_limit(tmp_path: Path) -> None:
    pid_file = tmp_path / "sleeper.pid"
    tools = tmp_path / "tools"
    tools.mkdir()
    env = home_with(tmp_path, ".bash_profile", f"sleep 60 & echo $! > {pid_file}; wait")
    started = time.monotonic()
    result = asyncio.run(
        adopt_login_path(
            env, shell="/bin/bash", force=True, time_limit=1.0, well_known=[str(tools), "/nope"]
        )
    )
    assert time.monotonic() - started < 5
    assert result.source == "fallback"
    assert env["PATH"] == f"{FINDER_PATH}:{tools}"  # the usual tool folders that exist
    assert not _alive(int(pid_file.read_text()))  # the profile's child went with the shell


def test_a_missing_shell_leaves_path_working(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PATH": FINDER_PATH}
    result = asyncio.run(
        adopt_login_path(env, shell=str(tmp_path / "no-shell"), force=True, well_known=[])
    )
    assert result.source == "fallback"
    assert env["PATH"] == FINDER_PATH


def test_started_from_a_terminal_nothing_runs() -> None:
    if needed():
        pytest.skip("this platform always reads the login shell")
    env = {"PATH": "/a:/b", "SHELL": "/definitely/not/run"}
    result = asyncio.run(adopt_login_path(env))  # not frozen, not macOS
    assert result.source == "skipped" and env["PATH"] == "/a:/b"


def test_when_it_is_needed() -> None:
    assert needed(frozen=False, platform="darwin")
    assert needed(frozen=True, platform="linux")
    assert not needed(frozen=False, platform="linux")


def test_merge_keeps_order_drops_repeats_and_empty_entries() -> None:
    assert merge_paths("/opt/x:/usr/bin::", "/usr/bin:/bin:/opt/x") == "/opt/x:/usr/bin:/bin"
    assert merge_paths("", "/bin") == "/bin"


def test_a_linux_bundle_gives_children_the_persons_library_path_back() -> None:
    bundled = {"LD_LIBRARY_PATH": "/opt/Deskhand/_internal", "LD_LIBRARY_PATH_ORIG": "/usr/lib/x"}
    restore_library_path(bundled, frozen=True, platform="linux")
    assert bundled == {"LD_LIBRARY_PATH": "/usr/lib/x"}
    unset_before = {"LD_LIBRARY_PATH": "/opt/Deskhand/_internal"}
    restore_library_path(unset_before, frozen=True, platform="linux")
    assert unset_before == {}
    from_source = {"LD_LIBRARY_PATH": "/mine"}
    restore_library_path(from_source, frozen=False, platform="linux")
    assert from_source == {"LD_LIBRARY_PATH": "/mine"}
