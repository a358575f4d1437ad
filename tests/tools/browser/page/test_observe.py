"""Reading Playwright's aria snapshot text and rendering what read_page and find show (no browser)."""

from __future__ import annotations

from tools.browser.page.observe import INTERACTIVE_ROLES, find_elements, is_interactive, render_page
from tools.browser.page.refs import RefCounter, RefTable
from tools.browser.page.snapshot import AriaNode, ControlScan, parse_snapshot

SNAPSHOT = """\
- generic [active] [ref=e1] [box=8,8,1264,3391]:
  - 'heading "Hello: world" [level=1] [ref=e2] [box=8,8,1264,37]'
  - paragraph [ref=e3] [box=8,66,1264,18]:
    - text: Some text
    - link "Docs" [ref=e4] [cursor=pointer] [box=76,66,25,17]:
      - /url: /docs
  - 'button "a: b" [ref=e5] [box=8,100,50,20]'
  - textbox "Name" [ref=e6] [box=8,130,100,20]: "Ana \\"A\\" Lovelace"
  - textbox "Password" [ref=e7] [box=8,160,100,20]: hunter2
  - combobox "Country" [ref=e8] [box=8,190,100,20]:
    - option "Canada" [selected] [box=0,0,0,0]
    - option "France" [box=0,0,0,0]
  - checkbox "Agree" [checked] [ref=e9] [box=8,220,13,13]
  - iframe [ref=e10] [box=8,300,400,150]:
    - button "In frame" [ref=f1e2] [box=8,8,65,21]
  - table [ref=e11] [box=8,900,600,100]:
    - row "7 Ada" [ref=e12] [box=8,900,600,20]:
      - cell "7" [ref=e13] [box=8,900,50,20]
      - cell "Ada" [ref=e14] [box=60,900,50,20]
      - cell [ref=e15] [box=110,900,100,20]:
        - button "Delete" [ref=e16] [box=110,900,60,20]
    - row "8 Grace" [ref=e17] [box=8,920,600,20]:
      - cell [ref=e18] [box=110,920,100,20]:
        - button "Delete" [ref=e19] [box=110,920,60,20]
  - button "Far below" [ref=e20] [box=8,3378,75,21]
"""


def tree() -> AriaNode:
    return parse_snapshot(SNAPSHOT)


def refs() -> tuple[RefTable, object]:
    table = RefTable(RefCounter())

    def ref_of(node: AriaNode) -> str:
        assert node.pw_ref is not None
        return table.ref_for(node.pw_ref, node.role, node.name)

    return table, ref_of


def test_parses_names_values_flags_props_and_quoted_lines() -> None:
    nodes = {node.pw_ref: node for node in tree().walk() if node.pw_ref}
    assert nodes["e2"].name == "Hello: world" and nodes["e2"].flags == ["level=1"]
    assert nodes["e4"].props == {"url": "/docs"} and nodes["e4"].pointer
    assert nodes["e5"].role == "button" and nodes["e5"].name == "a: b"
    assert nodes["e6"].text == 'Ana "A" Lovelace'
    assert nodes["e9"].flags == ["checked"]
    assert nodes["e1"].focused
    assert nodes["f1e2"].in_frame and nodes["f1e2"].parent is nodes["e10"]


def test_interactive_lists_every_control_once_with_values_and_hides_secrets() -> None:
    _table, ref_of = refs()
    text = render_page(tree(), ref_of=ref_of, secret={"e7"}, filter="interactive")
    lines = text.splitlines()
    assert 'link "Docs" [ref_1] </docs>' in lines[0]
    assert any(line.endswith('textbox "Name" [ref_3]: Ana "A" Lovelace') for line in lines)
    assert any('"Password" [password]' in line for line in lines)
    assert "hunter2" not in text
    assert any(line.endswith('combobox "Country" [ref_5]: Canada') for line in lines)
    assert 'button "In frame"' in text and "Far below" in text  # frames and off-screen included
    assert "Some text" not in text and "heading" not in text


def test_default_filter_shows_only_what_is_in_the_viewport() -> None:
    _table, ref_of = refs()
    text = render_page(tree(), ref_of=ref_of, viewport=(1280, 800))
    assert 'heading "Hello: world"' in text and "In frame" in text
    assert "Far below" not in text and "Delete" not in text
    everything = render_page(tree(), ref_of=ref_of, filter="all")
    assert "Far below" in everything and "Delete" in everything


