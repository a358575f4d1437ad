"""What `read_page` and `find` show the model: a parsed aria snapshot, filtered and rendered.

Pure functions over `AriaNode` trees. The driver supplies `ref_of(node)`, which hands out
the model-facing reference (`ref_12`) for a node, and the set of Playwright refs whose
value must never be shown (password fields). Output is capped at the 50,000 characters
the toolset documents for `read_page`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass

from tools.browser.page.snapshot import AriaNode

__all__ = [
    "INTERACTIVE_ROLES",
    "NO_CONTROLS",
    "READ_PAGE_CAP",
    "CappedLines",
    "RefOf",
    "add_controls",
    "find_elements",
    "is_interactive",
    "render_page",
]

READ_PAGE_CAP = 50_000
DEFAULT_DEPTH = 15
FIND_LIMIT = 20
TEXT_CAP = 600  # one text run or value: a page can put a novel in a single paragraph
URL_CAP = 160
NO_CONTROLS = "(no interactive elements)"

INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "option",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "tab",
        "switch",
        "slider",
        "spinbutton",
        "treeitem",
    }
)
# Wrappers that carry no meaning of their own: their children are shown in their place.
TRANSPARENT_ROLES = frozenset({"generic", "none", "presentation", "group", "document"})

RefOf = Callable[[AriaNode], str]


def is_interactive(node: AriaNode) -> bool:
    if node.pw_ref is None or node.is_text:
        return False
    return node.role in INTERACTIVE_ROLES or node.pointer or node.role == "iframe"


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _selected_option(node: AriaNode) -> str | None:
    for child in node.children:
        if child.role == "option" and "selected" in child.flags:
            return child.name
    return None


def describe(node: AriaNode, ref_of: RefOf, secret: Collection[str]) -> str:
    """One element as one line: `button "Sign in" [ref_3]`, `textbox "Email" [ref_4]: ana@x.org`."""
    if node.is_text:
        return "text: " + _cut(node.text or "", TEXT_CAP)
    parts = [node.role]
    if node.name:
        parts.append(json.dumps(_cut(node.name, TEXT_CAP), ensure_ascii=False))
    parts.extend(f"[{flag}]" for flag in node.flags if flag != "aria-hidden")
    if node.focused:
        parts.append("[focused]")
    is_secret = node.pw_ref is not None and node.pw_ref in secret
    if is_secret:
        parts.append("[password]")
    if node.pw_ref is not None:
        parts.append(f"[{ref_of(node)}]")
    if url := node.props.get("url"):
        parts.append(f"<{_cut(url, URL_CAP)}>")
    if placeholder := node.props.get("placeholder"):
        parts.append(f"placeholder={json.dumps(_cut(placeholder, 80), ensure_ascii=False)}")
    line = " ".join(parts)
    value = node.text
    if value is None and node.role in ("combobox", "listbox"):
        value = _selected_option(node)
    if value is None and node.props and node.children and all(c.is_text for c in node.children):
        value = " ".join(c.text or "" for c in node.children)  # a value written under the props
    if value and not is_secret:
        line += ": " + _cut(value, TEXT_CAP)
    return line


@dataclass
class CappedLines:
    """Lines under a character cap, counting what did not fit."""

    cap: int
    size: int = 0
    lines: list[str] | None = None
    dropped: int = 0

    def add(self, line: str) -> None:
        if self.lines is None:
            self.lines = []
        if self.dropped or self.size + len(line) + 1 > self.cap:
            self.dropped += 1
            return
        self.lines.append(line)
        self.size += len(line) + 1

    def text(self, empty: str) -> str:
        if not self.lines:
            return empty
        body = "\n".join(self.lines)
        if self.dropped:
            body += (
                f"\n[Output cut at {self.cap:,} characters; {self.dropped:,} more lines. "
                "Narrow it with ref or a smaller depth.]"
            )
        return body


def add_controls(
    nodes: Iterable[AriaNode], out: CappedLines, ref_of: RefOf, secret: Collection[str]
) -> None:
    """The interactive view's lines: one per control (iframes only hold them). Past the cap
    they are counted, not described, so no refs are handed out for what the model never sees."""
    for node in nodes:
        if node.role == "iframe":
            continue
        if out.dropped:
            out.dropped += 1
        else:
            out.add("- " + describe(node, ref_of, secret))


def _visible_walk(
    node: AriaNode, width: int, height: int, offset: tuple[int, int], parent_visible: bool
) -> Iterator[tuple[AriaNode, bool]]:
    """Every node with whether it shows in the viewport; iframe contents shifted by the frame's box."""
    box = node.box.shifted(*offset) if node.box is not None else None
    visible = parent_visible if box is None or box.empty else box.intersects(width, height)
    yield node, visible
    child_offset = (box.x, box.y) if node.role == "iframe" and box is not None else offset
    for child in node.children:
        yield from _visible_walk(child, width, height, child_offset, visible)


