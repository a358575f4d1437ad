"""The osascript engine: constant JXA scripts, persistent workers, classified errors."""

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
