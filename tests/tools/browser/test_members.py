"""Every browser member on purpose-built pages, through `tool_result` as the app calls it (real Chromium)."""

from __future__ import annotations

import base64
import io
import json
import socket
from pathlib import Path

import pytest
from PIL import Image

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import Driver, Gate

pytestmark = pytest.mark.anyio


def png(result_image: dict) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(result_image["source"]["data"])))


# --- navigation -------------------------------------------------------------------------------


async def test_navigate_reports_the_page_and_the_state(browser: Driver, pages: PageServer) -> None:
    result = await browser("navigate", url=pages.url("form.html"))
    assert result.texts[0] == f"Navigated to {pages.url('form.html')} — Sign-up form (HTTP 200)"
    assert result.tabs == [
        {"tab_id": "tab_1", "title": "Sign-up form", "url": pages.url("form.html"), "active": True}
    ]


async def test_back_forward_and_reload(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("form.html"))
    await browser.open(pages.url("second.html"))
    back = await browser("navigate", url="back")
    assert back.active["url"] == pages.url("form.html")
    forward = await browser("navigate", url="Forward")
    assert forward.active["url"] == pages.url("second.html")
    reload = await browser("navigate", url="reload")
    assert not reload.is_error and reload.active["title"] == "Second page"


async def test_back_without_history_is_a_plain_error(browser: Driver) -> None:
    await browser("new_tab")
    result = await browser("navigate", url="back")
    assert result.is_error and "no earlier page" in result.text


async def test_unreachable_site_error_names_no_address(browser: Driver) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    result = await browser("navigate", url=f"http://127.0.0.1:{closed_port}/private/path")
    assert result.is_error
    assert result.text == "The site refused the connection."


# --- seeing -----------------------------------------------------------------------------------


async def test_screenshot_is_the_viewport_at_scale_one(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("pointer.html"))
    result = await browser("screenshot")
    (image,) = result.images
    assert image["source"]["media_type"] == "image/png"
    shot = png(image)
    assert shot.size == (1280, 800)
    assert shot.convert("RGB").getpixel((903, 603)) == (255, 0, 0)  # the red target square


