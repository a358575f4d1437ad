"""Dictionary types as JSON Schema, and the model's JSON values checked and tagged for call.js.

One classification serves both: text, integer, real, boolean, date, file (a POSIX path
string), list, record, enumeration (by name), class name, and object references (a list of
steps, see `reference`). Values leave here as plain JSON with tagged objects call.js turns
into JXA values: {"$ref": steps}, {"$file": path}, {"$date": ISO text}, {"$record": {...}}.
Record keys are checked terms, so a tag can never come from the model's own keys.
"""

from __future__ import annotations

import math
import os
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from tools.mac.osa.text import quote
from tools.mac.sdef.errors import Refused
from tools.mac.sdef.model import Dictionary, MergedClass, TypeRef, jxa_name, term_key
from tools.mac.sdef.reference import REFERENCE, resolve, step_schema

MAX_TEXT = 100_000
MAX_ITEMS = 1_000
MAX_DEPTH = 8


class Kind(StrEnum):
    TEXT = "text"
    INTEGER = "integer"
    REAL = "real"
    BOOLEAN = "boolean"
    DATE = "date"
    FILE = "file"
    RECORD = "record"
    ENUM = "enumeration"
    OBJECT = "object"
    TYPE = "type"
    ANY = "any"


BUILTIN: dict[str, Kind] = {
    **dict.fromkeys(
        ("text", "string", "unicodetext", "styledtext", "internationaltext"), Kind.TEXT
    ),
    **dict.fromkeys(("integer", "smallinteger", "longinteger"), Kind.INTEGER),
    **dict.fromkeys(("real", "number", "smallreal", "doubleinteger"), Kind.REAL),
    "boolean": Kind.BOOLEAN,
    "date": Kind.DATE,
    **dict.fromkeys(("file", "alias", "fileurl", "filespecification"), Kind.FILE),
    "record": Kind.RECORD,
    **dict.fromkeys(("specifier", "locationspecifier", "reference", "object"), Kind.OBJECT),
    **dict.fromkeys(("type", "class", "typeclass"), Kind.TYPE),
    "any": Kind.ANY,
}


def kinds(ref: TypeRef, d: Dictionary) -> list[Kind]:
    """What a type name means here; a name that is both a built-in and a class (Finder's
    "file") may be either."""
    key = term_key(ref.name)
    found: list[Kind] = []
    if key in BUILTIN:
        found.append(BUILTIN[key])
    if d.enumeration(ref.name) is not None:
        found.append(Kind.ENUM)
    if d.record_type(ref.name) is not None:
        found.append(Kind.RECORD)
    if d.has_class(ref.name) and Kind.OBJECT not in found:
        found.append(Kind.OBJECT)
    return found or [Kind.ANY]  # point, rectangle, color, data, app-defined value types


# --- JSON Schema ----------------------------------------------------------------------------


def _one_schema(ref: TypeRef, kind: Kind, d: Dictionary) -> dict[str, Any]:
    match kind:
        case Kind.TEXT:
            return {"type": "string"}
        case Kind.INTEGER:
            return {"type": "integer"}
        case Kind.REAL:
            return {"type": "number"}
        case Kind.BOOLEAN:
            return {"type": "boolean"}
        case Kind.DATE:
            return {"type": "string", "format": "date-time"}
        case Kind.FILE:
            return {"type": "string", "description": "A POSIX path, e.g. /Users/ana/report.pdf"}
        case Kind.ENUM:
            enumeration = d.enumeration(ref.name)
            names = [e.name for e in enumeration.enumerators] if enumeration else []
            return {"type": "string", "enum": names}
        case Kind.RECORD:
            record = d.record_type(ref.name)
            if record is None:
                return {"type": "object"}
            return {
                "type": "object",
                "properties": {p.name: type_schema(p.types, d) for p in record.properties},
                "additionalProperties": False,
            }
        case Kind.OBJECT:
            what = ref.name if d.has_class(ref.name) else "an object"
            return {"$ref": "#/$defs/reference", "description": f"A reference to {what}."}
        case Kind.TYPE:
            return {"type": "string", "description": "A class name, e.g. 'folder'."}
    return {}


def type_schema(types: list[TypeRef], d: Dictionary) -> dict[str, Any]:
    """The JSON Schema of a value that may have any of `types`."""
    options: list[dict[str, Any]] = []
    for ref in types:
        for kind in kinds(ref, d):
            schema = _one_schema(ref, kind, d)
            if ref.many:
                schema = {"type": "array", "items": schema}
            if schema not in options:
                options.append(schema)
    if not options or {} in options:
        return {}
    return options[0] if len(options) == 1 else {"anyOf": options}


