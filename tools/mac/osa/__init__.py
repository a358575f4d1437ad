"""The osascript engine: constant JXA scripts, persistent workers, classified errors.

Each name loads its module when first used: the app's window needs only the automation log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.lazy import lazy_names

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

_HOMES = {
    "AUTOMATION_SETTINGS_URL": "automation",
    "AutomationLog": "automation",
    "AutomationState": "automation",
    "DEFAULT_TIMEOUT": "engine",
    "OSASCRIPT_ENV": "engine",
    "OUTPUT_CAP": "engine",
    "SCRIPTS_DIR": "engine",
    "OsaEngine": "engine",
    "find_osascript": "engine",
    "macos_available": "engine",
    "OsaError": "errors",
    "OsaProblem": "errors",
    "ProblemKind": "errors",
    "classify": "errors",
    "parse_stderr": "errors",
    "WorkerPool": "worker",
}

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

__getattr__ = lazy_names(__name__, _HOMES)
