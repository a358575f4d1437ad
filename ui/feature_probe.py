"""PySide6 without its per-module feature probe.

Importing PySide6 replaces Python's `import` with its own. After every module imported from
then on, it reads that module's whole source (`inspect.getsource`) to learn whether it mentions
PySide6: a module that does may switch on PySide's optional features for itself (`from
__feature__ import snake_case, true_property`). Before the window could show, that read about
140 source files, Deskhand's and the standard library's, and kept them all in memory.

Deskhand switches on no feature anywhere (tests/ui/test_feature_probe.py holds every module
to that), so every module runs under PySide's default names whatever the probe finds. The probe
is answered without reading: "uses PySide, with the defaults".
"""

from __future__ import annotations

import sys
from types import ModuleType


def _with_defaults(_module: ModuleType) -> bool:
    return True  # PySide records selection 0 (no feature) for the module, as it would have


def skip_feature_probe() -> bool:
    """Import PySide6 and answer its probe without reading sources, from now on (call it before
    the window's modules load). Returns whether this PySide6 has the probe (a version without
    it needs nothing)."""
    import PySide6.QtCore  # noqa: F401  (installs the import hook and the probe)

    feature = sys.modules.get("shibokensupport.feature")
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        return False
    feature._mod_uses_pyside = _with_defaults  # type: ignore[attr-defined]
    return True
