"""What the command line prints for programs: versioned JSON answers, error codes, exit codes.

Every `--json` answer is one object on one line with its schema's name and version
(`"schema": "deskhand.ui.see/1"`); the JSON Schema of each is in `schemas/` at the top of the
repository (`deskhand.ui.see.1.json`). A new field may appear within a version; a field that
goes or changes meaning makes a new version (`VERSIONS`; the older file stays, for reference).
A failure is

    {"schema": "deskhand.error/1", "ok": false, "command": "see",
     "error": {"code": "ambiguous", "message": "…", "candidates": [{"type": "window", …}]}}

and the process exits with the code's exit status (`EXITS`, documented in the README).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = [
    "CODES",
    "EXITS",
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_TIMED_OUT",
    "VERSIONS",
    "answer",
    "emit",
    "error",
    "exit_code",
    "schema_name",
]

EXIT_FAILED, EXIT_BAD_INPUT, EXIT_NEEDS_PERMISSION, EXIT_TIMED_OUT, EXIT_UNAVAILABLE = 1, 2, 3, 4, 5
EXITS: dict[str, int] = {
    "not_found": EXIT_FAILED,  # no such window, app window, element id or snapshot
    "ambiguous": EXIT_FAILED,  # the target matched several: see the candidates
    "app_not_running": EXIT_FAILED,  # no open window belongs to the app named
    "stale": EXIT_FAILED,  # the element changed since the snapshot: see again
    "refused": EXIT_FAILED,  # a rule, the person, a password field, Deskhand's own window
    "already_running": EXIT_FAILED,  # that routine is running now (its chat says how far)
    "failed": EXIT_FAILED,  # it was tried and did not work
    "bad_input": EXIT_BAD_INPUT,
    "needs_permission": EXIT_NEEDS_PERMISSION,  # an approval or a system permission is missing
    "timeout": EXIT_TIMED_OUT,
    "no_display": EXIT_UNAVAILABLE,  # no screen to use here
    "unavailable": EXIT_UNAVAILABLE,  # other apps' elements cannot be read here now
    # `deskhand connector`: a remote connector's sign-in
    "not_mcp_server": EXIT_FAILED,  # no MCP server answered at the URL
    "insecure_auth_server": EXIT_FAILED,  # it names a plain-http authorization server elsewhere
    "redirect_off_loopback": EXIT_FAILED,  # the code would go elsewhere than Deskhand's listener
    "state_mismatch": EXIT_FAILED,  # the answer did not belong to this sign-in
    "needs_client_id": EXIT_BAD_INPUT,  # no dynamic registration: give --client-id
    "needs_sign_in": EXIT_NEEDS_PERMISSION,  # the connector must sign in (again) first
}
CODES = tuple(EXITS)
VERSION = 1  # an answer's version, unless `VERSIONS` names a newer one
# /2: click, type and scroll say what the action really did (`outcome`, `changes`, `note`).
VERSIONS = {"ui.click": 2, "ui.type": 2, "ui.scroll": 2}


def schema_name(name: str) -> str:
    """`ui.see` → `deskhand.ui.see/1`, `ui.click` → `deskhand.ui.click/2`."""
    return f"deskhand.{name}/{VERSIONS.get(name, VERSION)}"


def answer(name: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"schema": schema_name(name), "ok": True, **payload}


def error(
    command: str, code: str, message: str, candidates: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    known = code if code in EXITS else "failed"
    return {
        "schema": schema_name("error"),
        "ok": False,
        "command": command,
        "error": {"code": known, "message": message, "candidates": list(candidates)},
    }


def exit_code(code: str) -> int:
    return EXITS.get(code, EXIT_FAILED)


def emit(value: dict[str, Any]) -> None:
    print(json.dumps(value, ensure_ascii=False), flush=True)
