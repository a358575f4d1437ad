"""The macOS Accessibility layer's pure part: roles, secure fields, bounds, the bounded walk.

The attribute dictionaries are shaped as `ax.py` reads them from real apps (TextEdit's window, a
login sheet, Finder's list view): strings, booleans, numbers, (x, y) / (width, height) pairs and
element handles. Handles here are strings; on a Mac they are `AXUIElement`s, which compare and
hash by the element they point to, as strings do. What a Mac alone can show (that those are the
attributes apps really give) is in `test_ax_mac.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tools.screen.a11y.accessible import LIMITS, Limits, Node
from tools.screen.a11y.ax.read import ax_node, ax_rect, walk
from tools.screen.a11y.ax.tables import ax_role, is_secure, reads_value
from tools.screen.geometry import Point, Rect
from tools.screen.risk import screen_risk
from tools.screen.scaling import ImageFrame
from tools.screen.see.snapshot import Item, element_line, number_items, shown_rect

# --- roles -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "subrole", "letter", "word"),
    [
        ("AXButton", None, "B", "push button"),
        ("AXTextField", None, "T", "text"),
        ("AXTextArea", None, "T", "text"),
        ("AXSecureTextField", None, "T", "password text"),
        ("AXTextField", "AXSecureTextField", "T", "password text"),
        ("AXTextField", "AXSearchField", "T", "text"),
        ("AXLink", None, "L", "link"),
        ("AXCheckBox", "AXSwitch", "C", "check box"),
        ("AXRadioButton", None, "R", "radio button"),
        ("AXSlider", None, "S", "slider"),
        ("AXMenuItem", None, "M", "menu item"),
        ("AXImage", None, "I", "image"),
        ("AXGroup", None, "G", "group"),
        ("AXStaticText", None, "X", "label"),
        ("AXScrollArea", None, "X", "scroll pane"),
        ("AXPopUpButton", None, "B", "push button menu"),
        ("AXComboBox", None, "B", "combo box"),
        ("AXDisclosureTriangle", None, "X", "disclosure triangle"),
        ("AXDateTimeArea", None, "X", "date time area"),
        ("", None, "X", "unknown"),
    ],
)
def test_each_role_gets_the_letter_of_its_kind(
    role: str, subrole: str | None, letter: str, word: str
) -> None:
    assert ax_role(role, subrole) == (word, letter)


def test_a_secure_field_is_secure_by_role_or_subrole_and_its_value_is_never_read() -> None:
    assert is_secure("AXSecureTextField") and is_secure("AXTextField", "AXSecureTextField")
    assert not is_secure("AXTextField", "AXSearchField")
    assert not reads_value("AXSecureTextField")
    assert not reads_value("AXTextField", "AXSecureTextField")
    assert reads_value("AXTextField") and reads_value("AXSlider")


# --- one element -----------------------------------------------------------------------------

SAVE = {
    "AXRole": "AXButton",
    "AXSubrole": None,
    "AXTitle": "Save",
    "AXDescription": "",
    "AXEnabled": True,
    "AXFocused": False,
    "AXPosition": (612.5, 418.25),
    "AXSize": (69.0, 21.0),
    "AXChildren": [],
}


def test_a_button_reads_as_the_shared_model_with_bounds_rounded_outwards() -> None:
    node = ax_node("save", SAVE)
    assert node is not None
    assert (node.kind, node.role, node.name, node.enabled) == ("B", "push button", "Save", True)
    # 612.5…681.5 × 418.25…439.25 points: the rectangle holds all of it.
    assert node.bounds == Rect(612, 418, 70, 22)
    element = node.element("TextEdit")
    assert (element.role, element.name, element.app, element.secure) == (
        "push button",
        "Save",
        "TextEdit",
        False,
    )


def test_a_password_fields_value_is_dropped_even_when_read() -> None:
    for raw in (
        {"AXRole": "AXSecureTextField", "AXValue": "hunter2", "AXPosition": (10, 10)},
        {"AXRole": "AXTextField", "AXSubrole": "AXSecureTextField", "AXValue": "hunter2"},
    ):
        node = ax_node("pw", {**raw, "AXSize": (200, 22), "AXPosition": (10, 10), "AXTitle": "Pw"})
        assert node is not None and node.secure and node.value is None
        assert node.element().secure
        frame = ImageFrame.for_region(0, Rect(0, 0, 1280, 800))
        line = element_line(Item(id="T1", node=node, app="", pid=None, window=None), frame)
        assert "hunter2" not in line and "password field" in line and "secret" in line
        # The gate: typing into it is refused whatever the mode.
        risk, reason = screen_risk("type", {"text": "x"}, element=node.element())
        assert "password" in reason.casefold(), (risk, reason)


def test_a_fields_text_and_a_sliders_number_are_its_value() -> None:
    field = ax_node("f", {"AXRole": "AXTextField", "AXValue": "Ada " + "x" * 500})
    slider = ax_node("s", {"AXRole": "AXSlider", "AXValue": 0.25})
    assert field is not None and field.value is not None and field.value.startswith("Ada ")
    assert len(field.value) == 200 and field.editable
    assert slider is not None and slider.value == "0.25"


def test_checkboxes_static_text_and_disabled_controls() -> None:
    on = ax_node("c", {"AXRole": "AXCheckBox", "AXTitle": "Wrap", "AXValue": 1})
    mixed = ax_node("m", {"AXRole": "AXCheckBox", "AXTitle": "Some", "AXValue": 2})
    text = ax_node("t", {"AXRole": "AXStaticText", "AXValue": "  Name:  "})
    off = ax_node("b", {"AXRole": "AXButton", "AXTitle": "Print", "AXEnabled": False})
    assert on is not None and on.checked and on.value is None
    assert mixed is not None and not mixed.checked
    assert text is not None and text.name == "Name:" and text.value is None
    assert off is not None and not off.enabled
    assert ax_node("x", {"AXTitle": "no role"}) is None


def test_an_element_outside_its_clip_or_in_a_minimized_window_is_not_showing() -> None:
    window = Rect(100, 100, 800, 600)
    inside = ax_node("a", {**SAVE, "AXPosition": (200, 200)}, clip=window)
    outside = ax_node("b", {**SAVE, "AXPosition": (200, 900)}, clip=window)
    minimized = ax_node("w", {"AXRole": "AXWindow", "AXMinimized": True, **_place(0, 0, 50, 50)})
    nowhere = ax_node("n", {"AXRole": "AXButton", "AXSize": (0, 0), "AXPosition": (5, 5)})
    assert inside is not None and inside.showing
    assert outside is not None and not outside.showing
    assert minimized is not None and not minimized.showing
    assert nowhere is not None and nowhere.bounds is None and not nowhere.showing


def test_bounds_on_a_display_left_of_the_main_one_map_into_its_screenshot() -> None:
    # A 1440×900-point display left of the main one; its screenshot is 1356×847 pixels.
    frame = ImageFrame.for_region(1, Rect(-1440, 0, 1440, 900))
    node = ax_node("ok", {**SAVE, "AXPosition": (-1040.5, 300.25), "AXSize": (80.0, 24.0)})
    assert node is not None and node.bounds == Rect(-1041, 300, 81, 25)
    shown = shown_rect(node.bounds, frame)
    assert shown == Rect(376, 282, 76, 24)
    # Clicking the middle of what the screenshot shows lands on the element.
    middle = Point(shown.x + shown.width // 2, shown.y + shown.height // 2)
    assert node.bounds.contains(frame.to_global(middle))
    line = element_line(Item(id="B1", node=node, app="", pid=None, window=None), frame)
    assert line == 'B1 button "Save" (376,282 76×24)'


def test_odd_shapes_give_no_bounds() -> None:
    assert ax_rect(None, (1, 1)) is None
    assert ax_rect((1, 2), (float("nan"), 3)) is None
    assert ax_rect((True, 2), (3, 3)) is None
    assert ax_rect([1.2, 2.8], [3, 3]) == Rect(1, 2, 4, 4)


# --- the walk ----------------------------------------------------------------------------------


def _place(x: float, y: float, width: float, height: float) -> dict[str, Any]:
    return {"AXPosition": (x, y), "AXSize": (width, height)}


class Tree:
    """Elements by handle, read as `ax.py` would read them; counts the reads."""

    def __init__(self, elements: Mapping[str, dict[str, Any]]) -> None:
        self.elements = dict(elements)
        self.reads: list[tuple[str, bool]] = []

    def __call__(self, ref: str, value: bool) -> dict[str, Any] | None:
        self.reads.append((ref, value))
        raw = self.elements.get(ref)
        if raw is None:
            return None
        if not value:
            raw = {k: v for k, v in raw.items() if k != "AXValue"}
        return raw


def finder_like(rows: int = 120) -> Tree:
    """A window with a toolbar, a search field named by its label, a list view of `rows` rows
    of which ten are in view, a hidden popover and a deeply nested group."""
    elements: dict[str, dict[str, Any]] = {
        "window": {
            "AXRole": "AXWindow",
            "AXTitle": "Downloads",
            "AXMain": True,
            **_place(100, 100, 800, 600),
            "AXChildren": ["toolbar", "label", "search", "scroll", "popover", "deep0", "gone"],
        },
        "toolbar": {
            "AXRole": "AXToolbar",
            **_place(100, 128, 800, 40),
            "AXChildren": ["back", "share"],
        },
        "back": {"AXRole": "AXButton", "AXDescription": "Back", **_place(110, 134, 30, 28)},
        "share": {
            "AXRole": "AXButton",
            "AXDescription": "Share",
            "AXEnabled": False,
            **_place(150, 134, 30, 28),
        },
        "label": {"AXRole": "AXStaticText", "AXValue": "Find:", **_place(110, 180, 40, 20)},
        "search": {
            "AXRole": "AXTextField",
            "AXSubrole": "AXSearchField",
            "AXValue": "invoice",
            "AXFocused": True,
            "AXTitleUIElement": "label",
            **_place(160, 178, 200, 24),
        },
        "scroll": {
            "AXRole": "AXScrollArea",
            **_place(100, 220, 800, 200),
            "AXChildren": ["list"],
        },
        "list": {
            "AXRole": "AXList",
            **_place(100, 220, 800, rows * 20),
            "AXChildren": [f"row{n}" for n in range(rows)],
        },
        "popover": {  # a popover placed off the window: not showing, nor anything in it
            "AXRole": "AXGroup",
            **_place(2000, 2000, 100, 100),
            "AXChildren": ["hidden-button"],
        },
        "hidden-button": {"AXRole": "AXButton", "AXTitle": "Hidden", **_place(2010, 2010, 9, 9)},
    }
    for n in range(rows):
        elements[f"row{n}"] = {
            "AXRole": "AXStaticText",
            "AXValue": f"file {n}.pdf",
            **_place(100, 220 + 20 * n, 800, 20),
        }
    for depth in range(20):
        elements[f"deep{depth}"] = {
            "AXRole": "AXGroup",
            **_place(120, 450, 100, 100),
            "AXChildren": [f"deep{depth + 1}"],
        }
    elements["deep20"] = {"AXRole": "AXButton", "AXTitle": "Deepest", **_place(120, 450, 9, 9)}
    return Tree(elements)


def test_a_window_reads_in_order_within_the_limits() -> None:
    tree = finder_like()
    nodes, cut = walk(["window"], tree)
    assert cut  # 120 rows is more than 50 children, and the nesting is deeper than 12
    by_name = {node.name: node for node in nodes if node.name}
    # Reading order: toolbar before the search field before the list.
    names = [node.name for node in nodes if node.listed]
    assert (
        names.index("Back")
        < names.index("Share")
        < names.index("Find:")
        < names.index("file 0.pdf")
    )
    # The search field is named by its label, and its text is read.
    search = next(node for node in nodes if node.kind == "T")
    assert (search.name, search.value, search.focused) == ("Find:", "invoice", True)
    assert not by_name["Share"].enabled
    # At most 50 rows; those scrolled out of the list are listed, off-screen.
    rows = [node for node in nodes if node.name.startswith("file ")]
    assert len(rows) == 50
    assert [row.showing for row in rows[:12]] == [True] * 10 + [False] * 2
    # The popover outside the window is left out with what it holds; the deep button too.
    assert "Hidden" not in by_name and "Deepest" not in by_name
    assert max(len(node.path) for node in nodes) == LIMITS.depth
    # The element handles are the tree's own, and each child knows its parent.
    assert by_name["Back"].parent == "toolbar" and search.label_ref == "label"


def test_the_listed_and_read_limits_cut_the_walk() -> None:
    tree = finder_like()
    nodes, cut = walk(["window"], tree, Limits(elements=5))
    assert cut and len([n for n in nodes if n.listed]) == 5
    tree = finder_like()
    nodes, cut = walk(["window"], tree, Limits(nodes=30))
    assert cut and len(tree.reads) == 30


def test_a_wait_reads_no_values_and_stops_at_the_level_of_what_it_wants() -> None:
    tree = finder_like()

    def back(node: Node) -> bool:
        return node.name == "Back"

    nodes, _ = walk(["window"], tree, values=False, until=back)
    assert any(back(node) for node in nodes)
    assert all(not value for _, value in tree.reads)
    assert not any(node.name.startswith("file ") for node in nodes)  # three levels down


def test_an_element_gone_mid_walk_is_left_out() -> None:
    tree = finder_like(rows=3)
    nodes, _ = walk(["window", "closed-window"], tree)
    assert {"gone", "closed-window"} <= {ref for ref, _ in tree.reads}
    assert all(node.ref not in ("gone", "closed-window") for node in nodes)


def test_ids_number_the_walked_elements_by_kind() -> None:
    nodes, _ = walk(["window"], finder_like(rows=2))
    listed = [(node, "Finder", 400, None) for node in nodes if node.listed and len(node.path) > 1]
    ids = {item.node.ref: item_id for item_id, item in number_items(listed).items()}
    assert (ids["back"], ids["share"], ids["search"]) == ("B1", "B2", "T1")
    assert ids["label"].startswith("X") and ids["row0"].startswith("X")