def render_page(
    root: AriaNode,
    *,
    ref_of: RefOf,
    secret: Collection[str] = (),
    filter: str | None = None,
    depth: int | None = None,
    viewport: tuple[int, int] = (1280, 800),
    cap: int = READ_PAGE_CAP,
) -> str:
    """The page (or the subtree at `root`) as `read_page` returns it.

    `filter=None`: elements in the viewport; `"all"`: every element; `"interactive"`: the
    controls of the whole page (on or off screen), one per line, without the text around them.
    """
    limit = DEFAULT_DEPTH if depth is None else max(depth, 0)
    out = CappedLines(cap)
    if filter == "interactive":
        controls = (node for node, _level in _levels(root, limit) if is_interactive(node))
        add_controls(controls, out, ref_of, secret)
        return out.text(NO_CONTROLS)

    shown: set[int] = set()
    if filter != "all":
        for node, visible in _visible_walk(root, viewport[0], viewport[1], (0, 0), True):
            if visible:
                shown.add(id(node))
    _render_tree(root, out, ref_of, secret, limit, 0, shown if filter != "all" else None)
    return out.text('(nothing on screen; scroll, or read with filter "all")')


def _levels(root: AriaNode, limit: int) -> Iterator[tuple[AriaNode, int]]:
    stack = [(root, 0)]
    while stack:
        node, level = stack.pop()
        yield node, level
        if level < limit:
            stack.extend((child, level + 1) for child in reversed(node.children))


def _render_tree(
    node: AriaNode,
    out: CappedLines,
    ref_of: RefOf,
    secret: Collection[str],
    limit: int,
    level: int,
    shown: set[int] | None,
) -> None:
    for child in node.children:
        if shown is not None and id(child) not in shown:
            continue
        if out.dropped:
            out.dropped += 1
            continue
        # An unnamed wrapper adds a line and an indent but no meaning: show its children instead.
        hoist = (
            child.role in TRANSPARENT_ROLES
            and not child.name
            and not child.pointer
            and child.text is None
        )
        if hoist:
            _render_tree(child, out, ref_of, secret, limit, level, shown)
            continue
        if level > limit:
            continue
        out.add("  " * level + "- " + describe(child, ref_of, secret))
        if child.pw_ref is not None and child.pw_ref in secret:
            continue  # a password field's children are its value
        _render_tree(child, out, ref_of, secret, limit, level + 1, shown)


# --- find -------------------------------------------------------------------------------------

