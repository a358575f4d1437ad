"""A scripting dictionary (`.sdef` XML) into the model: suites, commands, classes, types.

Hidden items (`hidden="yes"`) are left out: apps hide what scripts should not use. Cocoa keys,
access groups and documentation are ignored; synonyms are kept so either name finds a term.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict
from xml.etree.ElementTree import Element

from tools.mac.sdef.errors import NOT_A_DICTIONARY, DictionaryRefused
from tools.mac.sdef.model import (
    Access,
    ClassDef,
    Command,
    Dictionary,
    DirectParameter,
    Enumeration,
    Enumerator,
    Parameter,
    Property,
    RecordType,
    Result,
    Suite,
    TypeRef,
    ValueType,
)
from tools.mac.sdef.model import Element as ElementDef
from tools.mac.sdef.xmlsafe import Includes, parse_xml, read_xml_file

_YES = ("yes", "true", "1")


def parse_sdef(data: bytes, *, include_root: Path | None = None) -> Dictionary:
    """Parse dictionary XML text; includes are read from `include_root` (the system's)."""
    return _build(parse_xml(data), include_root)


def parse_sdef_file(path: Path, *, include_root: Path | None = None) -> Dictionary:
    return _build(read_xml_file(path), include_root)


def _build(root: Element, include_root: Path | None) -> Dictionary:
    if root.tag != "dictionary":
        raise DictionaryRefused(NOT_A_DICTIONARY, detail=f"root element {root.tag[:40]}")
    includes = Includes(include_root)
    includes.resolve(root)
    suites = [_suite(node) for node in root if node.tag == "suite" and not _hidden(node)]
    return Dictionary(title=root.get("title", ""), suites=suites, skipped_includes=includes.skipped)


def _hidden(node: Element) -> bool:
    return node.get("hidden", "").strip().lower() in _YES


def _visible(node: Element, tag: str) -> list[Element]:
    return [child for child in node if child.tag == tag and not _hidden(child)]


def _text(node: Element, name: str) -> str:
    return " ".join(node.get(name, "").split())


def _types(node: Element) -> list[TypeRef]:
    """A `type` attribute, or `<type>` children (several allowed types, maybe lists)."""
    found: list[TypeRef] = []
    single = _text(node, "type")
    if single:
        many = single.startswith("list of ")
        found.append(TypeRef(name=single.removeprefix("list of ") if many else single, many=many))
    for child in _visible(node, "type"):
        name = _text(child, "type")
        if name:
            found.append(TypeRef(name=name, many=child.get("list", "").lower() in _YES))
    return found


def _synonyms(node: Element) -> list[str]:
    return [_text(s, "name") for s in _visible(node, "synonym") if _text(s, "name")]


def _access(node: Element) -> Access:
    value = node.get("access", "rw").strip().lower()
    return value if value in ("r", "w", "rw") else "rw"  # type: ignore[return-value]


class _TermFields(TypedDict):
    name: str
    code: str
    description: str


def _term(node: Element, name: str = "name") -> _TermFields:
    """The name, code and description every term has, as the model's fields."""
    return {
        "name": _text(node, name),
        "code": _text(node, "code"),
        "description": _text(node, "description"),
    }


def _suite(node: Element) -> Suite:
    suite = Suite(**_term(node))
    for child in node:
        if _hidden(child):
            continue
        match child.tag:
            case "command":
                suite.commands.append(_command(child))
            case "class":
                suite.classes.append(_class(child, extension=False))
            case "class-extension":
                suite.classes.append(_class(child, extension=True))
            case "enumeration":
                suite.enumerations.append(_enumeration(child))
            case "value-type":
                suite.value_types.append(ValueType(**_term(child)))
            case "record-type":
                properties = [_property(p) for p in _visible(child, "property")]
                suite.record_types.append(RecordType(**_term(child), properties=properties))
    return suite


def _command(node: Element) -> Command:
    direct = next(iter(_visible(node, "direct-parameter")), None)
    result = next(iter(_visible(node, "result")), None)
    return Command(
        **_term(node),
        synonyms=_synonyms(node),
        direct_parameter=None
        if direct is None
        else DirectParameter(
            types=_types(direct),
            optional=direct.get("optional", "").lower() in _YES,
            description=_text(direct, "description"),
        ),
        parameters=[
            Parameter(**_term(p), types=_types(p), optional=p.get("optional", "").lower() in _YES)
            for p in _visible(node, "parameter")
            if _text(p, "name")
        ],
        result=None
        if result is None
        else Result(types=_types(result), description=_text(result, "description")),
    )


def _property(node: Element) -> Property:
    return Property(
        **_term(node), types=_types(node), access=_access(node), synonyms=_synonyms(node)
    )


def _class(node: Element, *, extension: bool) -> ClassDef:
    return ClassDef(
        **_term(node, "extends" if extension else "name"),
        plural=_text(node, "plural"),
        inherits=_text(node, "inherits") or None,
        extension=extension,
        synonyms=_synonyms(node),
        properties=[_property(p) for p in _visible(node, "property") if _text(p, "name")],
        elements=[
            ElementDef(type=_text(e, "type"), access=_access(e))
            for e in _visible(node, "element")
            if _text(e, "type")
        ],
        responds_to=[
            _text(r, "command") or _text(r, "name")
            for r in _visible(node, "responds-to")
            if _text(r, "command") or _text(r, "name")
        ],
    )


def _enumeration(node: Element) -> Enumeration:
    return Enumeration(
        name=_text(node, "name"),
        code=_text(node, "code"),
        enumerators=[
            Enumerator(**_term(e)) for e in _visible(node, "enumerator") if _text(e, "name")
        ],
    )
