"""PySide's feature probe: no module of Deskhand switches a PySide feature on, so the probe is
answered without reading each module's source (ui/feature_probe.py)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, linecache, sys
sys.path.insert(0, sys.argv[1])
import PySide6.QtCore
import probed_before
from ui.feature_probe import skip_feature_probe
skipped = skip_feature_probe()
import probed_after
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel("still the default names")
print(json.dumps({
    "skipped": skipped,
    "read": sorted(name for name in linecache.cache if name.startswith(sys.argv[1])),
    "text": label.text(),
}))
"""


def test_no_module_switches_a_pyside_feature_on() -> None:
    """With none switched on, every module runs under PySide's defaults, probed or not."""
    switching = []
    for package in ("desktop", "ui", "tools"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "__feature__":
                    switching.append(str(path.relative_to(ROOT)))
                if isinstance(node, ast.Import) and any(
                    a.name == "__feature__" for a in node.names
                ):
                    switching.append(str(path.relative_to(ROOT)))
    assert switching == []


def test_modules_imported_after_the_probe_is_skipped_are_not_read(tmp_path: Path) -> None:
    for name in ("probed_before", "probed_after"):
        (tmp_path / f"{name}.py").write_text("VALUE = 1\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        cwd=ROOT,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["skipped"] is True
    # PySide read the module imported before (the probe this skips), not the one after.
    assert seen["read"] == [str(tmp_path / "probed_before.py")]
    assert seen["text"] == "still the default names"
