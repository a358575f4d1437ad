"""The published JSON schemas (`schemas/` at the top of the repository), for tests of `--json`.

`checked(answer)` validates one printed answer against the schema its `schema` field names
(`deskhand.ui.see/1` → `schemas/deskhand.ui.see.1.json`) and returns it, so a test reads only
what the schema promises.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def schema_file(name: str) -> Path:
    """`deskhand.ui.see/1` → its file."""
    base, _, version = name.partition("/")
    return SCHEMAS / f"{base}.{version}.json"


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_file(name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def checked(answer: Any, schema: str | None = None) -> dict[str, Any]:
    """`answer` (a dict, or the JSON text of one), validated against its own schema (and that
    schema is `schema`, when given)."""
    value = json.loads(answer) if isinstance(answer, str) else answer
    assert isinstance(value, dict), value
    named = value.get("schema")
    assert isinstance(named, str), f"no schema named in {value}"
    if schema is not None:
        assert named == schema, value
    validator(named).validate(value)
    return value
