"""Tools built from a table with one row per action.

A row (`Action`) says everything about one action: its name, its risk and why, its label on the
Permissions page, the line the approval sheet shows, the fields it takes (a pydantic model), the
constant JXA script it runs and how the script's answer reads to the model. From the rows come
the tool's JSON schema (one object with an `action` enum, so the model sees one tool), its
`actions()`, `risk()`, `summary()`, `target()`, the description the model reads, and the dispatch
of `run`. A call validates into its row's model, so each action's code sees exactly its fields.

Text columns are templates over the call: `{field}` is a field or property of the row's model,
`{field!q}` its text quoted for one line (`{field!q:120}`: at most 120 characters) and `{field!n}`
its length. Templates are constants checked when the table is built; values only fill them.
"""

from __future__ import annotations

import string
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Generic, Self, TypeVar, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    model_validator,
)
from pydantic.config import ExtraValues
from pydantic.json_schema import SkipJsonSchema

from tools.base import ActionInfo, Risk, RunContext, Tool, ToolResult
from tools.data import Data
from tools.mac.osa.engine import OsaEngine
from tools.mac.osa.errors import OsaError, OsaProblem, ProblemKind, problem
from tools.mac.osa.text import quote
from tools.mac.osa.tool_runs import run_action

__all__ = ["Action", "ActionInput", "ActionTable", "LookedUp", "TableTool", "fill"]

T = TypeVar("T")
CallT = TypeVar("CallT", bound="ActionInput")
InputT = TypeVar("InputT", bound="ActionInput")


def _never_from_input(_value: Any) -> None:
    return None


# A value the tool looks up before the approval sheet (e.g. the titles of the tabs a close
# affects). Never taken from the model's input, never in the schema, never sent to a script.
LookedUp = Annotated[
    SkipJsonSchema[T | None], Field(exclude=True), BeforeValidator(_never_from_input)
]


class ActionInput(Data):
    """A call of a table tool: `action` names the row, and the row's model adds its fields.

    Each tool has one subclass (holding the fields every action shares); each action's fields
    model subclasses that. `ToolInput.model_validate(raw)`, or `ToolInput(**raw)`, returns an
    instance of the model of the row `raw["action"]` names; an unknown action is a
    ValidationError like any other bad input.
    """

    action: str = Field(description="What to do.")

    # Set by ActionTable on the tool's own input class (not on the rows' models).
    action_rows: ClassVar[TypeAdapter[Any] | None] = None

    def __new__(cls, /, **data: Any) -> Self:
        if data and cls.__dict__.get("action_rows") is not None:
            # Python then runs the row model's __init__ on it, which validates the same data.
            return cls.model_validate(data)
        return super().__new__(cls)

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        options: dict[str, Any] = {
            "strict": strict, "extra": extra, "from_attributes": from_attributes,
            "context": context, "by_alias": by_alias, "by_name": by_name,
        }  # fmt: skip
        rows = cls.__dict__.get("action_rows")
        if rows is None:
            return super().model_validate(obj, **options)
        call: Self = rows.validate_python(obj, **options)
        return call

    @model_validator(mode="after")
    def _needed_fields_not_empty(self) -> Self:
        # An action's needed fields (those without a default) may not be left empty.
        for name, info in type(self).model_fields.items():
            if info.is_required() and getattr(self, name) in ("", []):
                raise ValueError(f"{self.action} needs {info.alias or name}")
        return self

    def payload(self) -> dict[str, Any]:
        """What the action's script receives as its one JSON argument: by default the fields."""
        return self.model_dump(mode="json", exclude={"action"})


class _Quoted:
    def __init__(self, value: object) -> None:
        self.text = str(value)


