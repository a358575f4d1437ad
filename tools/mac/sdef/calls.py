"""One `app_command` call checked against the app's dictionary and turned into call.js's input.

Command, parameter, class and property names must exist in the dictionary (an unknown name is
refused with the names that do); values must fit their types; a read-only property is never
set. What comes out is data for the constant script `sdef/call.js`: JXA names, checked
reference steps and tagged values, plus the risk and the sentence the approver reads.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError

from tools.base import Risk
from tools.data import Data
from tools.mac.osa.text import quote
from tools.mac.sdef.errors import Refused
from tools.mac.sdef.model import Command, Dictionary, jxa_name, term_key
from tools.mac.sdef.reference import REFERENCE, Resolved, Step, resolve
from tools.mac.sdef.risk import command_risk
from tools.mac.sdef.values import Convert, Kind, describe_value, kinds

# get, set, exists and count are part of the scripting language itself (JXA's `ref()`,
# `ref.prop = value`, `ref.exists()`, `ref.length`): they work even when a dictionary does
# not list them, and they send exactly the standard events.
BUILT_IN = ("get", "set", "exists", "count")
RESULT_ITEMS = 500  # list items call.js renders at most
RESULT_TEXT = 4_000  # characters of one text value call.js renders at most
RESULT_CHARS = 200_000  # characters of text call.js renders in all (under the output cap)
SUMMARY_LIMIT = 300

Form = Literal["get", "set", "exists", "count", "command"]


class CallTarget(Data):
    """The app a call goes to, as discovery found it."""

    name: str
    bundle_id: str | None = None
    path: str = ""

    @property
    def address(self) -> str:
        """What call.js passes to `Application(...)`: the bundle id, else the bundle's path."""
        return self.bundle_id or self.path or self.name


class PreparedCall(Data):
    """A checked call: what call.js receives, its risk, and the sentence for the approver."""

    app: str
    command: str  # the dictionary's name of the command
    form: Form
    payload: dict[str, Any]
    risk: Risk
    reason: str
    summary: str
    # For reading back what it changed: the object in words, and where `make` makes one.
    object_words: str = ""
    where: str = ""


class CallParts(Data):
    """What the model asks for (the input of `app_command` without the app and dry_run)."""

    command: str = Field(max_length=200)
    reference: list[Step] | None = None
    direct_parameter: Any = None
    parameters: dict[str, Any] = Field(default_factory=dict)


def _names(items: list[str], limit: int = 60) -> str:
    unique = sorted(set(items))
    shown = unique[:limit]
    return ", ".join(shown) + (f" and {len(unique) - limit} more" if len(unique) > limit else "")


def prepare(call: CallParts, app: CallTarget, d: Dictionary) -> PreparedCall:
    """The call ready for call.js, or Refused with a phrase saying what to change."""
    key = term_key(call.command)
    command = d.command(call.command)
    form: Form = "command"
    if key in BUILT_IN:
        form = key  # type: ignore[assignment]
    elif command is None:
        names = [c.name for c in d.commands()] + list(BUILT_IN)
        raise Refused(
            f"{app.name} has no command {quote(call.command)}. Its commands: {_names(names)}."
        )
    name = command.name if command is not None and form == "command" else key
    convert = Convert(d, app.name)
    resolved = resolve(call.reference, d, app=app.name) if call.reference is not None else None
    words: list[str] = []
    payload: dict[str, Any] = {
        "app": app.address,
        "form": form,
        "command": jxa_name(name),
        "target": resolved.steps if resolved else None,
        "has_direct": False,
        "direct": None,
        "parameters": {},
        "limits": {"items": RESULT_ITEMS, "text": RESULT_TEXT, "chars": RESULT_CHARS},
    }
    if form == "command":
        assert command is not None
        resolved = _command(call, command, d, convert, resolved, payload, words)
    elif form == "set":
        _set(call, app, convert, resolved, payload, words)
    else:
        if resolved is None:
            resolved = _object_from_direct(call, convert, d, app)
            payload["target"] = resolved.steps
        if not resolved.steps:
            raise Refused(f"{name} needs a reference to an object of the app, not the app itself.")
        if form == "count" and not resolved.many:
            raise Refused(
                'count counts elements: end the reference with elements, e.g. {"elements": "files"}.'
            )
        if call.parameters:
            raise Refused(f"{name} takes no named parameters here; give only the reference.")
        words.insert(0, resolved.words)
    risk, reason = command_risk(name, app=app.name, bundle_id=app.bundle_id)
    summary = " ".join([f"{app.name}: {name}", *[w for w in words if w]])
    if len(summary) > SUMMARY_LIMIT:
        summary = summary[: SUMMARY_LIMIT - 1] + "…"
    at = next((raw for key, raw in call.parameters.items() if term_key(key) == "at"), None)
    return PreparedCall(
        app=app.name,
        command=name,
        form=form,
        payload=payload,
        risk=risk,
        reason=reason,
        summary=summary,
        object_words=resolved.words if resolved is not None else "",
        where=_describe(at, convert) if at is not None else "",
    )


