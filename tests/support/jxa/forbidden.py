"""What no JXA script may contain: the ways JavaScript for Automation runs code or a shell that
a value could reach. The osa, apps and tabs tests check their scripts against this one list."""

from __future__ import annotations

FORBIDDEN_JS = [
    "Function(",
    "doShellScript",
    "doJavaScript",
    "runScript",
    "NSAppleScript",
    "OSAScript",
    "Library(",
    "use strict",  # would keep the worker's eval from returning the action's `run`
]
