"""No pydantic plugin runs inside Deskhand, and looking for none costs nothing (desktop/__init__.py)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pydantic

ROOT = Path(__file__).resolve().parents[2]

BUILD_A_MODEL = """
import json, sys
import desktop
from pydantic import BaseModel
from pydantic.plugin import _loader

class Setting(BaseModel):
    value: int = 1

print(json.dumps({
    "validated": Setting.model_validate({"value": "2"}).value,
    "plugins": list(_loader.get_plugins()),
    "own_loader": hasattr(_loader, "__file__"),
    "metadata_loaded": "importlib.metadata" in sys.modules,
}))
"""


def build_a_model(**env: str) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    done = subprocess.run(
        [sys.executable, "-c", BUILD_A_MODEL],
        cwd=ROOT,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_pydantic_asks_its_plugin_loader_for_nothing_but_the_plugins() -> None:
    """The stand-in loader offers `get_plugins` only: a pydantic that asked for more would
    fail here, not at a person's first start."""
    asked: set[str] = set()
    for path in Path(pydantic.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_loader"):
                asked.update(alias.name for alias in node.names)
    assert asked == {"get_plugins"}


def test_models_validate_with_no_plugin_and_no_package_metadata_read() -> None:
    seen = build_a_model()
    assert seen == {
        "validated": 2,
        "plugins": [],
        "own_loader": False,
        "metadata_loaded": False,
    }


def test_a_person_who_names_plugins_to_skip_gets_pydantics_own_loader() -> None:
    seen = build_a_model(PYDANTIC_DISABLE_PLUGINS="some_plugin")
    assert seen["own_loader"] is True
    assert seen["validated"] == 2
