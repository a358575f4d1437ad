"""The parsed scripting dictionary of one app: suites, commands, classes, enumerations, types.

Plain dataclasses plus lookups by name: reading a dictionary (`deskhand apps dictionary FILE`)
needs no pydantic, whose import alone takes longer than most parses; the cache reads and writes
them as JSON through a pydantic adapter of its own (`cache.py`). Names are matched by
`term_key`, so "disk items", "diskItems" and "Disk Items" all find the same element; synonyms
count too. A class defined in several suites (or extended by a `class-extension`) is seen as
one merged class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

Access = Literal["r", "w", "rw"]

_NOT_WORD = re.compile(r"[^a-z0-9]")


def term_key(name: str) -> str:
    """The key two spellings of one term share: "shut down", "shutDown" -> "shutdown"."""
    return _NOT_WORD.sub("", name.lower())


def jxa_name(term: str) -> str:
    """The JavaScript name JXA gives a dictionary term: "with properties" -> "withProperties",
    "do JavaScript" -> "doJavaScript", "URL" -> "url"."""
    words = [re.sub(r"[^A-Za-z0-9_]", "", word) for word in term.split()]
    words = [word for word in words if word]
    if not words:
        return ""
    first = words[0].lower() if words[0].isupper() else words[0][0].lower() + words[0][1:]
    return first + "".join(word[0].upper() + word[1:] for word in words[1:])


@dataclass(kw_only=True)
class TypeRef:
    """One allowed type: a type name ("text", "file", a class or enumeration) or a list of it."""

    name: str
    many: bool = False

    def label(self) -> str:
        return f"list of {self.name}" if self.many else self.name


@dataclass(kw_only=True)
class Term:
    """What every named term of a dictionary has: its name, its four-character Apple Event code
    and the description the dictionary gives it."""

    name: str
    code: str = ""
    description: str = ""


@dataclass(kw_only=True)
class Parameter(Term):
    """A named parameter of a command, with the types it takes."""

    types: list[TypeRef] = field(default_factory=list)
    optional: bool = False


@dataclass(kw_only=True)
class DirectParameter:
    """The value a command takes right after its name (`delete <it>`)."""

    types: list[TypeRef] = field(default_factory=list)
    optional: bool = False
    description: str = ""


@dataclass(kw_only=True)
class Result:
    """What a command gives back."""

    types: list[TypeRef] = field(default_factory=list)
    description: str = ""


@dataclass(kw_only=True)
class Command(Term):
    """A command of the dictionary: its direct parameter, named parameters and result."""

    synonyms: list[str] = field(default_factory=list)
    direct_parameter: DirectParameter | None = None
    parameters: list[Parameter] = field(default_factory=list)
    result: Result | None = None

    def parameter(self, name: str) -> Parameter | None:
        key = term_key(name)
        return next((p for p in self.parameters if term_key(p.name) == key), None)


@dataclass(kw_only=True)
class Property(Term):
    """A property of a class or record: its types and whether scripts may set it."""

    types: list[TypeRef] = field(default_factory=list)
    access: Access = "rw"
    synonyms: list[str] = field(default_factory=list)

    @property
    def writable(self) -> bool:
        return "w" in self.access


@dataclass(kw_only=True)
class Element:
    """A kind of element a class contains, named by its class (a folder's files)."""

    type: str  # the class of the elements
    access: Access = "rw"


@dataclass(kw_only=True)
class ClassDef(Term):
    """A class as one suite defines (or extends) it."""

    plural: str = ""
    inherits: str | None = None
    extension: bool = False  # from a class-extension: adds to a class defined elsewhere
    synonyms: list[str] = field(default_factory=list)
    properties: list[Property] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)
    responds_to: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class Enumerator(Term):
    """One named value of an enumeration."""


@dataclass(kw_only=True)
class Enumeration:
    """A named set of values (`saving options`: yes, no, ask)."""

    name: str
    code: str = ""
    enumerators: list[Enumerator] = field(default_factory=list)


@dataclass(kw_only=True)
class ValueType(Term):
    """A simple type the dictionary defines (its `value-type`), named like a class."""


@dataclass(kw_only=True)
class RecordType(Term):
    """A record the dictionary defines: named properties, no identity."""

    properties: list[Property] = field(default_factory=list)


@dataclass(kw_only=True)
class Suite(Term):
    """One suite of the dictionary: the terms it groups."""

    commands: list[Command] = field(default_factory=list)
    classes: list[ClassDef] = field(default_factory=list)
    enumerations: list[Enumeration] = field(default_factory=list)
    value_types: list[ValueType] = field(default_factory=list)
    record_types: list[RecordType] = field(default_factory=list)


