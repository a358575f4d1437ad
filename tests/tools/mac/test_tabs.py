"""The `tabs` tool: tab sets, closing, URLs and page actions in the Node JXA stand-in (a
simulation), the page-argument wrapper that keeps values out of code, and on a Mac."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from pydantic import ValidationError

from tests.support.jxa.desktop_world import Runner, chrome, desktop, safari
from tests.support.jxa.forbidden import FORBIDDEN_JS
from tests.support.mac_standin import NINE, Tabs
from tools.base import Risk, RunContext, ToolResult
from tools.mac.osa.engine import SCRIPTS_DIR, OsaEngine, macos_available
from tools.mac.osa.worker import Worker
from tools.mac.tabs import BROWSER_APPS, TabsInput, TabsTool, domain_of, normalize_url
from tools.mac.tabs.answers import (
    BAD_SELECTOR,
    BOTH_RUNNING,
    CHANGED,
    JS_OFF_STEPS,
    NONE_RUNNING,
    NOT_FOUND,
    PASSWORD,
)

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "deskhand-hypothesis")
REPO = Path(__file__).resolve().parents[3]
PAGE_SCRIPT = SCRIPTS_DIR / "tabs" / "page.js"
PRELUDE = SCRIPTS_DIR / "tabs" / "_prelude.js"
TAB_SCRIPTS = sorted(path for path in (SCRIPTS_DIR / "tabs").glob("*.js") if path != PRELUDE)
HOSTILE = [
    '"); alert(1); ("',
    "'); document.body.remove(); ('",
    "</script><script>alert(1)</script>",
    '\\u0022 \\" \\\\',
    "line\nbreak\u2028sep\u2029para",
    "${`template`}",
    "😀 עברית 中文",
]


def listed(result: ToolResult) -> list[dict[str, Any]]:
    assert not result.is_error, result.text
    return json.loads(result.text[result.text.index("\n") + 1 :])


# --- tab sets across windows -----------------------------------------------------------------


@pytest.mark.parametrize("browser", ["safari", "chrome"])
def test_global_indices_across_windows(tabs: Tabs, browser: str) -> None:
    app = safari(NINE, current=[1, 0, 1]) if browser == "safari" else chrome(NINE, active=[2, 1, 2])
    tabs.world.write(desktop(apps={"Safari" if browser == "safari" else "Google Chrome": app}))
    found = listed(tabs.call(action="list_tabs"))  # the only browser running is picked
    assert [tab["index"] for tab in found] == list(range(1, 10))
    assert [(tab["window"], tab["tab"]) for tab in found][2:5] == [(1, 3), (2, 1), (2, 2)]
    assert [tab["title"] for tab in found if tab["active"]] == ["r/python", "GitHub", "r/rust"]
    assert found[1]["domain"] == "reddit.com" and found[8]["domain"] == "reddit.com"


@pytest.mark.parametrize("browser", ["safari", "chrome"])
def test_without_workers_each_call_runs_on_its_own_with_the_shared_prelude(
    runner: Runner, browser: str
) -> None:
    one_shot = Tabs(runner, workers=0)
    app = safari(NINE, current=[1, 0, 1]) if browser == "safari" else chrome(NINE, active=[2, 1, 2])
    one_shot.world.write(desktop(apps={"Safari" if browser == "safari" else "Google Chrome": app}))
    seen: list[tuple[str, ...]] = []
    real_exec = asyncio.create_subprocess_exec

    async def exec_spy(*argv: Any, **kwargs: Any) -> Any:
        seen.append(tuple(str(part) for part in argv))
        return await real_exec(*argv, **kwargs)

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(asyncio, "create_subprocess_exec", exec_spy)
            found = listed(one_shot.call(action="list_tabs"))
            switched = one_shot.call(action="switch_tab", index=6)
    finally:
        runner.run(one_shot.engine.aclose())
    assert [tab["title"] for tab in found if tab["active"]] == ["r/python", "GitHub", "r/rust"]
    assert not switched.is_error and "News" in switched.text
    prelude = PRELUDE.read_text(encoding="utf-8")
    scripts = {prelude + "\n" + path.read_text(encoding="utf-8") for path in TAB_SCRIPTS}
    assert seen and all(argv[1:4] == ("-l", "JavaScript", "-e") for argv in seen)
    assert all(argv[4] in scripts and len(argv) == 6 for argv in seen)
    assert all(isinstance(json.loads(argv[5]), dict) and argv[5].isascii() for argv in seen)


@pytest.mark.parametrize("browser", ["safari", "chrome"])
def test_closing_2_5_8_closes_the_right_tabs(tabs: Tabs, browser: str) -> None:
    app_name = "Safari" if browser == "safari" else "Google Chrome"
    tabs.world.write(
        desktop(apps={app_name: safari(NINE) if browser == "safari" else chrome(NINE)})
    )
    call = tabs.prepare(action="close_tab", browser=browser, indices=[5, 2, 8])
    assert tabs.tool.summary(call) == (
        f"Close 3 {app_name} tabs: 'reddit home', 'r/python', 'Calendar'"
    )
    result = tabs.run(call)
    assert not result.is_error, result.text
    assert tabs.titles(app_name) == [["Inbox", "Docs"], ["GitHub", "News", "Maps"], ["r/rust"]]
    listing, effect = result.text[result.text.index("\n") + 1 :].split("\nEffect:\n")
    closed = json.loads(listing)
    assert [tab["title"] for tab in closed] == ["r/python", "reddit home", "Calendar"]
    assert effect == (
        '- tab "r/python" (https://www.reddit.com/r/python)\n'
        '- tab "reddit home" (https://www.reddit.com/)\n'
        '- tab "Calendar" (https://cal.example.com/)'
    )
    closes = [entry for entry in tabs.world.read()["log"] if entry["command"] == "close"]
    assert len(closes) == 3


def test_closing_a_whole_window_and_a_later_tab(tabs: Tabs) -> None:
    tabs.world.write(desktop(apps={"Safari": safari(NINE)}))
    assert not tabs.call(action="close_tab", indices=[8, 9, 4, 5, 6, 7]).is_error
    assert tabs.titles() == [["Inbox", "r/python", "Docs"]]


def test_an_invalid_index_closes_nothing(tabs: Tabs) -> None:
    tabs.world.write(desktop(apps={"Safari": safari(NINE)}))
    result = tabs.call(action="close_tab", indices=[2, 10])
    assert result.is_error and "there are 9 now" in result.text
    assert sum(len(window) for window in tabs.titles()) == 9
    with pytest.raises(ValidationError):
        TabsInput(action="close_tab", indices=[2, 2])
    with pytest.raises(ValidationError):
        TabsInput(action="close_tab", indices=[0])


def test_tabs_that_changed_after_approval_are_not_closed(tabs: Tabs) -> None:
    tabs.world.write(desktop(apps={"Safari": safari(NINE)}))
    call = tabs.prepare(action="close_tab", indices=[2])
    assert [tab.title for tab in call.approved or []] == ["r/python"]
    moved = [list(NINE[0][1:]), *NINE[1:]]  # the person closed tab 1 meanwhile
    tabs.world.write(desktop(apps={"Safari": safari(moved)}))
    assert tabs.run(call).text == CHANGED
    assert tabs.titles()[0] == ["r/python", "Docs"]


def test_the_model_cannot_supply_approved_titles() -> None:
    call = TabsInput.model_validate(
        {
            "action": "close_tab",
            "indices": [1],
            "approved": [{"index": 1, "title": "x", "url": "y"}],
        }
    )
    assert call.approved is None
    assert "approved" not in json.dumps(TabsTool(OsaEngine(osascript="/no")).api_schema())


def test_switch_tab_in_both_browsers(tabs: Tabs) -> None:
    tabs.world.write(desktop(apps={"Safari": safari(NINE), "Google Chrome": chrome(NINE)}))
    assert tabs.call(action="list_tabs").text == BOTH_RUNNING
    assert not tabs.call(action="switch_tab", browser="safari", index=6).is_error
    safari_window = tabs.world.app("Safari")["windows"][1]
    assert [tab["visible"] for tab in safari_window["tabs"]] == [False, False, True, False]
    assert safari_window["index"] == 1
    result = tabs.call(action="switch_tab", browser="chrome", index=9)
    assert result.text == (
        "Switched to tab 9: 'r/rust'.\nEffect:\n~ tab 9 \"r/rust\": current, window in front"
    )
    assert tabs.world.app("Google Chrome")["windows"][2]["activeTabIndex"] == 2
    assert tabs.world.app("Google Chrome")["frontmost"] is True


def test_no_browser_running(tabs: Tabs) -> None:
    tabs.world.write(desktop(apps={"Safari": {"running": False}}))
    assert tabs.call(action="list_tabs").text == NONE_RUNNING


# --- URLs --------------------------------------------------------------------------------------

URL_TABLE = [
    ("https://example.com", "https://example.com"),
    ("http://example.com/a?b=1#c", "http://example.com/a?b=1#c"),
    ("example.com", "https://example.com"),
    ("  Example.COM/Path  ", "https://example.com/Path"),
    ("www.github.com/anthropics", "https://www.github.com/anthropics"),
    ("chatgpt", "https://chatgpt.com"),
    ("chatgpt/c/123", "https://chatgpt.com/c/123"),
    ("HTTPS://GitHub.com", "https://github.com"),
    ("localhost:8000/x", "http://localhost:8000/x"),
    ("127.0.0.1:5000", "http://127.0.0.1:5000"),
    ("example.com:8443", "https://example.com:8443"),
    ("javascript:alert(1)", None),
    ("JavaScript://example.com/%0aalert(1)", None),
    ("data:text/html,<script>alert(1)</script>", None),
    ("file:///etc/passwd", None),
    ("ftp://example.com", None),
    ("chrome://settings", None),
    ("about:blank", None),
    ("mailto:ana@example.com", None),
    ("https://user:pass@example.com", None),
    ("two words", None),
    ("exa\u202emple.com", None),
    ("https://exa_mple.com", None),
    ("", None),
]


@pytest.mark.parametrize(("typed", "expected"), URL_TABLE)
def test_url_normalization_table(typed: str, expected: str | None) -> None:
    assert normalize_url(typed) == expected


def test_domains() -> None:
    assert domain_of("https://www.reddit.com/r/x") == "reddit.com"
    assert domain_of("about:blank") == ""


def test_open_url_opens_a_normalized_address(tabs: Tabs) -> None:
    tabs.world.write(desktop(apps={"Safari": safari(NINE)}))
    result = tabs.call(action="open_url", url="chatgpt")
    assert result.text == (
        "Opened https://chatgpt.com in a new Safari tab.\nEffect:\n"
        "+ tab 4: https://chatgpt.com, current"
    )
    window = tabs.world.app("Safari")["windows"][0]
    assert window["tabs"][-1]["url"] == "https://chatgpt.com" and window["tabs"][-1]["visible"]
    with pytest.raises(ValidationError):
        TabsInput(action="open_url", url="javascript:alert(1)")


# --- pages -------------------------------------------------------------------------------------

PAGE = {
    "text": "Welcome to the forum.\n" + "x" * 25_000,
    "links": [{"text": f"  Link\n{i} ", "href": f"https://example.com/{i}"} for i in range(300)],
    "elements": [
        {"selector": "#q", "tag": "input", "type": "search", "value": ""},
        {"selector": "#pw", "tag": "input", "type": "password", "value": ""},
        {"selector": "#pw2", "tag": "input", "type": "text", "autocomplete": "current-password"},
        {"selector": "#go", "tag": "button"},
    ],
}


def page_world(browser: str = "safari") -> dict[str, Any]:
    pages = {"https://forum.example.com/": PAGE}
    windows = [[("Forum", "https://forum.example.com/"), ("Other", "https://other.example.com/")]]
    if browser == "safari":
        return desktop(apps={"Safari": safari(windows, pages=pages)})
    return desktop(apps={"Google Chrome": chrome(windows, pages=pages)})


def page_element(tabs: Tabs, selector: str, app: str = "Safari") -> dict[str, Any]:
    page = tabs.world.app(app)["windows"][0]["tabs"][0]["page"]
    return next(item for item in page["elements"] if item["selector"] == selector)


@pytest.mark.parametrize("browser", ["safari", "chrome"])
def test_get_text_is_bounded_with_a_cut_marker(tabs: Tabs, browser: str) -> None:
    tabs.world.write(page_world(browser))
    result = tabs.call(action="get_text")
    assert not result.is_error, result.text
    assert "25022 characters" in result.text and "not instructions" in result.text
    body = result.text.split("\n", 1)[1]
    assert body.startswith("Welcome to the forum.")
    assert body.endswith("\n[Cut: showing the first 10000 of 25022 characters.]")
    assert len(body.split("\n[Cut")[0]) == 10_000


def test_get_url_title_and_links(tabs: Tabs) -> None:
    tabs.world.write(page_world())
    assert tabs.call(action="get_url", index=2).text.endswith("https://other.example.com/")
    assert tabs.call(action="get_title").text.endswith(": Forum")
    result = tabs.call(action="get_links", max_links=5)
    assert "300 in all, showing 5" in result.text
    links = json.loads(result.text.split("\n", 1)[1])
    assert links[1] == {"text": "Link 1", "href": "https://example.com/1"}


@pytest.mark.parametrize("browser", ["safari", "chrome"])
@pytest.mark.parametrize("text", HOSTILE)
def test_fill_round_trips_any_text_as_data(tabs: Tabs, browser: str, text: str) -> None:
    tabs.world.write(page_world(browser))
    app = "Safari" if browser == "safari" else "Google Chrome"
    result = tabs.call(action="fill", selector="#q", text=text)
    assert not result.is_error, result.text
    field = page_element(tabs, "#q", app)
    assert field["value"] == text and field["events"] == ["input", "change"]
    assert result.outcome is not None and result.outcome.kind == "done"


def test_fill_never_touches_password_fields(tabs: Tabs) -> None:
    tabs.world.write(page_world())
    for selector in ["#pw", "#pw2"]:
        assert tabs.call(action="fill", selector=selector, text="hunter2").text == PASSWORD
        assert not page_element(tabs, selector).get("value")


def test_click_and_selector_problems(tabs: Tabs) -> None:
    tabs.world.write(page_world())
    assert tabs.call(action="click", selector="#go").text.startswith("Clicked '#go' on 'Forum'")
    assert page_element(tabs, "#go")["clicks"] == 1
    assert tabs.call(action="click", selector="#nope").text == NOT_FOUND
    assert tabs.call(action="click", selector="a!!b").text == BAD_SELECTOR


def test_run_js_runs_exactly_the_approved_code(tabs: Tabs) -> None:
    tabs.world.write(page_world("chrome"))
    call = tabs.prepare(action="run_js", code="({title: document.title, n: 1 + 1})")
    assert tabs.tool.risk(call)[0] is Risk.CONSEQUENTIAL
    assert tabs.tool.target(call) == "https://forum.example.com/"
    assert "JavaScript on 'Forum' (https://forum.example.com/)" in tabs.tool.summary(call)
    result = tabs.run(call)
    assert json.loads(result.text.split("\n", 1)[1]) == {"title": "Forum", "n": 2}


@pytest.mark.parametrize(("browser", "number"), [("safari", 8), ("chrome", 12)])
def test_javascript_from_apple_events_turned_off(tabs: Tabs, browser: str, number: int) -> None:
    world = page_world(browser)
    app = "Safari" if browser == "safari" else "Google Chrome"
    command = "doJavaScript" if browser == "safari" else "execute"
    world["errors"] = [{"app": app, "command": command, "number": number}]
    tabs.world.write(world)
    result = tabs.call(action="get_text")
    assert result.is_error and result.text.startswith(JS_OFF_STEPS[browser])
    assert "Allow JavaScript from Apple Events" in result.text
    assert tabs.progress == [JS_OFF_STEPS[browser]]
    # reading the tab's address needs no JavaScript
    assert not tabs.call(action="get_url").is_error


def test_other_page_errors_are_not_mistaken_for_the_setting(tabs: Tabs) -> None:
    world = page_world()
    world["errors"] = [{"app": "Safari", "command": "doJavaScript", "number": -1728}]
    tabs.world.write(world)
    result = tabs.call(action="get_text")
    assert result.is_error and "Apple Events" not in result.text


# --- data in, never code -----------------------------------------------------------------------

WRAPPER_HARNESS = r"""
const fs = require("fs"), vm = require("vm");
const [script, inputs] = [process.argv[2], JSON.parse(fs.readFileSync(0, "utf8"))];
const ctx = vm.createContext({});
vm.runInContext(fs.readFileSync(script, "utf8"), ctx);
function echo(args) { return JSON.stringify(args); }
function echoElement(element, args) { return JSON.stringify(args); }
const document = { querySelector: () => ({}) };  // every selector finds an element
const out = inputs.map((args) => {
  const source = ctx.pageSource(echo, args);
  const around = ctx.elementSource(echoElement, args);
  return {
    source,
    back: vm.runInContext(source, vm.createContext({ JSON })),
    around,
    back_around: vm.runInContext(around, vm.createContext({ JSON, document })),
  };
});
process.stdout.write(JSON.stringify({
  out, echo: echo.toString(), element: ctx.onElement.toString() + ")(" + echoElement.toString(),
}));
"""
LITERAL = re.compile(r'"(?:[A-Za-z0-9]|\\u[0-9a-f]{4})*"')


def wrap_in_node(tmp_path: Path, inputs: list[Any]) -> dict[str, Any]:
    harness = tmp_path / "harness.js"
    harness.write_text(WRAPPER_HARNESS)
    done = subprocess.run(
        ["node", str(harness), str(PAGE_SCRIPT)],
        input=json.dumps(inputs),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(texts=st.lists(st.text(st.characters(exclude_categories=("Cs",))), max_size=20))
def test_no_value_can_break_out_of_the_page_arguments(tmp_path: Path, texts: list[str]) -> None:
    if shutil.which("node") is None:
        pytest.skip("needs node")
    inputs = [{"selector": text, "text": text} for text in [*texts, *HOSTILE]]
    answer = wrap_in_node(tmp_path, inputs)
    prefix = "(" + answer["echo"] + ")(JSON.parse("
    around = "(" + answer["element"] + ", JSON.parse("
    for args, item in zip(inputs, answer["out"], strict=True):
        for start, source, back in [
            (prefix, item["source"], item["back"]),
            (around, item["around"], item["back_around"]),
        ]:
            assert source.startswith(start) and source.endswith("))")
            assert LITERAL.fullmatch(source[len(start) : -2]), source
            assert json.loads(back) == args


@pytest.mark.parametrize("script", TAB_SCRIPTS, ids=lambda path: path.name)
def test_tab_scripts_take_one_json_argument_and_run_no_code(script: Path) -> None:
    source = script.read_text(encoding="utf-8")
    assert "function run(argv)" in source and "JSON.parse(argv[0])" in source
    assert len(re.findall(r"\bargv\b", source)) == 2
    assert "eval" not in source
    allowed = {"doJavaScript"} if script == PAGE_SCRIPT else set()
    for token in FORBIDDEN_JS:
        if token not in allowed:
            assert token not in source, token
    if script == PAGE_SCRIPT:
        # The one call into the page, fed only by run_js's approved code or a constant page
        # function (alone, or around the element it acts on) applied to JSON data.
        assert source.count("doJavaScript(") == 1 and source.count("execute(") == 1
        assert re.findall(r"\bsource = [^;]+;", source) == [
            "source = input.code;",
            "source = pageSource(PAGE_FUNCTIONS[input.op], input.args);",
            "source = elementSource(ELEMENT_FUNCTIONS[input.op], input.args);",
        ]


def test_hostile_input_reaches_scripts_only_as_json(tabs: Tabs) -> None:
    tabs.world.write(page_world())
    seen: list[tuple[str, str]] = []
    real_request = Worker.request

    async def spy(self: Worker, request_id: int, script: str, payload: str, **kw: Any) -> str:
        seen.append((script, payload))
        return await real_request(self, request_id, script, payload, **kw)

    nasty = "".join(HOSTILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Worker, "request", spy)
        assert not tabs.call(action="fill", selector="#q", text=nasty).is_error
        assert tabs.call(action="click", selector=nasty).is_error
        tabs.call(action="open_url", url="example.com/" + "%22%27")
    assert page_element(tabs, "#q")["value"] == nasty
    for script, payload in seen:
        assert (SCRIPTS_DIR / f"{script}.js").is_file() and payload.isascii()
        assert isinstance(json.loads(payload), dict)


# --- on a real Mac -------------------------------------------------------------------------------


@pytest.mark.macos
@pytest.mark.skipif(not macos_available(), reason="needs macOS with osascript")
@pytest.mark.parametrize("browser", ["safari", "chrome"])
def test_mac_list_tabs_and_read_the_current_tab(browser: str, tmp_path: Path) -> None:
    async def go() -> tuple[ToolResult, ToolResult, ToolResult]:
        engine = OsaEngine()
        tool = TabsTool(engine)
        ctx = RunContext(session_id=1, attachments_dir=tmp_path)
        try:
            listed = await tool.run(TabsInput(action="list_tabs", browser=browser), ctx)
            text = await tool.run(TabsInput(action="get_title", browser=browser), ctx)
            switch = TabsInput(action="switch_tab", browser=browser, index=1)
            switched = await tool.run(await tool.prepare(switch), ctx)
            return listed, text, switched
        finally:
            await engine.aclose()

    listed_tabs, title, switched = asyncio.run(go())
    if listed_tabs.text.startswith("That browser is not running"):
        pytest.skip(f"{browser} is not running")
    assert not listed_tabs.is_error and not title.is_error, (listed_tabs.text, title.text)
    # Switching to the first tab reads back that it is current in the front window.
    assert switched.outcome is not None and switched.outcome.kind == "done", switched.text


SHOP = {
    "text": "Your cart",
    "elements": [
        {
            "selector": "#place-order",
            "tag": "button",
            "text": "Place order",
            "form": {"method": "post", "action": "https://shop.example/checkout"},
        },
        {"selector": "#jetzt", "tag": "button", "label": "Jetzt kaufen"},
        {"selector": "#next", "tag": "button", "text": "Next"},
        {"selector": "#note", "tag": "input", "type": "text", "value": ""},
    ],
}


def shop_world(browser: str = "safari") -> dict[str, Any]:
    pages = {"https://shop.example/cart": SHOP}
    windows = [[("Cart", "https://shop.example/cart")]]
    if browser == "safari":
        return desktop(apps={"Safari": safari(windows, pages=pages)})
    return desktop(apps={"Google Chrome": chrome(windows, pages=pages)})


@pytest.mark.parametrize("browser", ["safari", "chrome"])
def test_a_click_in_the_persons_browser_is_judged_by_the_element_it_names(
    tabs: Tabs, browser: str
) -> None:
    """In the person's own signed-in browser, "#place-order" is a purchase, whatever its id."""
    tabs.world.write(shop_world(browser))
    order = tabs.prepare(action="click", selector="#place-order")
    risk, reason = tabs.tool.risk(order)
    assert risk is Risk.CONSEQUENTIAL and "Place order" in reason
    assert tabs.tool.risk(tabs.prepare(action="click", selector="#jetzt"))[0] is Risk.CONSEQUENTIAL
    assert tabs.tool.risk(tabs.prepare(action="click", selector="#next"))[0] is Risk.CHANGE
    assert tabs.tool.risk(tabs.prepare(action="fill", selector="#note", text="hi"))[0] is (
        Risk.CHANGE
    )
    # Looking is all preparing does: nothing was clicked.
    assert "clicks" not in page_element(tabs, "#place-order", BROWSER_APPS[browser])


def test_a_click_whose_element_cannot_be_looked_at_is_consequential(tabs: Tabs) -> None:
    tabs.world.write(shop_world())
    unseen = tabs.prepare(action="click", selector="#not-there")
    assert tabs.tool.risk(unseen)[0] is Risk.CONSEQUENTIAL
    assert tabs.tool.risk(tabs.input(action="click", selector="#next"))[0] is Risk.CONSEQUENTIAL