async def test_zoom_renders_a_region_larger(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("pointer.html"))
    result = await browser("zoom", region=[892, 592, 916, 616])
    zoomed = png(result.images[0]).convert("RGB")
    assert zoomed.width >= 90 and zoomed.height >= 90  # 24 px rendered at 4x
    assert zoomed.getpixel((zoomed.width // 2, zoomed.height // 2)) == (255, 0, 0)
    bad = await browser("zoom", region=[100, 100, 50, 50])
    assert bad.is_error and "x0 < x1" in bad.text


async def test_read_page_interactive_lists_every_form_control(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("form.html"))
    result = await browser("read_page", filter="interactive")
    text = result.text
    for expected in (
        'textbox "Full name"',
        'textbox "Email"',
        'textbox "Password" [password]',
        'combobox "Country"',
        'checkbox "I agree to the terms"',
        'radio "Medium"',
        'textbox "Comments"',
        'textbox "Notes editor"',
        'slider "Volume"',
        'button "Sign up"',
    ):
        assert expected in text
    assert "hunter2" not in text
    assert "Create an account" not in text  # headings are not controls


async def test_read_page_interactive_past_the_cap_shows_the_first_controls_and_counts_the_rest(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("form.html"))
    own = len((await browser("read_page", filter="interactive")).text.splitlines())
    # 3,000 buttons, a password that holds a value among them (beyond the first few hundred
    # controls), and one more at the very end.
    await browser.eval(
        """(() => {
            const field = (label, value) => {
                const input = document.createElement('input');
                input.type = 'password';
                input.value = value;
                input.setAttribute('aria-label', label);
                return input;
            };
            for (let i = 0; i < 3000; i++) {
                const button = document.createElement('button');
                button.textContent = 'Row ' + i;
                document.body.append(button);
                if (i === 900) document.body.append(field('Later password', 'tiger-lily'));
            }
            document.body.append(field('Last password', 'last-one'));
        })()"""
    )
    text = (await browser("read_page", filter="interactive")).text
    lines = text.splitlines()
    shown = [line for line in lines if line.startswith("- ")]
    cut = lines[-1]
    assert cut.startswith("[Output cut at 50,000 characters; ") and len(text) < 50_300
    more = int(cut.split("; ")[1].split(" ")[0].replace(",", ""))
    assert len(shown) + more == own + 3002  # every control, shown or counted
    rows = [line for line in shown if '"Row ' in line]
    assert [line.split('"')[1] for line in rows] == [f"Row {n}" for n in range(len(rows))]
    assert len(rows) > 1000
    assert 'textbox "Later password" [password]' in text
    assert "tiger-lily" not in text and "hunter2" not in text and "Last password" not in text
    deepest = await browser("read_page", filter="interactive", depth=3_000_000_000)
    assert deepest.text == text  # any depth the model asks for reads the same page


# The form's button, made to rename the page when clicked (and not submit it).
SIGN_UP = 'button "Sign up"'
RENAME_ON_CLICK = (
    "document.querySelector('button').addEventListener('click', "
    "e => { e.preventDefault(); document.title = 'Clicked'; })"
)


async def test_the_state_after_a_read_shows_the_title_as_it_is_and_an_action_reads_it_again(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("form.html"))
    await browser.eval("document.title = 'Renamed by the page'")
    for member, input in (("read_page", {"filter": "interactive"}), ("find", {"query": "name"})):
        assert (await browser(member, **input)).active["title"] == "Renamed by the page"
    # The title read alongside a read is that call's only: a click that renames the page
    # reports the new title.
    await browser.eval(RENAME_ON_CLICK)
    await browser("get_page_text")
    page = await browser("read_page", filter="interactive")
    clicked = await browser("left_click", target={"type": "ref", "ref": page.ref(SIGN_UP)})
    assert clicked.active["title"] == "Clicked"


async def test_a_read_stopped_before_its_report_leaves_no_stale_title_behind(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("form.html"))
    await browser.eval(RENAME_ON_CLICK)
    page = await browser("read_page", filter="interactive")
    tab = await browser.toolset._session.tab(None)
    tab.title_fresh = True  # as a read stopped between reading the title and its report leaves it
    clicked = await browser("left_click", target={"type": "ref", "ref": page.ref(SIGN_UP)})
    assert clicked.active["title"] == "Clicked"


async def test_read_page_filters_by_viewport_depth_and_subtree(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("long.html"))
    visible = await browser("read_page")
    assert "Top of the long page" in visible.text and "Bottom button" not in visible.text
    everything = await browser("read_page", filter="all")
    assert "Bottom button" in everything.text and "Chapter four" in everything.text
    shallow = await browser("read_page", filter="all", depth=0)
    assert all(not line.startswith(" ") for line in shallow.text.splitlines())

    await browser.open(pages.url("form.html"))
    page = await browser("read_page", filter="all")
    group = page.ref('group "Size"')
    subtree = await browser("read_page", ref=group)
    assert 'radio "Small"' in subtree.text and "Full name" not in subtree.text


async def test_frames_and_shadow_dom_are_read_and_clicked(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("frames.html"))
    page = await browser("read_page", filter="all")
    assert page.text.count('button "Frame button"') == 2
    assert 'button "Shadow button"' in page.text
    frame_buttons = [line for line in page.text.splitlines() if '"Frame button"' in line]
    cross_ref = frame_buttons[1].split("[")[-1].rstrip("]")
    clicked = await browser("left_click", target={"type": "ref", "ref": cross_ref})
    assert clicked.texts[0] == "Clicked."
    after = await browser("read_page", filter="all")
    assert after.text.count("frame clicked") == 1  # only the cross-origin frame changed

    found = await browser("find", query="shadow button")
    shadow = found.ref('button "Shadow button"')
    await browser("left_click", target={"type": "ref", "ref": shadow})
    assert (
        await browser.eval("document.getElementById('shadow-out').textContent") == "shadow clicked"
    )
    typed = await browser("left_click", target={"type": "ref", "ref": page.ref('"Shadow input"')})
    assert not typed.is_error
    await browser("type", text="inside shadow")
    assert (
        await browser.eval(
            "document.getElementById('host').shadowRoot.querySelector('input').value"
        )
        == "inside shadow"
    )


async def test_find_returns_matching_elements_with_refs(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("form.html"))
    result = await browser("find", query="sign up button")
    assert result.texts[0].startswith('- button "Sign up" [ref_')
    nothing = await browser("find", query="shopping cart")
    assert "No element matched" in nothing.text


async def test_get_page_text_prefers_the_article_and_is_bounded(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("long.html"))
    short = await browser("get_page_text")
    assert "The third chapter talks about oceans." in short.text
    await browser.open(pages.url("article?paragraphs=200"))
    long = await browser("get_page_text")
    assert len(long.text) < 20_500
    assert "more characters of page text cut" in long.text
    assert "Home | News" not in long.text  # navigation left out: the article is the content


# --- pointer ------------------------------------------------------------------------------------


async def pad_log(browser: Driver) -> list[str]:
    return str(await browser.eval("document.getElementById('log').textContent")).splitlines()


async def test_clicks_at_coordinates_with_modifiers(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("pointer.html"))
    point = {"type": "coordinate", "x": 100, "y": 120}
    assert (await browser("left_click", target=point, modifiers="shift")).texts[0] == "Clicked."
    await browser("right_click", target=point)
    await browser("middle_click", target=point)
    await browser("double_click", target=point)
    await browser("triple_click", target=point)
    log = await pad_log(browser)
    assert "click 100,120 shift=true" in log
    assert "contextmenu 100,120" in log
    assert "middle 100,120" in log
    assert "dblclick 100,120" in log
    assert "triple" in log


async def test_unknown_modifier_and_off_screen_points_are_refused(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("pointer.html"))
    point = {"type": "coordinate", "x": 10, "y": 10}
    assert (
        "key name is not known"
        in (await browser("left_click", target=point, modifiers="hyper")).text
    )
    off = await browser("left_click", target={"type": "coordinate", "x": 5000, "y": 10})
    assert off.is_error and "outside the viewport" in off.text


async def test_hover_mouse_move_drag_and_manual_buttons(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("pointer.html"))
    await browser("hover", target={"type": "coordinate", "x": 600, "y": 50})
    assert await browser.eval("document.getElementById('hover').textContent") == "hovered"

    drag = await browser(
        "left_click_drag",
        **{"from": {"type": "coordinate", "x": 50, "y": 50}},
        target={"type": "coordinate", "x": 300, "y": 200},
    )
    assert drag.texts[0] == "Dragged."
    log = await pad_log(browser)
    assert log.index("down 50,50") < log.index("up 300,200")
    assert await browser.eval("window.moves") >= 5

    await browser("left_mouse_down", target={"type": "coordinate", "x": 20, "y": 20})
    await browser("mouse_move", target={"type": "coordinate", "x": 200, "y": 150})
    await browser("left_mouse_up", target={"type": "coordinate", "x": 210, "y": 160})
    log = await pad_log(browser)
    assert log.index("down 20,20") < log.index("up 210,160")


async def test_scroll_and_scroll_to(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("long.html"))
    scrolled = await browser(
        "scroll",
        scroll_direction="down",
        scroll_amount=5,
        target={"type": "coordinate", "x": 640, "y": 400},
    )
    assert scrolled.texts[0] == "Scrolled down."
    assert await browser.eval("window.scrollY") == 500
    page = await browser("read_page", filter="interactive")
    bottom = page.ref("Bottom button")
    moved = await browser("scroll_to", target={"type": "ref", "ref": bottom})
    assert moved.texts[0] == f"Scrolled to {bottom}."
    assert await browser.eval("window.scrollY") > 2500
    await browser("left_click", target={"type": "ref", "ref": bottom})
    assert await browser.eval("document.getElementById('bottom').textContent") == "Bottom clicked"


# --- keyboard and forms ---------------------------------------------------------------------------


async def test_type_key_and_hold_key(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("form.html"))
    page = await browser("read_page", filter="interactive")
    await browser("left_click", target={"type": "ref", "ref": page.ref('"Full name"')})
    assert (await browser("type", text="Ada Lovelace")).texts[0] == "Typed."
    assert await browser.eval("document.getElementById('name').value") == "Ada Lovelace"
    pressed = await browser("key", text="ctrl+a BackSpace")
    assert pressed.texts[0] == "Pressed ctrl+a BackSpace."
    assert await browser.eval("document.getElementById('name').value") == ""
    await browser("key", text="x", repeat=3)
    assert await browser.eval("document.getElementById('name').value") == "xxx"
    unknown = await browser("key", text="Hyper_L")
    assert unknown.is_error and "not known" in unknown.text

    await browser.open(pages.url("pointer.html"))
    await browser("left_click", target={"type": "coordinate", "x": 520, "y": 310})
    held = await browser("hold_key", text="shift", duration=0.5)
    assert held.texts[0] == "Held shift for 0.5s."
    times = await browser.eval("window.keyTimes")
    assert times["up"] - times["down"] >= 450
    too_long = await browser("hold_key", text="a", duration=31)
    assert too_long.is_error and "between 0 and 30" in too_long.text


async def test_form_input_sets_every_kind_of_field(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("form.html"))
    page = await browser("read_page", filter="interactive")

    async def set_value(name: str, value: object) -> None:
        result = await browser(
            "form_input", target={"type": "ref", "ref": page.ref(name)}, value=value
        )
        assert not result.is_error, result.text
        assert result.texts[0].startswith("Set the value of ref_")

    await set_value('"Full name"', "Grace Hopper")
    shown = await browser("read_page", filter="interactive")
    assert 'textbox "Full name"' in shown.text and 'placeholder="As on your passport"' in shown.text
    assert 'placeholder="As on your passport": Grace Hopper' in shown.text
    await set_value('"Email"', "grace@example.com")
    await set_value('"Country"', "France")  # by the option's label
    await set_value('"I agree to the terms"', True)
    await set_value('radio "Medium"', True)
    await set_value('"Comments"', "Line one\nLine two")
    await set_value('"Notes editor"', "Rich text here")
    await set_value('"Volume"', 7)
    await browser("left_click", target={"type": "ref", "ref": page.ref('"Sign up"')})
    data = json.loads(await browser.eval("document.getElementById('out').textContent"))
    assert data == {
        "name": "Grace Hopper",
        "email": "grace@example.com",
        "country": "fr",
        "agree": True,
        "size": "m",
        "comments": "Line one\nLine two",
        "notes": "Rich text here",
        "volume": "7",
    }
    await set_value('"Country"', "ca")  # by the option's value
    assert await browser.eval("document.getElementById('country').value") == "ca"
    bad = await browser(
        "form_input", target={"type": "ref", "ref": page.ref('"Country"')}, value="Mars"
    )
    assert bad.is_error and "None of that select's options" in bad.text
    not_bool = await browser(
        "form_input", target={"type": "ref", "ref": page.ref('"I agree')}, value="maybe"
    )
    assert not_bool.is_error and "true or false" in not_bool.text


async def test_wait(browser: Driver) -> None:
    assert (await browser("wait", duration=0.1)).texts[0] == "Waited 0.1s."
    assert (await browser("wait", duration=45)).is_error


# --- tabs, popups, dialogs, downloads, uploads -------------------------------------------------------


async def test_tab_lifecycle_ids_are_never_reused(browser: Driver, pages: PageServer) -> None:
    first = await browser.open(pages.url("form.html"))
    assert first.active["tab_id"] == "tab_1"
    opened = await browser("new_tab")
    assert opened.texts == [] and opened.active["tab_id"] == "tab_2"
    assert {"type": "tab_opened", "tab_id": "tab_2"} in opened.changes
    listed = await browser("list_tabs")
    assert [tab["tab_id"] for tab in listed.tabs] == ["tab_1", "tab_2"]
    switched = await browser("switch_tab", tab_id="tab_1")
    assert switched.active["tab_id"] == "tab_1"
    closed = await browser("close_tab", tab_id="tab_2")
    assert [tab["tab_id"] for tab in closed.tabs] == ["tab_1"]
    again = await browser("new_tab")
    assert again.active["tab_id"] == "tab_3"
    missing = await browser("switch_tab", tab_id="tab_2")
    assert missing.is_error and "list_tabs" in missing.text
    # an explicit tab_id reaches a tab that is not active
    other = await browser("navigate", url=pages.url("second.html"), tab_id="tab_1")
    assert other.active["tab_id"] == "tab_3"
    assert [t["title"] for t in other.tabs if t["tab_id"] == "tab_1"] == ["Second page"]


async def test_popups_become_active_tabs(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("popups.html"))
    page = await browser("read_page", filter="interactive")
    result = await browser("left_click", target={"type": "ref", "ref": page.ref("Open popup")})
    assert {"type": "tab_opened", "tab_id": "tab_2"} in result.changes
    assert result.active["tab_id"] == "tab_2"
    await browser("switch_tab", tab_id="tab_1")
    blank = await browser("left_click", target={"type": "ref", "ref": page.ref("Open in new tab")})
    assert {"type": "tab_opened", "tab_id": "tab_3"} in blank.changes
    assert blank.active["tab_id"] == "tab_3"
    assert len([tab for tab in blank.tabs if tab["active"]]) == 1


async def test_dialogs_are_dismissed_and_reported(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("dialogs.html"))
    page = await browser("read_page", filter="interactive")
    alerted = await browser("left_click", target={"type": "ref", "ref": page.ref("Show alert")})
    assert 'An alert dialog "Saved!" was dismissed.' in alerted.texts
    asked = await browser("left_click", target={"type": "ref", "ref": page.ref("Ask to confirm")})
    assert 'A confirm dialog "Delete everything?" was dismissed.' in asked.texts
    assert await browser.eval("document.getElementById('out').textContent") == "cancelled"


async def test_download_is_saved_and_reported_without_its_path(
    browser: Driver, pages: PageServer, folders: dict[str, Path]
) -> None:
    await browser.open(pages.url("files.html"))
    page = await browser("read_page", filter="interactive")
    clicked = await browser(
        "left_click", target={"type": "ref", "ref": page.ref("Download the report")}
    )
    await browser.toolset._session.drain()
    later = await browser("wait", duration=0)
    changes = clicked.changes + later.changes
    completed = [c for c in changes if c["type"] == "download_completed"]
    assert completed and completed[0]["size_bytes"] == len("quarterly numbers\n")
    assert all("path" not in change for change in changes)
    assert (folders["downloads"] / "report.txt").read_text() == "quarterly numbers\n"


async def test_upload_only_from_the_chosen_folder(
    browser: Driver, pages: PageServer, folders: dict[str, Path], gate: Gate
) -> None:
    await browser.open(pages.url("files.html"))
    page = await browser("read_page", filter="interactive")
    field = page.ref('"Attachment"')
    inside = await browser(
        "file_upload",
        target={"type": "ref", "ref": field},
        paths=[str(folders["uploads"] / "notes.txt")],
    )
    assert inside.texts[0] == "Uploaded."
    assert await browser.eval("document.getElementById('out').textContent") == "notes.txt:12"
    assert gate.members()[-1] == "file_upload"

    asked = len(gate.asked)
    outside = await browser(
        "file_upload",
        target={"type": "ref", "ref": field},
        paths=[str(folders["base"] / "outside.txt")],
    )
    assert outside.is_error and "outside the configured upload roots" in outside.text
    assert str(folders["base"]) not in outside.text
    assert len(gate.asked) == asked  # refused before anyone was asked
    sneaky = await browser(
        "file_upload",
        target={"type": "ref", "ref": field},
        paths=[str(folders["uploads"] / ".." / "outside.txt")],
    )
    assert sneaky.is_error
    assert await browser.eval("document.getElementById('out').textContent") == "notes.txt:12"
    not_file = await browser("form_input", target={"type": "ref", "ref": field}, value="x")
    assert not_file.is_error and "file_upload" in not_file.text


# --- developer members ----------------------------------------------------------------------------


async def test_read_console_drains_messages(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("devtools.html"))
    page = await browser("read_page", filter="interactive")
    await browser("left_click", target={"type": "ref", "ref": page.ref("Log messages")})
    console = await browser("read_console")
    assert console.texts[0].splitlines() == [
        "[log] hello from the page",
        "[warning] careful",
        "[error] it broke",
    ]
    assert "no console messages" in (await browser("read_console")).text


async def test_read_network_lists_requests(browser: Driver, pages: PageServer) -> None:
    await browser.open(pages.url("devtools.html"))
    await browser("read_network")  # drop the page load itself
    page = await browser("read_page", filter="interactive")
    await browser("left_click", target={"type": "ref", "ref": page.ref("Fetch data")})
    for _ in range(100):  # the fetch finishes on its own time, after the click
        if await browser.eval("document.getElementById('out').textContent") == "items 3":
            break
        await browser("wait", duration=0.05)
    network = await browser("read_network")
    line = next(line for line in network.text.splitlines() if "/api/data" in line)
    assert line.startswith("GET 200 application/json")


async def test_javascript_exec_is_gated_and_returns_values(
    browser: Driver, pages: PageServer, gate: Gate
) -> None:
    await browser.open(pages.url("form.html"))
    title = await browser("javascript_exec", text="document.title")
    assert title.texts[0] == "Sign-up form"
    asked = gate.asked[-1]
    assert asked.member == "javascript_exec" and asked.tab_url == pages.url("form.html")
    assert (await browser("javascript_exec", text="[1, 2].map(x => x * 2)")).texts[0] == "[2, 4]"
    assert (await browser("javascript_exec", text="undefined")).texts[0] == "undefined"
    thrown = await browser("javascript_exec", text="null.x")
    assert thrown.is_error and thrown.text == "The script threw an exception (TypeError)."
    gate.answer = False
    declined = await browser("javascript_exec", text="document.cookie")
    assert declined.is_error and "did not grant permission" in declined.text