def test_unnamed_wrappers_are_hoisted_and_depth_limits() -> None:
    _table, ref_of = refs()
    text = render_page(tree(), ref_of=ref_of, filter="all", depth=0)
    assert all(not line.startswith(" ") for line in text.splitlines())
    assert "generic" not in text


def test_output_is_capped_with_a_marker() -> None:
    lines = "\n".join(
        f'- button "Button number {n}" [ref=e{n}] [box=0,0,10,10]' for n in range(5000)
    )
    _table, ref_of = refs()
    text = render_page(parse_snapshot(lines), ref_of=ref_of, filter="interactive", cap=2000)
    assert len(text) < 2200
    assert "Output cut at 2,000 characters" in text and "smaller depth" in text


def test_refs_are_stable_across_reads_and_stale_after_navigation() -> None:
    table, ref_of = refs()
    first = render_page(tree(), ref_of=ref_of, filter="interactive")
    second = render_page(tree(), ref_of=ref_of, filter="interactive")
    assert first == second
    entry = table.resolve("ref_1")
    assert entry is not None and entry.pw_ref == "e4" and entry.label == "Docs"
    table.main_navigated()
    assert table.resolve("ref_1") is None
    assert render_page(tree(), ref_of=ref_of, filter="interactive") != first  # new numbers


def test_frame_refs_go_stale_when_a_frame_navigates_but_page_refs_stay() -> None:
    table, ref_of = refs()
    render_page(tree(), ref_of=ref_of, filter="all")
    frame_ref = next(
        r
        for r in (f"ref_{n}" for n in range(1, 40))
        if (e := table.resolve(r)) and e.pw_ref == "f1e2"
    )
    table.frame_navigated()
    assert table.resolve(frame_ref) is None
    assert table.resolve("ref_1") is not None


def test_refs_are_never_shared_between_tabs() -> None:
    counter = RefCounter()
    first, second = RefTable(counter), RefTable(counter)
    a = first.ref_for("e1", "button", "A")
    b = second.ref_for("e1", "button", "B")
    assert a != b
    assert second.resolve(a) is None


def test_find_ranks_by_name_role_and_row_context() -> None:
    _table, ref_of = refs()
    text = find_elements(tree(), "delete button for Grace", ref_of=ref_of)
    first = text.splitlines()[0]
    assert 'button "Delete"' in first and "Grace" in first
    assert "Docs" not in text
    assert "No element matched" in find_elements(tree(), "shopping cart", ref_of=ref_of)
    assert 'link "Docs"' in find_elements(tree(), "documentation link docs", ref_of=ref_of)


def scan_all(depth: int) -> AriaNode:
    """Every control the lazy scan finds, flat under a document root."""
    roles = INTERACTIVE_ROLES | {"iframe"}
    controls = ControlScan(SNAPSHOT, is_interactive, depth, roles=roles).take(1_000)
    return AriaNode(role="document", children=controls)


def test_the_fast_interactive_scan_matches_the_full_parse() -> None:
    for depth in (0, 2, 15):
        _full_table, full_ref_of = refs()
        _scan_table, scan_ref_of = refs()
        full = render_page(
            tree(), ref_of=full_ref_of, secret={"e7"}, filter="interactive", depth=depth
        )
        flat = scan_all(depth)
        assert (
            render_page(flat, ref_of=scan_ref_of, secret={"e7"}, filter="interactive", depth=depth)
            == full
        )


def test_controls_taken_a_few_at_a_time_and_the_rest_counted_match_the_whole_scan() -> None:
    roles = INTERACTIVE_ROLES | {"iframe"}
    for depth in (0, 2, 15):
        whole = scan_all(depth).children
        for batch in (1, 2, 3):
            scan = ControlScan(SNAPSHOT, is_interactive, depth, roles=roles)
            taken = scan.take(batch)
            assert [(n.role, n.name, n.pw_ref, n.text, n.props) for n in taken] == [
                (n.role, n.name, n.pw_ref, n.text, n.props) for n in whole[:batch]
            ]
            rest = scan.count_rest(skip=frozenset({"iframe"}))
            assert rest == sum(1 for n in whole[len(taken) :] if n.role != "iframe")
            assert scan.take(batch) == []  # counted is consumed: nothing is handed out twice
