"""A parsed dictionary as JSON: the full export (`deskhand apps dictionary --json`), and the
entries of commands and classes that the model's view (`view.py`) shows too.

No pydantic here (nor `values.py`, which checks values with it): the command line's export
loads only the parser and this.
"""

from __future__ import annotations

from typing import Any

from tools.mac.sdef.model import ClassDef, Command, Dictionary, TypeRef
from tools.mac.sdef.risk import command_risk

DESCRIPTION_CHARS = 160


def _type(types: list[TypeRef]) -> str:
    return " | ".join(ref.label() for ref in types) or "any"


def clip(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def command_entry(
    command: Command, *, app: str, bundle_id: str | None, descriptions: bool = True
) -> dict[str, Any]:
    risk, _reason = command_risk(command.name, app=app, bundle_id=bundle_id)
    direct = command.direct_parameter
    out: dict[str, Any] = {
        "name": command.name,
        "code": command.code,
        "description": clip(command.description) if descriptions else "",
        "risk": risk.value,
        "direct_parameter": None
        if direct is None
        else {"type": _type(direct.types), "optional": direct.optional},
        "parameters": [
            {"name": p.name, "type": _type(p.types), "optional": p.optional}
            for p in command.parameters
        ],
        "result": None if command.result is None else {"type": _type(command.result.types)},
    }
    return out


def class_entry(cls: ClassDef, d: Dictionary) -> dict[str, Any]:
    return {
        "name": cls.name,
        "properties": [
            {"name": p.name, "type": _type(p.types), "access": p.access} for p in cls.properties
        ],
        "elements": [d.plural_of(e.type) for e in cls.elements],
    }


def dictionary_json(app: str, d: Dictionary, *, bundle_id: str | None = None) -> dict[str, Any]:
    """Everything parsed, each command with its risk (the command line's --json output)."""
    return {
        "app": app,
        "suites": [
            {
                "name": suite.name,
                "commands": [
                    command_entry(c, app=app, bundle_id=bundle_id) for c in suite.commands
                ],
                "classes": [class_entry(cls, d) for cls in suite.classes],
                "enumerations": [
                    {"name": e.name, "values": [v.name for v in e.enumerators]}
                    for e in suite.enumerations
                ],
            }
            for suite in d.suites
        ],
        "skipped_includes": list(d.skipped_includes),
    }