def _object_from_direct(
    call: CallParts, convert: Convert, d: Dictionary, app: CallTarget
) -> Resolved:
    """get/exists/count need an object: the reference, or a reference as direct_parameter."""
    if call.direct_parameter is None:
        raise Refused(
            f"{call.command} needs a reference to the object, e.g. "
            '[{"elements": "folders", "name": "Desktop"}, {"property": "name"}].'
        )
    try:
        steps = REFERENCE.validate_python(call.direct_parameter)
    except ValidationError as exc:
        raise Refused(f"{call.command} takes an object reference (a list of steps).") from exc
    return resolve(steps, d, app=app.name)


def _set(
    call: CallParts,
    app: CallTarget,
    convert: Convert,
    resolved: Resolved | None,
    payload: dict[str, Any],
    words: list[str],
) -> None:
    if resolved is None:
        resolved = _object_from_direct(call, convert, convert.d, app)
    prop = resolved.last_property
    if prop is None:
        raise Refused(
            "set changes a property: end the reference with a property step, e.g. "
            '{"property": "name"}, and give the new value as parameters.to.'
        )
    if not prop.writable:
        raise Refused(f"The {prop.name} property is read-only in {app.name}; it can't be set.")
    extra = [k for k in call.parameters if term_key(k) != "to"]
    if extra or len(call.parameters) != 1:
        raise Refused("set takes exactly one named parameter: to (the new value).")
    raw = next(iter(call.parameters.values()))
    value = convert.value(raw, prop.types, f"The new {prop.name}")
    payload["target"] = resolved.steps[:-1]
    payload["property"] = resolved.steps[-1]["property"]
    payload["value"] = value
    words.extend([resolved.words, "to", _describe(raw, convert)])


def _command(
    call: CallParts,
    command: Command,
    d: Dictionary,
    convert: Convert,
    resolved: Resolved | None,
    payload: dict[str, Any],
    words: list[str],
) -> Resolved | None:
    direct = command.direct_parameter
    if resolved is not None and direct is None:
        raise Refused(f"{command.name} acts on no object; leave out reference.")
    if call.direct_parameter is not None:
        if direct is None:
            raise Refused(f"{command.name} takes no direct parameter.")
        direct_value = convert.value(call.direct_parameter, direct.types, "The direct parameter")
        if isinstance(direct_value, dict) and "$ref" in direct_value:
            if resolved is not None:
                raise Refused("Give the object once: as reference or as direct_parameter.")
            steps = REFERENCE.validate_python(call.direct_parameter)
            resolved = resolve(steps, d, app=convert.app)
            payload["target"] = resolved.steps
        else:
            payload["has_direct"] = True
            payload["direct"] = direct_value
            words.append(_describe(call.direct_parameter, convert))
    elif resolved is None and direct is not None and not direct.optional:
        labels = ", ".join(t.label() for t in direct.types) or "a value"
        raise Refused(f"{command.name} needs a direct parameter ({labels}) or a reference.")
    if resolved is not None:
        words.insert(0, resolved.words)
    of_class = None
    new = next((k for k in call.parameters if term_key(k) == "new"), None)
    if new is not None and isinstance(call.parameters[new], str):
        of_class = d.merged_class(call.parameters[new])
    given = {term_key(k) for k in call.parameters}
    for key, raw in call.parameters.items():
        param = command.parameter(key)
        if param is None:
            names = [p.name for p in command.parameters]
            raise Refused(
                f"{command.name} has no parameter {quote(key)}. Its parameters: "
                f"{_names(names) or 'none'}."
            )
        what = f"The {param.name} parameter"
        record_like = any(Kind.RECORD in kinds(t, d) for t in param.types)
        if record_like and of_class is not None and isinstance(raw, dict):
            value: Any = convert.record(raw, param.types[0], what, 0, of_class=of_class)
        else:
            value = convert.value(raw, param.types, what)
        payload["parameters"][jxa_name(param.name)] = value
        words.extend([param.name, _describe(raw, convert)])
    missing = [
        p.name for p in command.parameters if not p.optional and term_key(p.name) not in given
    ]
    if missing:
        raise Refused(f"{command.name} also needs: {', '.join(missing)}.")
    return resolved


def _describe(raw: Any, convert: Convert) -> str:
    """A value in words; references as "file 'a' in folder 'b'"."""
    if isinstance(raw, list) and raw and all(isinstance(item, dict) for item in raw):
        try:
            return resolve(REFERENCE.validate_python(raw), convert.d, app=convert.app).words
        except (ValidationError, Refused):
            pass
    return describe_value(raw)
