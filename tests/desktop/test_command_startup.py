"""A command loads only what it uses: `deskhand --version` and `deskhand apps dictionary FILE`
answer without loading the window, the tools, the SDK or the store, so they answer at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FINDER = ROOT / "tests" / "support" / "sdef" / "fixtures" / "Finder.sdef"

# Run the command in a fresh interpreter, then list what it loaded.
LOADED_BY = """
import json, sys
from desktop.__main__ import main
try:
    code = main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""

# What none of these commands needs: each is slow to import.
NEVER = (
    "PySide6",
    "qasync",
    "anthropic",
    "playwright",
    "mcp",
    "desktop.workspace",
    "desktop.calls.toolbox",
    "desktop.system.store",
    "tools.browser",
    "tools.screen",
    "tools.mcp",
    "elementpath",
)


def run(*args: str, data_dir: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = subprocess.run(
        [sys.executable, "-c", LOADED_BY, *args, "--data-dir", str(data_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    return done, loaded


def heavy(loaded: list[str]) -> list[str]:
    return [name for name in loaded if name.startswith(NEVER)]


def test_version_answers_without_loading_the_app(tmp_path: Path) -> None:
    done, loaded = run("--version", data_dir=tmp_path)

    assert done.returncode == 0
    assert done.stdout.startswith("Deskhand ")
    assert heavy(loaded) == []
    assert "pydantic" not in loaded
    # The version comes from the installed METADATA file as it is (desktop/__init__.py).
    assert "importlib.metadata" not in loaded and "email" not in loaded


def test_reading_a_dictionary_file_loads_only_its_parser(tmp_path: Path) -> None:
    done, loaded = run("apps", "dictionary", str(FINDER), "--json", data_dir=tmp_path)

    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["app"] == "Finder"
    assert heavy(loaded) == []
    assert list(tmp_path.iterdir()) == []  # nothing written: no store, no settings
    # The dictionary is plain dataclasses; only the cache and the model's view need pydantic.
    assert "pydantic" not in loaded
    # Only the command the line names has its options built: not `ui`'s, nor its client.
    assert "desktop.command.cli" not in loaded
