"""Object references as data: a JSON path of steps from the app down to the object.

`[{"elements": "folders", "name": "Desktop"}, {"property": "items"}]` is "every item of folder
'Desktop'". An element step picks by `name`, `index` (1 is the first), `id`, or `every` (the
default); a property step names a property (or, like `items` above, an element taken whole).
Every name is checked against the app's dictionary before anything runs; an unknown one is
refused with the names that do exist. The checked steps become JXA names for `sdef/call.js`,
which walks them at run time; no step is ever turned into script text.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, TypeAdapter, model_validator

from tools.data import Data
from tools.mac.osa.text import quote
from tools.mac.sdef.errors import Refused
from tools.mac.sdef.model import Dictionary, Element, MergedClass, Property, jxa_name, term_key

MAX_STEPS = 20
NAME_LIMIT = 200


class ElementStep(Data):
    """Elements of the object so far: one by name, index or id, or every one."""

    model_config = ConfigDict(extra="forbid")

    elements: str = Field(
        max_length=NAME_LIMIT, description="The elements, as app_dictionary lists them: 'folders'."
    )
    name: str | None = Field(None, max_length=2_000, description="The one with this name.")
    index: int | None = Field(
        None, ge=1, le=1_000_000, description="The one at this position; 1 is the first."
    )
    id: str | int | None = Field(None, description="The one with this id.")
    every: bool = Field(False, description="All of them (also when nothing else is given).")

    @model_validator(mode="after")
    def _one_way(self) -> ElementStep:
        ways = [self.name is not None, self.index is not None, self.id is not None, self.every]
        if sum(ways) > 1:
            raise ValueError("pick elements by one of name, index, id or every")
        return self


class PropertyStep(Data):
    """A property of the object so far."""

    model_config = ConfigDict(extra="forbid")

    property: str = Field(max_length=NAME_LIMIT, description="The property's name: 'desktop'.")


Step = ElementStep | PropertyStep
REFERENCE = TypeAdapter(list[Step])


def step_schema() -> dict[str, Any]:
    """The JSON Schema of an object reference (a list of steps)."""
    return REFERENCE.json_schema()


class Resolved(Data):
    """A checked reference: the JXA steps, what it ends at, and how to say it in words."""

    steps: list[dict[str, Any]]
    words: str
    class_name: str | None = None  # the class of the object(s) it ends at, when known
    many: bool = False  # ends at several objects
    last_property: Property | None = None  # when it ends at a property


def _names(items: list[str], limit: int = 40) -> str:
    shown = sorted(set(items))[:limit]
    more = len(set(items)) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _element(cls: MergedClass, name: str, d: Dictionary) -> Element | None:
    key = term_key(name)
    for element in cls.elements:
        spellings = (element.type, d.plural_of(element.type))
        if any(term_key(spelling) == key for spelling in spellings):
            return element
    return None


def _value_class(prop: Property, d: Dictionary) -> MergedClass | None:
    """The class a property holds, when it holds one object of a class of this dictionary."""
    if len(prop.types) != 1 or prop.types[0].many:
        return None
    return d.merged_class(prop.types[0].name)


def _phrase_for_element(class_name: str, step: ElementStep) -> tuple[str, bool]:
    if step.name is not None:
        return f"{class_name} {quote(step.name)}", False
    if step.index is not None:
        return f"{class_name} {step.index}", False
    if step.id is not None:
        return f"{class_name} id {quote(str(step.id))}", False
    return f"every {class_name}", True


def words(phrases: list[tuple[str, bool]]) -> str:
    """Phrases from the app down, said from the object up: "name of file 'a' in folder 'b'".
    Each phrase carries whether it is a property (its container follows "of") or elements
    (their container follows "in")."""
    text = ""
    later_is_property = False
    for phrase, is_property in reversed(phrases):
        if not text:
            text = phrase
        else:
            text += f" of {phrase}" if later_is_property else f" in {phrase}"
        later_is_property = is_property
    return text


def resolve(steps: list[Step], d: Dictionary, *, app: str = "the app") -> Resolved:
    """Check `steps` against the dictionary; Refused names what exists where a name is wrong."""
    if len(steps) > MAX_STEPS:
        raise Refused(f"A reference may have at most {MAX_STEPS} steps.")
    current = d.merged_class("application")
    if current is None:
        raise Refused(
            f"{app}'s dictionary describes no application object, so references can't be "
            "checked. Use commands that take no reference."
        )
    out: list[dict[str, Any]] = []
    phrases: list[tuple[str, bool]] = []
    class_name: str | None = current.name
    many = False
    last_property: Property | None = None
    here = "the application"
    for step in steps:
        if current is None:
            raise Refused(
                f"{here} is a value, not an object: it has no elements or properties. "
                "End the reference there."
            )
        last_property = None
        if isinstance(step, ElementStep):
            element = _element(current, step.elements, d)
            if element is None:
                known = [d.plural_of(e.type) for e in current.elements]
                raise Refused(
                    f"{here} has no elements called {quote(step.elements)}. Its elements: "
                    f"{_names(known) or 'none'}."
                )
            phrase, many = _phrase_for_element(element.type, step)
            out.append(_element_step(d.plural_of(element.type), step))
            phrases.append((phrase, False))
            class_name = element.type
            current = d.merged_class(element.type)
            here = f"A {element.type}"
            continue
        prop = current.property(step.property)
        if prop is not None:
            out.append({"property": jxa_name(prop.name)})
            phrases.append((prop.name, True))
            value_class = _value_class(prop, d)
            class_name = value_class.name if value_class is not None else None
            many = False
            last_property = prop
            here = f"The {prop.name} property"
            current = value_class
            continue
        element = _element(current, step.property, d)
        if element is not None:  # `{"property": "items"}`: every element of that kind
            out.append(_element_step(d.plural_of(element.type), None))
            phrases.append((f"every {element.type}", True))
            class_name, many = element.type, True
            current = d.merged_class(element.type)
            here = f"A {element.type}"
            continue
        known_props = [p.name for p in current.properties]
        known_elements = [d.plural_of(e.type) for e in current.elements]
        raise Refused(
            f"{here} has no property or elements called {quote(step.property)}. Its "
            f"properties: {_names(known_props) or 'none'}; its elements: "
            f"{_names(known_elements) or 'none'}."
        )
    return Resolved(
        steps=out,
        words=words(phrases) or "the application",
        class_name=class_name,
        many=many,
        last_property=last_property,
    )


def _element_step(plural: str, step: ElementStep | None) -> dict[str, Any]:
    """The JXA step for elements; no step (a property step naming elements) means every one."""
    jxa = jxa_name(plural)
    if step is None:
        return {"elements": jxa, "by": "every"}
    if step.name is not None:
        return {"elements": jxa, "by": "name", "value": step.name}
    if step.id is not None:
        return {"elements": jxa, "by": "id", "value": step.id}
    if step.index is not None:
        return {"elements": jxa, "by": "index", "value": step.index - 1}  # JXA counts from 0
    return {"elements": jxa, "by": "every"}


def rough_words(steps: list[Step]) -> str:
    """Words for a reference when the dictionary is not at hand (summaries only)."""
    phrases: list[tuple[str, bool]] = []
    for step in steps:
        if isinstance(step, ElementStep):
            singular = step.elements[:-1] if step.elements.endswith("s") else step.elements
            phrases.append((_phrase_for_element(singular, step)[0], False))
        else:
            phrases.append((step.property, True))
    return words(phrases)