@dataclass(kw_only=True)
class MergedClass:
    """A class as scripts see it: every definition and extension of that name, plus what it
    inherits (properties and elements of ancestors included)."""

    name: str
    plural: str
    description: str = ""
    ancestors: list[str] = field(default_factory=list)
    properties: list[Property] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)

    def property(self, name: str) -> Property | None:
        key = term_key(name)
        for prop in self.properties:
            if term_key(prop.name) == key or any(term_key(s) == key for s in prop.synonyms):
                return prop
        return None


@dataclass(kw_only=True)
class Dictionary:
    """One app's scripting dictionary, as parsed; `skipped_includes` names the included files
    that could not be read (off a Mac the system's CocoaStandard.sdef is missing)."""

    title: str = ""
    suites: list[Suite] = field(default_factory=list)
    skipped_includes: list[str] = field(default_factory=list)

    # --- lookups (built once per instance) ------------------------------------------------

    @cached_property
    def _commands(self) -> dict[str, Command]:
        found: dict[str, Command] = {}
        for suite in self.suites:
            for command in suite.commands:  # a later suite's command replaces an earlier one
                for name in (command.name, *command.synonyms):
                    found[term_key(name)] = command
        return found

    @cached_property
    def _class_defs(self) -> dict[str, list[ClassDef]]:
        found: dict[str, list[ClassDef]] = {}
        for suite in self.suites:
            for cls in suite.classes:
                found.setdefault(term_key(cls.name), []).append(cls)
        return found

    @cached_property
    def _class_names(self) -> dict[str, str]:
        """Every spelling of a class (name, plural, synonyms) -> the key of its name."""
        names: dict[str, str] = {}
        for key, defs in self._class_defs.items():
            for cls in defs:
                for name in (cls.name, *cls.synonyms):
                    names.setdefault(term_key(name), key)
                names.setdefault(term_key(self._plural(cls)), key)
        return names

    @cached_property
    def _enumerations(self) -> dict[str, Enumeration]:
        return {term_key(e.name): e for s in self.suites for e in s.enumerations}

    @cached_property
    def _records(self) -> dict[str, RecordType]:
        return {term_key(r.name): r for s in self.suites for r in s.record_types}

    @cached_property
    def _value_types(self) -> dict[str, ValueType]:
        return {term_key(v.name): v for s in self.suites for v in s.value_types}

    @staticmethod
    def _plural(cls: ClassDef) -> str:
        return cls.plural or f"{cls.name}s"

    def commands(self) -> list[Command]:
        """Every command once, in dictionary order (later definitions win)."""
        seen: dict[int, Command] = {}
        for command in self._commands.values():
            seen.setdefault(id(command), command)
        return list(seen.values())

    def command(self, name: str) -> Command | None:
        return self._commands.get(term_key(name))

    def class_names(self) -> list[str]:
        return [defs[0].name for defs in self._class_defs.values()]

    def has_class(self, name: str) -> bool:
        return term_key(name) in self._class_names

    def enumeration(self, name: str) -> Enumeration | None:
        return self._enumerations.get(term_key(name))

    def record_type(self, name: str) -> RecordType | None:
        return self._records.get(term_key(name))

    def value_type(self, name: str) -> ValueType | None:
        return self._value_types.get(term_key(name))

    def merged_class(self, name: str) -> MergedClass | None:
        """The class named `name` (or its plural or a synonym) with everything it inherits."""
        return self._merged(term_key(name), frozenset())

    def _merged(self, key: str, seen: frozenset[str]) -> MergedClass | None:
        key = self._class_names.get(key, key)
        defs = self._class_defs.get(key)
        if not defs or key in seen:
            return None
        main = next((cls for cls in defs if not cls.extension), defs[0])
        props: dict[str, Property] = {}
        elements: dict[str, Element] = {}
        ancestors: list[str] = []
        parent_name = next((cls.inherits for cls in defs if cls.inherits), None)
        if parent_name:
            parent = self._merged(term_key(parent_name), seen | {key})
            if parent is not None:
                ancestors = [parent.name, *parent.ancestors]
                props.update((term_key(p.name), p) for p in parent.properties)
                elements.update((term_key(e.type), e) for e in parent.elements)
        for cls in defs:
            props.update((term_key(p.name), p) for p in cls.properties)
            elements.update((term_key(e.type), e) for e in cls.elements)
        return MergedClass(
            name=main.name,
            plural=next((cls.plural for cls in defs if cls.plural), "") or f"{main.name}s",
            description=main.description,
            ancestors=ancestors,
            properties=list(props.values()),
            elements=list(elements.values()),
        )

    def plural_of(self, class_name: str) -> str:
        """`merged_class(class_name).plural`, without merging what the class inherits: the
        export asks this of every element of every class."""
        key = self._class_names.get(term_key(class_name), term_key(class_name))
        defs = self._class_defs.get(key)
        if not defs:
            return f"{class_name}s"
        main = next((cls for cls in defs if not cls.extension), defs[0])
        return next((cls.plural for cls in defs if cls.plural), "") or f"{main.name}s"
