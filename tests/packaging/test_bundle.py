"""The Linux bundle, built for real from a clean copy of the tree, passes its own self-test.

Slow (about two minutes of PyInstaller on two cores); CI runs it. It copies what git would
ship (tracked files plus new ones not ignored: no .venv, build/ or dist/), runs
packaging/build-linux.sh on the copy with this virtualenv's Python, then starts the built
`Deskhand --self-test` with nothing of the source tree on its path.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop import __version__
from tests.support.self_test import SUMMARY

ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    "*.egg-info",
    "node_modules",
    ".mcp",
    ".playwright-mcp",
)


def clean_copy(destination: Path) -> None:
    """The files a fresh clone would have, plus new files not yet committed (never ignored ones)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:  # not a git checkout (an unpacked archive): copy minus the junk
        shutil.copytree(ROOT, destination, ignore=IGNORED, symlinks=True)
        return
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():  # tracked but deleted in the working tree: not shipped
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the Linux bundle; macOS builds the .app")
def test_linux_bundle_from_a_clean_tree_passes_its_self_test(tmp_path: Path) -> None:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        pytest.fail("PyInstaller is missing: pip install pyinstaller (it is in the test extras)")
    source, dist, work = tmp_path / "src", tmp_path / "dist", tmp_path / "build"
    clean_copy(source)
    assert not (source / ".venv").exists() and (source / "packaging" / "deskhand.spec").exists()

    started = time.monotonic()
    build = subprocess.run(
        ["bash", str(source / "packaging" / "build-linux.sh"), "--no-archive"],
        env={**os.environ, "PYTHON": sys.executable, "DIST": str(dist), "WORK": str(work)},
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    build_seconds = time.monotonic() - started
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-5000:]
    # Built from the copy, not from the working tree the editable install points at.
    analysed = (work / "deskhand" / "PYZ-00.toc").read_text()
    assert f"'{source / 'desktop' / '__init__.py'}'" in analysed

    bundle = dist / "Deskhand"
    internal = bundle / "_internal"
    scripts = sorted(
        p.relative_to(source) for p in (source / "tools/mac/osa/scripts").rglob("*.js")
    )
    assert scripts and all((internal / s).is_file() for s in scripts)
    assert os.access(internal / "playwright" / "driver" / "node", os.X_OK)
    assert not (internal / "playwright" / "driver" / "package" / ".local-browsers").exists()
    assert (internal / "assets" / "icons" / "deskhand-256.png").is_file()
    assert "Exec=Deskhand" in (bundle / "share/applications/deskhand.desktop").read_text()
    assert (bundle / "share/icons/hicolor/256x256/apps/deskhand.png").is_file()

    # Outside the tree, with nothing of it importable: only the bundle runs.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    version = subprocess.run(
        [str(bundle / "Deskhand"), "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert version.stdout.strip() == f"Deskhand {__version__}", version.stderr

    # The person adds the bundle to their own launcher: the entry starts this executable.
    launcher = subprocess.run(
        [str(bundle / "Deskhand"), "install-desktop-entry"],
        cwd=tmp_path,
        env={**env, "XDG_DATA_HOME": str(tmp_path / "home-share")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert launcher.returncode == 0, launcher.stderr
    entry = (tmp_path / "home-share/applications/deskhand.desktop").read_text()
    assert f"Exec={(bundle / 'Deskhand').resolve()}" in entry

    started = time.monotonic()
    result = subprocess.run(
        [str(bundle / "Deskhand"), "--self-test"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    self_test_seconds = time.monotonic() - started
    assert result.returncode == 0, result.stdout + result.stderr
    assert SUMMARY.match(result.stdout.strip()), result.stdout
    served = asyncio.run(_bundle_serves_mcp(bundle / "Deskhand", tmp_path / "mcp-data", env))
    assert "browser_navigate" in served, served
    size_mb = (
        sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6
    )
    print(
        f"\nbundle: built in {build_seconds:.0f} s, {size_mb:.0f} MB; "
        f"self-test in {self_test_seconds:.1f} s: {result.stdout.strip()}"
    )


async def _bundle_serves_mcp(executable: Path, data: Path, env: dict[str, str]) -> list[str]:
    """`Deskhand mcp` from the bundle, listed by the mcp SDK's own client: the tools' names."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(executable), args=["--data-dir", str(data), "mcp"], env=env
    )
    async with Client(stdio_client(params), mode="legacy") as client:
        return [tool.name for tool in (await client.list_tools()).tools]