_WORD = re.compile(r"[\w']+")
_STOP = frozenset(
    "a an the to for of on in at with and or that this which where is are me my please find "
    "element elements".split()
)
ROLE_WORDS: dict[str, frozenset[str]] = {
    "button": frozenset({"button"}),
    "btn": frozenset({"button"}),
    "link": frozenset({"link"}),
    "field": frozenset({"textbox", "searchbox", "combobox", "spinbutton"}),
    "input": frozenset({"textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio"}),
    "box": frozenset({"textbox", "searchbox", "combobox", "checkbox"}),
    "textbox": frozenset({"textbox", "searchbox"}),
    "bar": frozenset({"searchbox", "textbox", "toolbar", "navigation"}),
    "search": frozenset({"searchbox"}),
    "checkbox": frozenset({"checkbox"}),
    "check": frozenset({"checkbox"}),
    "radio": frozenset({"radio"}),
    "option": frozenset({"radio", "option"}),
    "dropdown": frozenset({"combobox", "listbox", "menu"}),
    "select": frozenset({"combobox", "listbox"}),
    "menu": frozenset({"menu", "menuitem", "menubar", "combobox"}),
    "tab": frozenset({"tab"}),
    "toggle": frozenset({"switch", "checkbox", "button"}),
    "switch": frozenset({"switch"}),
    "slider": frozenset({"slider"}),
    "heading": frozenset({"heading"}),
    "title": frozenset({"heading"}),
    "image": frozenset({"img"}),
    "picture": frozenset({"img"}),
    "icon": frozenset({"img", "button"}),
    "logo": frozenset({"img", "link"}),
    "row": frozenset({"row"}),
    "table": frozenset({"table", "grid"}),
    "cell": frozenset({"cell", "gridcell"}),
    "list": frozenset({"list", "listbox"}),
    "frame": frozenset({"iframe"}),
    "textarea": frozenset({"textbox"}),
    "editor": frozenset({"textbox"}),
}
_CONTEXT_ROLES = frozenset({"row", "listitem", "article", "form", "dialog", "region", "group"})


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _context_of(node: AriaNode) -> AriaNode | None:
    for ancestor in node.ancestors():
        if ancestor.role in _CONTEXT_ROLES:
            return ancestor
    return None


def _score(node: AriaNode, tokens: set[str]) -> float:
    own = _words(node.name) | _words(node.text or "")
    props = _words(" ".join(node.props.values()))
    score = 0.0
    matched_own = False
    for token in tokens:
        if token in own or any(token in word for word in own if len(token) > 3):
            score += 3
            matched_own = True
        elif token in props:
            score += 1.5
            matched_own = True
        if node.role in ROLE_WORDS.get(token, ()) or token == node.role:
            score += 2
            matched_own = True
    if not matched_own:
        return 0.0
    context = _context_of(node)
    if context is not None:
        around = _words(context.all_text(300))
        score += sum(1 for token in tokens if token in around and token not in own)
    if is_interactive(node):
        score += 0.5
    return score


def find_elements(
    root: AriaNode, query: str, *, ref_of: RefOf, secret: Collection[str] = ()
) -> str:
    """Up to 20 elements best matching a plain-language description, best first, with references."""
    tokens = _words(query)
    if not tokens:
        return 'Describe the element in a few words, e.g. "search box" or "Add to cart button".'
    scored: list[tuple[float, int, AriaNode]] = []
    for order, node in enumerate(root.walk()):
        if node.pw_ref is None or node.is_text:
            continue
        score = _score(node, tokens)
        if score > 0:
            scored.append((score, order, node))
    if not scored:
        return 'No element matched that description. Try read_page with filter "interactive".'
    ranked = sorted(scored, key=lambda item: (-item[0], item[1]))
    # Weak matches (a role word alone) are noise next to strong ones: keep the best half.
    floor = ranked[0][0] / 2
    lines: list[str] = []
    for _score_value, _order, node in [item for item in ranked if item[0] >= floor][:FIND_LIMIT]:
        line = "- " + describe(node, ref_of, secret)
        context = _context_of(node)
        if context is not None:
            summary = _cut(context.name, 80) if context.name else context.all_text(80)
            if summary and summary != node.name:
                line += f"  (in {context.role} {json.dumps(summary, ensure_ascii=False)})"
        lines.append(line)
    return "\n".join(lines)
