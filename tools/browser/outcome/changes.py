"""What changed between two aria snapshots of one page, as `Effect:` lines.

Pure functions over `AriaNode` trees (no Playwright), tested on strings. A page is read as its
*items*: the elements that mean something (not the `generic` wrappers), each with a label (its
accessible name, else its own text), its value when it is a field, and its state flags. Text
runs belong to the item around them; those straight in the page's wrappers are items of their
own (`text "Saved ✓"`). Two snapshots' items are matched by Playwright's ref, else by where they
sit and what they say; then:

- `+ alert "Email is invalid"`: an item that appeared (the top of a new subtree, and the first
  few controls in it, each with its ref: `+ button "Accept" [ref_7]`);
- `- dialog "Cookies"`: one that went;
- `~ checkbox "Remember me": checked`: its state flags changed;
- `~ textbox "Name": "" → "AB"`: its value changed (a password field's is `(hidden)`);
- `~ status "" → "Saved ✓"`: its label (its name, else its own text) changed.

`diff` returns `Change`s; `render` writes one as its line, once the caller knows which fields
are password fields (`value_refs` names the fields whose values a line would show).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Literal

from tools.browser.page.observe import INTERACTIVE_ROLES
from tools.browser.page.snapshot import AriaNode

__all__ = [
    "HIDDEN",
    "Change",
    "Item",
    "diff",
    "field_value",
    "items_of",
    "quoted",
    "render",
    "value_refs",
]

HIDDEN = "(hidden)"  # what a password field's value reads as, in every line
LABEL_CAP = 80  # characters of a label or value in one line
CONTROLS_SHOWN = 5  # controls listed under something that appeared (a dialog's buttons)
# Wrappers with no meaning of their own (a `group` with a name, such as a fieldset's, has one).
TRANSPARENT = frozenset({"generic", "none", "presentation", "group", "document"})
# Fields: their text is a value the person or the page set, shown beside their name.
FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider"})
# State flags a line reports, and how each reads when it went away.
STATES = {
    "checked": "not checked",
    "checked=mixed": "not mixed",
    "expanded": "collapsed",
    "selected": "not selected",
    "pressed": "not pressed",
    "pressed=mixed": "not mixed",
    "disabled": "enabled",
    "focused": "",  # only gaining the focus is said: losing it follows from another's gain
}

Key = tuple[object, ...]
Kind = Literal["appeared", "gone", "state", "value", "label"]


@dataclass(eq=False)
class Item:
    """One element of a page as the diff sees it."""

    key: Key
    role: str
    label: str
    value: str | None
    states: frozenset[str]
    parent: Key | None  # the item it sits in (None: the page itself)
    index: int  # its place among its parent's items
    node: AriaNode
    order: int  # its place in the whole page

    @property
    def pw_ref(self) -> str | None:
        return self.node.pw_ref


@dataclass(eq=False)
class Change:
    """One difference between two snapshots, not yet written as a line."""

    kind: Kind
    item: Item  # the item as it is now (as it was, for `gone`)
    before: Item | None = None  # the same item before (state, value and label changes)
    gained: list[str] = field(default_factory=list)  # state words, in order
    order: float = 0.0


def _clean(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, limit: int = LABEL_CAP) -> str:
    text = _clean(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(text: str) -> str:
    """`text` on one line, cut, in double quotes (escaped as JSON, so a quote in it stays data)."""
    return json.dumps(_cut(text), ensure_ascii=False)


def _transparent(node: AriaNode) -> bool:
    return node.role in TRANSPARENT and not node.name


def field_value(node: AriaNode) -> str:
    """A field's value as the snapshot shows it: its inline text, the text written under it, or a
    select's chosen option."""
    if node.text is not None:
        return node.text
    if node.role in ("combobox", "listbox"):
        for child in node.children:
            if child.role == "option" and "selected" in child.flags:
                return child.name
    return " ".join(child.text or "" for child in node.children if child.is_text)


def _own_text(node: AriaNode) -> str:
    """The text an item shows of itself: its inline text and text runs, through wrappers, but
    not the text of items inside it, nor any field's value (a password may be one)."""
    parts: list[str] = []
    if node.text and node.role not in FIELD_ROLES:
        parts.append(node.text)
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        if child.is_text:
            parts.append(child.text or "")
        elif _transparent(child):
            if child.text:
                parts.append(child.text)
            stack.extend(reversed(child.children))
    return _clean(" ".join(parts))