def reference_defs() -> dict[str, Any]:
    """The `$defs` entry the `{"$ref": "#/$defs/reference"}` schemas above point at."""
    schema = step_schema()
    defs = schema.pop("$defs", {})
    return {**defs, "reference": schema}


# --- values from the model -----------------------------------------------------------------


class Convert:
    """Checks model values against one dictionary and tags them for call.js."""

    def __init__(self, d: Dictionary, app: str) -> None:
        self.d = d
        self.app = app

    def value(self, raw: Any, types: list[TypeRef], what: str, depth: int = 0) -> Any:
        """`raw` as one of `types`; Refused (saying what `what` takes) when it fits none."""
        if depth > MAX_DEPTH:
            raise Refused(f"{what} is nested too deeply.")
        if not types:
            return self.any(raw, what, depth)
        problems: list[tuple[bool, str]] = []  # (the value's JSON shape fits the kind, why not)
        for ref in types:
            for kind in kinds(ref, self.d):
                try:
                    if ref.many:
                        items = raw if isinstance(raw, list) else [raw]
                        if len(items) > MAX_ITEMS:
                            raise Refused(f"{what} has too many items (at most {MAX_ITEMS}).")
                        one = TypeRef(name=ref.name)
                        return [self.one(item, one, kind, what, depth + 1) for item in items]
                    return self.one(raw, ref, kind, what, depth)
                except Refused as exc:
                    problems.append((_shape_fits(raw, kind, ref.many), exc.phrase))
        fitting = list(dict.fromkeys(phrase for fits, phrase in problems if fits))
        if len(fitting) == 1:
            raise Refused(fitting[0])  # e.g. a relative path for a file: say that, not "fits none"
        if len(problems) == 1:
            raise Refused(problems[0][1])
        labels = ", ".join(dict.fromkeys(ref.label() for ref in types))
        raise Refused(f"{what} takes {labels}; the value given fits none of them.")

    def one(self, raw: Any, ref: TypeRef, kind: Kind, what: str, depth: int) -> Any:
        match kind:
            case Kind.TEXT:
                if not isinstance(raw, str):
                    raise Refused(f"{what} takes text.")
                if len(raw) > MAX_TEXT:
                    raise Refused(f"{what} is too long (at most {MAX_TEXT} characters).")
                return raw
            case Kind.INTEGER:
                if isinstance(raw, bool) or not isinstance(raw, int):
                    raise Refused(f"{what} takes a whole number.")
                return raw
            case Kind.REAL:
                if isinstance(raw, bool) or not isinstance(raw, int | float):
                    raise Refused(f"{what} takes a number.")
                if not math.isfinite(raw):
                    raise Refused(f"{what} takes a finite number.")
                return raw
            case Kind.BOOLEAN:
                if not isinstance(raw, bool):
                    raise Refused(f"{what} takes true or false.")
                return raw
            case Kind.DATE:
                return {"$date": self.date(raw, what)}
            case Kind.FILE:
                return {"$file": self.path(raw, what)}
            case Kind.ENUM:
                return self.enumerator(raw, ref, what)
            case Kind.RECORD:
                return self.record(raw, ref, what, depth)
            case Kind.OBJECT:
                return {"$ref": self.reference(raw, what)}
            case Kind.TYPE:
                return self.class_name(raw, what)
        return self.any(raw, what, depth)

    def any(self, raw: Any, what: str, depth: int) -> Any:
        """A value of no declared type: scalars as they are, lists and records inside out."""
        if raw is None or isinstance(raw, bool | int | str):
            return raw
        if isinstance(raw, float):
            return self.one(raw, TypeRef(name="real"), Kind.REAL, what, depth)
        if isinstance(raw, list):
            if len(raw) > MAX_ITEMS:
                raise Refused(f"{what} has too many items (at most {MAX_ITEMS}).")
            if raw and all(isinstance(item, dict) for item in raw) and _looks_like_steps(raw):
                return {"$ref": self.reference(raw, what)}
            return [self.any(item, what, depth + 1) for item in raw]
        if isinstance(raw, dict):
            return self.record(raw, TypeRef(name="record"), what, depth)
        raise Refused(f"{what} has a value of an unsupported kind.")

    def date(self, raw: Any, what: str) -> str:
        if not isinstance(raw, str):
            raise Refused(f"{what} takes a date such as 2024-05-03T14:30 (local time).")
        try:
            moment = datetime.fromisoformat(raw.strip())
        except ValueError as exc:
            raise Refused(f"{what} takes a date such as 2024-05-03T14:30 (local time).") from exc
        return moment.astimezone().isoformat()

    @staticmethod
    def path(raw: Any, what: str) -> str:
        if not isinstance(raw, str) or not raw.strip() or "\x00" in raw or len(raw) > 4096:
            raise Refused(f"{what} takes a file's POSIX path, e.g. /Users/ana/report.pdf.")
        text = os.path.expanduser(raw) if raw.startswith("~") else raw
        if not text.startswith("/"):
            raise Refused(f"{what} takes an absolute path (starting with / or ~).")
        return os.path.normpath(text)

    def enumerator(self, raw: Any, ref: TypeRef, what: str) -> str:
        enumeration = self.d.enumeration(ref.name)
        names = [e.name for e in enumeration.enumerators] if enumeration else []
        if isinstance(raw, str):
            for name in names:
                if term_key(name) == term_key(raw):
                    return name
        raise Refused(f"{what} takes one of: {', '.join(names) or 'nothing known'}.")

    def class_name(self, raw: Any, what: str) -> str:
        if isinstance(raw, str):
            merged = self.d.merged_class(raw)
            if merged is not None:
                return jxa_name(merged.name)
        known = ", ".join(sorted(self.d.class_names())[:60])
        raise Refused(f"{what} takes a class name: {known or 'none are defined'}.")

    def reference(self, raw: Any, what: str) -> list[dict[str, Any]]:
        try:
            steps = REFERENCE.validate_python(raw)
        except ValidationError as exc:
            raise Refused(
                f"{what} takes an object reference: a list of steps such as "
                '[{"elements": "folders", "name": "Desktop"}].'
            ) from exc
        return resolve(steps, self.d, app=self.app).steps

    def record(
        self,
        raw: Any,
        ref: TypeRef,
        what: str,
        depth: int,
        *,
        of_class: MergedClass | None = None,
    ) -> dict[str, Any]:
        """A record; its keys are checked against a record type or a class when there is one."""
        if not isinstance(raw, dict):
            raise Refused(f"{what} takes a record (a JSON object).")
        if len(raw) > 200:
            raise Refused(f"{what} has too many fields.")
        record_type = self.d.record_type(ref.name)
        fields = (
            record_type.properties if record_type else of_class.properties if of_class else None
        )
        out: dict[str, Any] = {}
        for key, item in raw.items():
            label = f"{quote(str(key))} in {what}"
            if fields is None:
                name = jxa_name(str(key))
                if not (name.isascii() and name.isalnum() and name[0].isalpha()):
                    raise Refused(f"{label} is not a property name.")
                out[name] = self.any(item, label, depth + 1)
                continue
            prop = next((p for p in fields if term_key(p.name) == term_key(str(key))), None)
            if prop is None:
                names = ", ".join(sorted(p.name for p in fields)[:60])
                raise Refused(f"{label} is not a property here. Properties: {names}.")
            out[jxa_name(prop.name)] = self.value(item, prop.types, label, depth + 1)
        return {"$record": out}