class _Template(string.Formatter):
    """str.format with `!q` (quoted for one line, escapes shown) and `!n` (length)."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "q":
            return _Quoted(value)
        if conversion == "n":
            return len(value)
        return super().convert_field(value, conversion)

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, _Quoted):
            return quote(value.text, int(format_spec) if format_spec else 60)
        return str(super().format_field(value, format_spec))


class _Attributes(Mapping[str, Any]):
    def __init__(self, call: BaseModel) -> None:
        self.call = call

    def __getitem__(self, key: str) -> Any:
        return getattr(self.call, key)

    def __iter__(self) -> Iterator[str]:
        return iter(type(self.call).model_fields)

    def __len__(self) -> int:
        return len(type(self.call).model_fields)


_TEMPLATE = _Template()


def fill(template: str, call: BaseModel) -> str:
    """A text column's template filled with the call's fields and properties."""
    return _TEMPLATE.vformat(template, (), _Attributes(call))


Formatter = Callable[[CallT, dict[str, Any]], ToolResult]
Handler = Callable[[Any, CallT], Awaitable[ToolResult]]


@dataclass(frozen=True)
class Action(Generic[CallT]):
    """One action of a table tool: one row."""

    name: str
    fields: type[CallT]  # the fields the action takes; subclasses the tool's input class
    risk: Risk
    reason: str  # template: why it has that risk, shown on the approval sheet
    label: str  # what it does, on the Permissions page
    summary: str  # template: the approval sheet's one line
    script: str  # the constant JXA script it runs, under tools/mac/osa/scripts/ (no .js)
    hint: str = ""  # a few words for the model beyond the field names
    target: str | None = None  # template: what it acts on (an app, a page), for the approver
    drives: str | None = None  # template: the app the script sends Apple Events to
    # The model's answer: a template, or a function of the call and the script's answer.
    result: str | Formatter[CallT] = ""
    # For actions that take more than the script's one answer: (tool, call) -> result.
    run: Handler[CallT] | None = None

    def templates(self) -> list[str]:
        texts = [self.reason, self.summary, self.target, self.drives]
        if isinstance(self.result, str):
            texts.append(self.result)
        return [text for text in texts if text]


class ActionTable(Generic[InputT]):
    """The rows of one tool, and everything derived from them."""

    def __init__(
        self, input: type[InputT], rows: Sequence[Action[Any]], *, about: str, closing: str = ""
    ) -> None:
        names = [row.name for row in rows]
        if len(set(names)) != len(names):
            raise ValueError(f"{input.__name__}: an action is named twice")
        if input.__dict__.get("action_rows") is not None:
            raise ValueError(f"{input.__name__} already has an action table")
        for row in rows:
            if not issubclass(row.fields, input):
                raise TypeError(f"{row.name}: its fields must subclass {input.__name__}")
            for template in row.templates():
                _check_template(row, template)
        self.input = input
        self.rows: dict[str, Action[Any]] = {row.name: row for row in rows}
        self.schema = self._schema()
        self.description = self._description(about, closing)
        choices = tuple(Annotated[row.fields, Tag(row.name)] for row in rows)
        one_of: Any = Annotated[Union[choices], Discriminator(_action_of)]  # noqa: UP007
        input.action_rows = TypeAdapter(one_of)

    def __getitem__(self, name: str) -> Action[Any]:
        return self.rows[name]

    def __iter__(self) -> Iterator[Action[Any]]:
        return iter(self.rows.values())

    def actions(self) -> list[ActionInfo]:
        return [ActionInfo(name=r.name, risk=r.risk, description=r.label) for r in self]

    def _own_fields(self, row: Action[Any]) -> list[str]:
        """The JSON names of the fields a row adds to those every action shares."""
        shared = self.input.model_json_schema()["properties"]
        return [name for name in row.fields.model_json_schema()["properties"] if name not in shared]

    def _schema(self) -> dict[str, Any]:
        """One object: `action` (an enum of the rows) and every row's fields. A field several
        actions use must have one shape; its description says which action uses it how."""
        shared = self.input.model_json_schema()["properties"]
        fields: dict[str, _Field] = {}
        defs: dict[str, Any] = {}
        for row in self:
            schema = row.fields.model_json_schema()
            for key, value in schema.get("$defs", {}).items():
                if defs.setdefault(key, value) != value:
                    raise ValueError(f"{row.name}: two different definitions named {key}")
            for name, prop in schema["properties"].items():
                if name == "action":
                    continue
                shape = _shape(prop)
                gathered = fields.setdefault(name, _Field(shape))
                if gathered.shape != shape:
                    raise ValueError(f"{row.name}: field {name} differs from another action's")
                gathered.defaults.append(prop.get("default", _REQUIRED))
                gathered.uses.setdefault(prop.get("description", ""), []).append(row.name)
        properties: dict[str, Any] = {
            "action": {"type": "string", "enum": list(self.rows), "description": "What to do."}
        }
        for name, gathered in fields.items():
            properties[name] = gathered.schema(shared=name in shared)
        whole: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": ["action"],
        }
        if defs:
            whole["$defs"] = defs
        return whole

    def _description(self, about: str, closing: str) -> str:
        parts = []
        for row in self:
            inside = ", ".join(self._own_fields(row))
            if row.hint:
                inside = f"{inside}: {row.hint}" if inside else row.hint
            parts.append(f"{row.name} ({inside})" if inside else row.name)
        return " ".join(text for text in [about, f"Actions: {', '.join(parts)}.", closing] if text)


_REQUIRED = object()  # a row's field without a default


@dataclass
class _Field:
    """One field of the one-object schema, gathered from the rows that take it."""

    shape: dict[str, Any]
    uses: dict[str, list[str]] = field(default_factory=dict)  # its description -> actions
    defaults: list[Any] = field(default_factory=list)

    def schema(self, *, shared: bool) -> dict[str, Any]:
        prop = dict(self.shape)
        if shared:  # declared once, on the tool's input class
            described = next(iter(self.uses))
        else:
            described = "; ".join(
                f"{', '.join(actions)}: {about}" for about, actions in self.uses.items() if about
            )
            described += "." if described else ""
        if described:
            prop["description"] = described
        first = self.defaults[0]
        if (
            first is not _REQUIRED
            and first is not None
            and self.defaults.count(first) == len(self.defaults)
        ):
            prop["default"] = first
        return prop


def _shape(prop: dict[str, Any]) -> dict[str, Any]:
    """A field's JSON schema without its words and default, and without the `null` choice: in
    the one-object schema every field but `action` may be left out, which is how to say none."""
    shape = {
        key: value for key, value in prop.items() if key not in ("title", "description", "default")
    }
    options = shape.pop("anyOf", None)
    if options is None:
        return shape
    kept = [option for option in options if option != {"type": "null"}]
    return {**shape, **kept[0]} if len(kept) == 1 else {**shape, "anyOf": kept}


def _action_of(value: Any) -> Any:
    if isinstance(value, Mapping):
        return value.get("action")
    return getattr(value, "action", None)


def _check_template(row: Action[Any], template: str) -> None:
    """A typo in a template fails when the table is built, not when a person is asked."""
    for _text, named, spec, conversion in _TEMPLATE.parse(template):
        if named is None:
            continue
        name = named.split(".", 1)[0].split("[", 1)[0]
        known = name in row.fields.model_fields or isinstance(
            getattr(row.fields, name, None), property
        )
        if not known:
            raise ValueError(f"{row.name}: {template!r} names {name!r}, not one of its fields")
        if conversion not in (None, "q", "n", "s", "r") or (
            conversion == "q" and spec and not spec.isdigit()
        ):
            raise ValueError(f"{row.name}: {template!r} has an unknown conversion")


class TableTool(Tool[InputT]):
    """A Mac tool built from an action table; its actions run constant JXA scripts.

    Subclasses set `name`, `title` and `table`; their `Input` (the table's input class) and
    `description` (the one the model reads) are the table's. A row without `run` runs its
    script with `call.payload()`, passes the answer through `check`, then its `result`.
    """

    table: ClassVar[ActionTable[Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "table" in cls.__dict__:
            cls.Input = cls.table.input
            cls.description = cls.table.description

    def __init__(
        self, engine: OsaEngine, *, on_problem: Callable[[OsaProblem], None] | None = None
    ) -> None:
        self.engine = engine
        self.on_problem = on_problem  # e.g. the window shows "Open System Settings" for -1743

    # --- what the gate and the approver see -----------------------------------------------

    def row(self, call: InputT) -> Action[Any]:
        return self.table[call.action]

    def risk(self, call: InputT) -> tuple[Risk, str]:
        row = self.row(call)
        return row.risk, fill(row.reason, call)

    def action(self, call: InputT) -> str:
        return call.action

    def summary(self, call: InputT) -> str:
        return fill(self.row(call).summary, call)

    def target(self, call: InputT) -> str | None:
        target = self.row(call).target
        return fill(target, call) if target is not None else None

    def actions(self) -> list[ActionInfo]:
        return self.table.actions()

    def input_schema(self) -> dict[str, Any]:
        return self.table.schema

    async def prepare(self, call: InputT) -> InputT:
        """The call as the approver should see it (looked-up values filled in); a read."""
        return call

    # --- running --------------------------------------------------------------------------

    async def run(self, call: InputT, ctx: RunContext) -> ToolResult:
        work = self.perform(call, ctx)
        return await run_action(
            work, ctx, on_problem=self.on_problem, what=f"{self.name} {call.action}"
        )

    async def perform(self, call: InputT, ctx: RunContext) -> ToolResult:
        """The row's dispatch: its handler, or its script and its result."""
        row = self.row(call)
        if row.run is not None:
            return await row.run(self, call)
        answer = await self.call_action_script(call)
        if (failed := self.check(call, answer, ctx)) is not None:
            return failed
        if isinstance(row.result, str):
            return ToolResult(text=fill(row.result, call))
        return row.result(call, answer)

    def check(self, call: InputT, answer: dict[str, Any], ctx: RunContext) -> ToolResult | None:
        """A failure every action of the tool answers the same way, or None."""
        return None

    async def call_action_script(
        self, call: InputT, payload: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The answer of the call's row script, given `payload` (default: the call's)."""
        row = self.row(call)
        app = fill(row.drives, call) if row.drives else None
        return await self.call_script(
            row.script, call.payload() if payload is None else payload, app=app
        )

    async def call_script(
        self, script: str, payload: Mapping[str, Any], *, app: str | None
    ) -> dict[str, Any]:
        """A script's answer, which every script here gives as a JSON object."""
        result = await self.engine.call(script, payload, app=app)
        if not isinstance(result, dict):
            raise OsaError(problem(ProblemKind.BAD_OUTPUT, app=app, detail=str(result)[:200]))
        return result