def _safe_text(node: AriaNode, limit: int = LABEL_CAP) -> str:
    """Names and text of a whole subtree, never a field's value: for an item with no label."""
    parts: list[str] = []
    size = 0
    stack = [node]
    while stack and size <= limit:
        at = stack.pop()
        if at.is_text:
            piece = at.text or ""
        elif at.role in FIELD_ROLES:
            piece = at.name
        else:
            piece = at.name or (at.text or "")
        if piece:
            parts.append(piece)
            size += len(piece) + 1
        if not at.is_text and at.role not in FIELD_ROLES:
            stack.extend(reversed(at.children))
    return _cut(" ".join(parts), limit)


def _states(node: AriaNode) -> frozenset[str]:
    states = {flag for flag in node.flags if flag in STATES}
    if node.focused and node.role in FIELD_ROLES:
        states.add("focused")  # a click into a box worked (a button's focus is no news)
    return frozenset(states)


def items_of(root: AriaNode) -> list[Item]:
    """The items of a snapshot, in page order."""
    out: list[Item] = []
    counts: dict[Key, int] = {}  # (parent, role, label) seen so far, for keys without a ref
    places: dict[Key | None, int] = {}

    def add(node: AriaNode, role: str, label: str, value: str | None, parent: Key | None) -> Item:
        if node.pw_ref is not None and role != "text":
            key: Key = ("ref", node.pw_ref)
        else:
            base: Key = ("at", parent, role, label)
            counts[base] = counts.get(base, 0) + 1
            key = (*base, counts[base])
        index = places.get(parent, 0)
        places[parent] = index + 1
        states = _states(node) if role != "text" else frozenset()
        item = Item(key, role, label, value, states, parent, index, node, len(out))
        out.append(item)
        return item

    # Depth first, in page order, without recursion (a page can nest thousands of wrappers).
    # Each entry: the children still to visit, the item they sit in, and whether one encloses
    # them (then their text runs are its own text, not items).
    stack: list[tuple[Iterator[AriaNode], Key | None, bool]] = [(iter(root.children), None, False)]
    while stack:
        children, parent, owned = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            continue
        if child.is_text or (_transparent(child) and child.text and not child.children):
            if not owned and _clean(child.text or ""):
                add(child, "text", _clean(child.text or ""), None, parent)
        elif _transparent(child):
            stack.append((iter(child.children), parent, owned))
        elif child.role in FIELD_ROLES:
            add(
                child, child.role, _clean(child.name), field_value(child), parent
            )  # options: its value
        else:
            item = add(child, child.role, _clean(child.name) or _own_text(child), None, parent)
            stack.append((iter(child.children), item.key, True))
    return out


def diff(before: AriaNode, after: AriaNode) -> list[Change]:
    """Every change from `before` to `after`, in the order of the page after."""
    old, new = items_of(before), items_of(after)
    old_by_key = {item.key: item for item in old}
    new_by_key = {item.key: item for item in new}
    pairs = [(old_by_key[item.key], item) for item in new if item.key in old_by_key]
    gone = [item for item in old if item.key not in new_by_key]
    came = [item for item in new if item.key not in old_by_key]
    # A ref can change while the element stays (it lost and regained its box, or its name
    # changed): pair what reads the same first, then what sits in the same place.
    for match in (_same_reading, _same_place):
        more, gone, came = _pair(gone, came, match)
        pairs.extend(more)
    changes: list[Change] = []
    for was, now in pairs:
        changes.extend(_compared(was, now))
    came_keys = {item.key for item in came}
    gone_keys = {item.key for item in gone}
    changes.extend(Change("appeared", item, order=item.order) for item in _tops(came, came_keys))
    # What went is placed after the item that came before it in the page, which is still there.
    position = _positions(old, new_by_key, pairs)
    changes.extend(
        Change("gone", item, order=position.get(item.key, -1) + 0.5)
        for item in gone
        if item.parent not in gone_keys
    )
    changes.sort(key=lambda change: change.order)
    return changes