def _shape_fits(raw: Any, kind: Kind, many: bool) -> bool:
    """Whether a JSON value has the shape `kind` takes (so its refusal is the one to tell)."""
    if many or kind is Kind.OBJECT:
        return isinstance(raw, list)
    if kind in (Kind.TEXT, Kind.DATE, Kind.FILE, Kind.ENUM, Kind.TYPE):
        return isinstance(raw, str)
    if kind is Kind.RECORD:
        return isinstance(raw, dict)
    return True


def _looks_like_steps(items: list[dict[str, Any]]) -> bool:
    return all(("elements" in item) or ("property" in item) for item in items)


def describe_value(value: Any, limit: int = 60) -> str:
    """A model value in a few words for the approval sheet (references are given in words
    by the caller)."""
    if isinstance(value, str):
        return quote(value, limit)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, int | float):
        return "nothing" if value is None else str(value)
    if isinstance(value, list):
        shown = ", ".join(describe_value(item, 30) for item in value[:3])
        return f"[{shown}{', …' if len(value) > 3 else ''}]"
    if isinstance(value, dict):
        parts = [f"{key}: {describe_value(item, 30)}" for key, item in list(value.items())[:4]]
        return "{" + ", ".join(parts) + (", …" if len(value) > 4 else "") + "}"
    return "a value"
