"""Fixtures for the osa engine tests: the Node JXA stand-in (a simulation) and a world file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tools.mac.osa.engine import OSASCRIPT_ENV

TEST_SCRIPTS = Path(__file__).with_name("scripts")


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="the JXA stand-in needs node")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """An empty world, with the stand-in osascript as the engine's osascript."""
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    scripted = World(tmp_path / "world.json")
    scripted.write({})
    monkeypatch.setenv(WORLD_ENV, str(scripted.path))
    monkeypatch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
    return scripted
