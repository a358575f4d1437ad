"""The osascript engine: constant JXA scripts, persistent workers, classified errors.

Each name loads its module when first used: the app's window needs only the automation log."""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from tools.mac.osa.automation import AUTOMATION_SETTINGS_URL, AutomationLog, AutomationState
    from tools.mac.osa.engine import (
        DEFAULT_TIMEOUT,
        OSASCRIPT_ENV,
        OUTPUT_CAP,
        SCRIPTS_DIR,
        OsaEngine,
        find_osascript,
        macos_available,
    )
    from tools.mac.osa.errors import OsaError, OsaProblem, ProblemKind, classify, parse_stderr
    from tools.mac.osa.worker import WorkerPool


__all__ = [
    "AUTOMATION_SETTINGS_URL",
    "DEFAULT_TIMEOUT",
    "OSASCRIPT_ENV",
    "OUTPUT_CAP",
    "SCRIPTS_DIR",
    "AutomationLog",
    "AutomationState",
    "OsaEngine",
    "OsaError",
    "OsaProblem",
    "ProblemKind",
    "WorkerPool",
    "classify",
    "find_osascript",
    "macos_available",
    "parse_stderr",
]

# The names of `__all__`, each imported from its module when first used.
__getattr__, __dir__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "automation": ["AUTOMATION_SETTINGS_URL", "AutomationLog", "AutomationState"],
        "engine": [
            "DEFAULT_TIMEOUT",
            "OSASCRIPT_ENV",
            "OUTPUT_CAP",
            "SCRIPTS_DIR",
            "OsaEngine",
            "find_osascript",
            "macos_available",
        ],
        "errors": ["OsaError", "OsaProblem", "ProblemKind", "classify", "parse_stderr"],
        "worker": ["WorkerPool"],
    },
)[:2]