def _tops(came: list[Item], came_keys: set[Key]) -> Iterator[Item]:
    """The tops of what appeared, each followed by the first few controls inside it (with their
    refs, the model can act on a new dialog's buttons without reading the page first)."""
    top_of: dict[Key, Key] = {}
    shown: dict[Key, int] = {}
    for item in came:
        if item.parent not in came_keys:
            top_of[item.key] = item.key
            shown[item.key] = 0
            yield item
            continue
        assert item.parent is not None
        top = top_of[item.key] = top_of.get(item.parent, item.parent)
        if item.role in INTERACTIVE_ROLES and item.pw_ref is not None:
            if shown.get(top, 0) < CONTROLS_SHOWN:
                shown[top] = shown.get(top, 0) + 1
                yield item


def _positions(
    old: list[Item], new_by_key: dict[Key, Item], pairs: list[tuple[Item, Item]]
) -> dict[Key, float]:
    """For each old item, the page position after of the nearest kept item before it."""
    kept = {was.key: now.order for was, now in pairs}
    out: dict[Key, float] = {}
    last = -1.0
    for item in old:
        if item.key in kept:
            last = kept[item.key]
        out[item.key] = last
    return out


def _same_reading(was: Item, now: Item) -> bool:
    return was.role == now.role and was.label == now.label and was.parent == now.parent


def _same_place(was: Item, now: Item) -> bool:
    return (
        was.role == now.role
        and was.parent == now.parent
        and was.index == now.index
        and was.role != "text"
    )


def _pair(
    gone: list[Item], came: list[Item], match: Callable[[Item, Item], bool]
) -> tuple[list[tuple[Item, Item]], list[Item], list[Item]]:
    pairs: list[tuple[Item, Item]] = []
    left = list(came)
    still_gone: list[Item] = []
    for was in gone:
        found = next((now for now in left if match(was, now)), None)
        if found is None:
            still_gone.append(was)
        else:
            left.remove(found)
            pairs.append((was, found))
    return pairs, still_gone, left


def _compared(was: Item, now: Item) -> Iterator[Change]:
    if was.label != now.label and now.role not in FIELD_ROLES:
        yield Change("label", now, was, order=now.order)
    if was.value != now.value:
        yield Change("value", now, was, order=now.order)
    words = list(_state_words(was.states, now.states))
    if was.value != now.value and "focused" in words:
        words.remove("focused")  # the new value says the field was reached
    if words:
        yield Change("state", now, was, gained=words, order=now.order)


def _state_words(was: frozenset[str], now: frozenset[str]) -> Iterator[str]:
    for flag, lost in STATES.items():
        if flag in now and flag not in was:
            yield flag.replace("=", " ")
        elif flag in was and flag not in now and lost:
            # "checked=mixed" to "checked" is a state gained, not "not mixed".
            stem = flag.split("=")[0]
            if not (flag != stem and stem in now):
                yield lost


def value_refs(changes: Collection[Change]) -> list[str | None]:
    """The fields whose values the lines would show (Playwright refs; None: a field with no ref)."""
    return [change.item.pw_ref for change in changes if change.kind == "value"]


def _head(item: Item) -> str:
    label = item.label
    return f"{item.role} {quoted(label)}" if label else item.role


def render(change: Change, *, secret: Collection[str], ref_of: Callable[[AriaNode], str]) -> str:
    """One change as its `Effect:` line. `secret`: Playwright refs of password fields (a field
    with no ref counts as one: it cannot be checked)."""
    item = change.item
    if change.kind == "appeared" or change.kind == "gone":
        sign = "+" if change.kind == "appeared" else "-"
        label = item.label or (_safe_text(item.node) if item.role != "text" else "")
        line = f"{sign} {item.role} {quoted(label)}" if label else f"{sign} {item.role}"
        if change.kind == "appeared" and item.pw_ref is not None and item.role in INTERACTIVE_ROLES:
            line += f" [{ref_of(item.node)}]"  # what the model may act on next, without a read
        return line
    assert change.before is not None
    if change.kind == "label":
        return f"~ {item.role} {quoted(change.before.label)} → {quoted(item.label)}"
    if change.kind == "value":
        if item.pw_ref is None or item.pw_ref in secret:
            return f"~ {_head(item)}: {HIDDEN}"
        return f"~ {_head(item)}: {quoted(change.before.value or '')} → {quoted(item.value or '')}"
    return f"~ {_head(item)}: {', '.join(change.gained)}"
