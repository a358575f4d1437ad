"""`deskhand ui` against the real running app: one action per command over the app's local socket,
through its gate, on a desk with a Qt form and a GTK dialog (tests/support/desk.py); and without
the app, where the command acts by itself with the person's rules.

The app runs as `python -m desktop` (window offscreen, screen on the desk's X server, AT-SPI on
the desk's session bus) in Autonomous mode, so changes run and only consequential actions ask.
Each command is a process of its own, as a person's terminal would start it. Every `--json`
answer is checked against its published schema (`schemas/`).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.support.answers import checked
from tests.support.desk import FORM_RECT, Desk, running_desk, wait_accessible
from tests.support.see_target import SECRET
from tests.support.x11 import TargetApp

ROOT = Path(__file__).resolve().parents[3]
START_LIMIT = 90.0

pytestmark = pytest.mark.slow


@dataclass
class Ran:
    code: int
    out: str
    err: str

    @property
    def json(self) -> dict[str, Any]:
        """The answer, checked against the schema it names."""
        return checked(self.out)


def deskhand(*args: str, env: dict[str, str] | None = None) -> Ran:
    done = subprocess.run(
        [sys.executable, "-m", "desktop", *args],
        cwd=ROOT,
        env={**(env or os.environ), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def ui(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> Ran:
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "ui", "--data-dir", str(data_dir), *args],
        cwd=ROOT,
        env={**(env or os.environ), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


@dataclass
class App:
    data_dir: Path
    desk: Desk
    process: subprocess.Popen[str]

    def ui(self, *args: str) -> Ran:
        return ui(self.data_dir, *args, env=self.desk.env())


@pytest.fixture(scope="module")
def desk() -> Iterator[Desk]:
    with running_desk() as made:
        yield made


@pytest.fixture(scope="module")
def app(desk: Desk, tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    data_dir = tmp_path_factory.mktemp("ui") / "data"
    data_dir.mkdir()
    settings = {"permissions": {"rules": {"screen.scroll_to": "never"}}}
    (data_dir / "settings.json").write_text(json.dumps(settings))
    env = {
        **desk.env(),
        "PYTHONPATH": str(ROOT),
        "QT_QPA_PLATFORM": "offscreen",  # the window; the screen it acts on is the desk's
        "ANTHROPIC_API_KEY": "sk-test-key",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # no model call is made here
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "desktop", "--data-dir", str(data_dir), "--permission-mode",
         "autonomous"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    app = App(data_dir, desk, process)
    try:
        deadline = time.monotonic() + START_LIMIT
        served = data_dir / "ui" / "ui.json"  # without it the command would act on its own
        while not served.exists() or app.ui("screens").code != 0:  # serving, the screen started
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the app never served the command line"
            time.sleep(0.3)
        yield app
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def audit(data_dir: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(data_dir / "deskhand.db") as db:
        rows = db.execute("SELECT tool, action, decision, decided_by FROM audit ORDER BY id")
        return [tuple(row) for row in rows]


def test_without_the_app_reads_run_on_their_own(desk: Desk, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    windows = ui(alone, "windows", env=desk.env())
    assert windows.code == 0 and windows.err == ""
    assert windows.out.startswith("Windows, front to back")
    assert '"See target" — see_target.py #0' in windows.out
    seen = ui(alone, "--json", "see", "--app", "see_target.py", env=desk.env())
    elements = {e["id"]: e for e in seen.json["elements"]}
    assert (elements["B1"]["role"], elements["B1"]["label"]) == ("button", "Save")
    assert elements["T2"]["secure"] is True and elements["T2"]["value"] is None
    assert SECRET not in seen.out
    assert audit(alone) == [
        ("screen", "windows", "allowed", "mode"),
        ("screen", "see", "allowed", "mode"),
    ]
    assert not (alone / "ui" / "ui.json").exists()  # it served nothing


def test_without_the_app_an_action_that_would_ask_is_refused(desk: Desk, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    unseen = ui(alone, "click", "B1", env=desk.env())
    assert (unseen.code, unseen.out) == (1, "")  # 1: not found
    assert unseen.err == unseen_error("click")
    assert ui(alone, "see", "--app", "see_target.py", env=desk.env()).code == 0
    saves = len([e for e in desk.form.of("clicked") if e["name"] == "Save"])
    clicked = ui(alone, "click", "B1", env=desk.env())
    assert clicked.code == 3 and clicked.out == ""  # 3: it needs a permission
    assert clicked.err == (
        "deskhand ui click: Refused: “Screen elements: click” needs your approval, and Deskhand "
        "is not running to ask you. Allow it in Deskhand → Settings → Permissions (Always "
        "allow), or start Deskhand so its window can ask.\n"
    )
    time.sleep(0.5)  # a click that went through would have been reported by now
    assert len([e for e in desk.form.of("clicked") if e["name"] == "Save"]) == saves
    assert audit(alone) == [
        ("screen", "see", "allowed", "mode"),
        ("screen", "click", "denied", "mode"),
    ]
    never = alone / "settings.json"  # the person's rules hold here too
    never.write_text(json.dumps({"permissions": {"rules": {"screen.windows": "never"}}}))
    refused = ui(alone, "windows", env=desk.env())
    assert refused.code == 1
    assert refused.err == (
        "deskhand ui windows: Refused: Settings → Permissions sets “Screen elements: windows” "
        "to Never.\n"
    )


def test_without_the_app_a_broken_settings_file_runs_nothing(desk: Desk, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    broken = '{"permissions": {"rules": {"screen.windows": "never"'  # cut short mid-write
    (alone / "settings.json").write_text(broken)
    refused = ui(alone, "windows", env=desk.env())
    assert refused.code == 1 and refused.out == ""
    assert refused.err == (
        "deskhand ui windows: Deskhand's settings file cannot be read, so your rules cannot be "
        "applied and nothing ran. Start Deskhand: it sets the broken file aside and says what "
        "it kept.\n"
    )
    assert (alone / "settings.json").read_text() == broken  # left for the app to set aside


KEEPER_RECT = (960, 20, 620, 440)  # right of the desk's form and dialog
PRESSED_SAVE = (
    "Pressed B1 'Save' (button, see_target.py).\nEffect: none: nothing in the window changed.\n"
)
STALE = (
    "deskhand ui click: The window changed since that snapshot (it moved, closed, or the element "
    "is gone). Use the see action again, then act on an id it lists.\n"
)


def keeper(desk: Desk) -> TargetApp:
    """A form of its own (titled "Keeper"), so closing it leaves the desk's as it was."""
    form = TargetApp(
        desk.display, KEEPER_RECT, module="tests.support.see_target", args=("Keeper",),
        env=desk.bus.app_env(),
    )  # fmt: skip
    form.start()
    deadline = time.monotonic() + 20
    while not form.of("ready"):
        assert time.monotonic() < deadline, "the form never reported ready"
        time.sleep(0.02)
    wait_accessible(desk.bus, {form.pid or 0})
    return form


@pytest.fixture
def keeper_form(desk: Desk) -> Iterator[TargetApp]:
    form = keeper(desk)
    try:
        yield form
    finally:
        form.close()


@pytest.fixture
def clicks_allowed(tmp_path: Path) -> Path:
    """A data dir whose rules let screen clicks run without asking (Settings: Always allow)."""
    data_dir = tmp_path / "alone"
    data_dir.mkdir()
    settings = {"permissions": {"rules": {"screen.click": "allow"}}}
    (data_dir / "settings.json").write_text(json.dumps(settings))
    return data_dir


def saves(form: TargetApp) -> int:
    return len([e for e in form.of("clicked") if e["name"] == "Save"])


def test_without_the_app_ids_of_a_see_act_in_a_later_command(
    desk: Desk, keeper_form: TargetApp, clicks_allowed: Path
) -> None:
    seen = ui(clicks_allowed, "see", "--title", "Keeper", env=desk.env())
    assert seen.code == 0, seen.err
    assert seen.out.startswith("Snapshot s1 of window") and 'B1 button "Save"' in seen.out
    saved = clicks_allowed / "ui" / "snapshot.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    assert SECRET not in saved.read_text()
    clicked = ui(clicks_allowed, "click", "B1", env=desk.env())
    assert (clicked.code, clicked.out, clicked.err) == (0, PRESSED_SAVE, "")
    deadline = time.monotonic() + 10
    while saves(keeper_form) != 1:
        assert time.monotonic() < deadline, "the form never reported the click"
        time.sleep(0.02)
    again = ui(clicks_allowed, "see", "--title", "Keeper", env=desk.env())
    assert again.out.startswith("Snapshot s2 of window")  # numbered after the saved one
    older = ui(clicks_allowed, "click", "B1", "--snapshot", "s1", env=desk.env())
    assert (older.code, older.err) == (0, "")  # both kept, as the app keeps them
    assert audit(clicks_allowed) == [
        ("screen", "see", "allowed", "mode"),
        ("screen", "click", "allowed", "rule"),
        ("screen", "see", "allowed", "mode"),
        ("screen", "click", "allowed", "rule"),
    ]


def test_without_the_app_a_renamed_button_must_be_seen_again(
    desk: Desk, keeper_form: TargetApp, clicks_allowed: Path
) -> None:
    seen = ui(clicks_allowed, "see", "--title", "Keeper", env=desk.env())
    assert 'B1 button "Save"' in seen.out
    keeper_form.send("rename Save Send")
    deadline = time.monotonic() + 10
    while not keeper_form.of("renamed"):
        assert time.monotonic() < deadline, "the form never renamed its button"
        time.sleep(0.02)
    clicked = ui(clicks_allowed, "click", "B1", env=desk.env())
    assert (clicked.code, clicked.out, clicked.err) == (1, "", STALE)
    time.sleep(0.5)  # a click that went through would have been reported by now
    assert not keeper_form.of("clicked")


def test_without_the_app_a_reopened_window_must_be_seen_again(
    desk: Desk, clicks_allowed: Path
) -> None:
    first = keeper(desk)
    try:
        seen = ui(clicks_allowed, "see", "--title", "Keeper", env=desk.env())
        assert 'B1 button "Save"' in seen.out
    finally:
        first.close()
    second = keeper(desk)  # the same form, at the same place, with the same buttons
    try:
        clicked = ui(clicks_allowed, "click", "B1", env=desk.env())
        assert (clicked.code, clicked.out, clicked.err) == (1, "", STALE)
        time.sleep(0.5)
        assert not second.of("clicked")
        seen = ui(clicks_allowed, "see", "--title", "Keeper", env=desk.env())
        assert 'B1 button "Save"' in seen.out
        again = ui(clicks_allowed, "click", "B1", env=desk.env())
        assert (again.code, again.out) == (0, PRESSED_SAVE)
    finally:
        second.close()


def test_without_the_app_a_field_named_by_its_label_is_found_again(
    desk: Desk, tmp_path: Path
) -> None:
    """GTK's entries have no name of their own: the label beside them names them, again."""
    data_dir = tmp_path / "alone"
    data_dir.mkdir()
    settings = {"permissions": {"rules": {"screen.set_value": "allow"}}}
    (data_dir / "settings.json").write_text(json.dumps(settings))
    seen = ui(data_dir, "see", "--title", "Sign in", env=desk.env())
    assert 'T2 text field "Email"' in seen.out, seen.out
    typed = ui(data_dir, "type", "T2", "ada@example.com", env=desk.env())
    assert (typed.code, typed.err) == (0, "")
    assert typed.out == (
        "Set T2 'Email' (text field, zenity) to 'ada@example.com'.\n"
        'Effect:\n~ text "Email": "" → "ada@example.com"\n'
    )
    again = ui(data_dir, "see", "--title", "Sign in", env=desk.env())
    assert 'T2 text field "Email" = "ada@example.com"' in again.out


def unseen_error(command: str) -> str:
    return (
        f"deskhand ui {command}: There is no recent snapshot with that id (snapshots expire "
        "after 10 minutes). Use the see action again, then act on an id it lists.\n"
    )


UNREADABLE = (
    "deskhand ui click: The element ids of the last `deskhand ui see` could not be read back. "
    "See again, then act on an id it lists.\n"
)


def test_without_the_app_a_damaged_or_altered_file_means_see_again(
    desk: Desk, keeper_form: TargetApp, clicks_allowed: Path
) -> None:
    assert ui(clicks_allowed, "see", "--title", "Keeper", env=desk.env()).code == 0
    saved = clicks_allowed / "ui" / "snapshot.json"
    good = json.loads(saved.read_text())
    for damaged in ("garbage{", '{"version": 1, "snapshots": [{"id": "s1"}]}', "\x00" * 10):
        saved.write_text(damaged)
        clicked = ui(clicks_allowed, "click", "B1", env=desk.env())
        assert (clicked.code, clicked.out, clicked.err) == (1, "", UNREADABLE)
    odd_ref = json.loads(json.dumps(good))
    odd_ref["snapshots"][0]["items"][0]["ref"][1] = "/org/a11y/../x y"
    saved.write_text(json.dumps(odd_ref))
    assert ui(clicks_allowed, "click", "B1", env=desk.env()).err == UNREADABLE
    renamed = json.loads(json.dumps(good))  # B1 is not what the file says it is
    [item] = [i for i in renamed["snapshots"][0]["items"] if i["id"] == "B1"]
    item["name"] = "Keep"
    saved.write_text(json.dumps(renamed))
    clicked = ui(clicks_allowed, "click", "B1", env=desk.env())
    assert (clicked.code, clicked.err) == (1, STALE)
    expired = json.loads(json.dumps(good))
    expired["snapshots"][0]["taken"] -= 601  # older than a snapshot lives
    saved.write_text(json.dumps(expired))
    clicked = ui(clicks_allowed, "click", "B1", env=desk.env())
    assert (clicked.code, clicked.err) == (1, unseen_error("click"))
    time.sleep(0.5)
    assert not keeper_form.of("clicked")
    saved.write_text(json.dumps(good))  # the file as the see wrote it still works
    assert ui(clicks_allowed, "click", "B1", env=desk.env()).out == PRESSED_SAVE


def test_the_socket_and_its_token_are_the_owners_only(app: App) -> None:
    folder = app.data_dir / "ui"
    info = json.loads((folder / "ui.json").read_text())
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "ui.json").stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(info["socket"]).stat().st_mode) == 0o600
    assert info["pid"] == app.process.pid
    with socket.socket(socket.AF_UNIX) as raw:  # the right user, the wrong token
        raw.settimeout(10)
        raw.connect(info["socket"])
        raw.sendall(
            json.dumps({"token": "0" * 32, "input": {"action": "windows"}}).encode() + b"\n"
        )
        reply = json.loads(raw.makefile().readline())
    assert reply == {
        "result": {
            "ok": False,
            "text": "",
            "images": [],
            "error": "Wrong token.",
            "code": "refused",
        }
    }


def test_windows_and_screens_in_text_and_json(app: App) -> None:
    text = app.ui("windows")
    assert text.code == 0 and text.err == ""
    assert text.out.startswith("Windows, front to back")
    assert '"See target" — see_target.py #0' in text.out and '"Sign in"' in text.out
    assert "display 0: 1600×900 at (0, 0), primary" in app.ui("screens").out
    screens = app.ui("--json", "screens").json
    assert screens["screens"] == [
        {
            "index": 0,
            "name": screens["screens"][0]["name"],
            "global_bounds": {"x": 0, "y": 0, "width": 1600, "height": 900},
            "scale": 1.0,
            "primary": True,
        }
    ]
    windows = app.ui("windows", "--json").json["windows"]
    [form] = [w for w in windows if w["title"] == "See target"]
    x, y, width, height = FORM_RECT
    assert form["global_bounds"] == {"x": x, "y": y, "width": width, "height": height}
    assert form["bounds"] == form["global_bounds"]  # one screen, at the origin
    assert (form["app"], form["index"], form["screen"], form["minimized"]) == (
        "see_target.py",
        0,
        0,
        False,
    )
    assert form["pid"] == app.desk.form.pid
    assert not [w for w in windows if w["pid"] == app.process.pid]  # never Deskhand's own


def test_see_then_click_by_id_round_trips_through_the_app(app: App, desk: Desk) -> None:
    seen = app.ui("see", "--app", "see_target.py")
    assert seen.code == 0, seen.err
    assert 'B1 button "Save"' in seen.out and "T2 password field" in seen.out
    assert SECRET not in seen.out
    clicked = app.ui("--json", "click", "B1").json
    assert clicked["schema"] == "deskhand.ui.click/2"
    assert (clicked["element"]["id"], clicked["element"]["label"]) == ("B1", "Save")
    assert clicked["how"] == "accessibility"  # its own action: the pointer never moved
    bounds = clicked["element"]["global_bounds"]
    middle = {"x": bounds["x"] + bounds["width"] // 2, "y": bounds["y"] + bounds["height"] // 2}
    assert (clicked["screen"], clicked["global"], clicked["local"]) == (0, middle, middle)
    deadline = time.monotonic() + 10
    while not [e for e in desk.form.of("clicked") if e["name"] == "Save"]:
        assert time.monotonic() < deadline, "the form never reported the click"
        time.sleep(0.02)
    typed = app.ui("type", "T1", "Grace")
    assert typed.code == 0 and typed.out == (
        "Set T1 'Name' (text field, see_target.py) to 'Grace'.\n"
        'Effect:\n~ text "Name": "" → "Grace"\n'
    )


def test_refusals_exit_non_zero_with_one_line(app: App, desk: Desk) -> None:
    assert app.ui("see", "--app", "see_target.py").code == 0
    secret = app.ui("type", "T2", "hunter2")
    assert secret.code == 1 and secret.out == ""
    assert secret.err.startswith("deskhand ui type: Refused: that is a password field.")
    assert secret.err.count("\n") == 1
    refused = app.ui("type", "T2", "hunter2", "--json")
    assert refused.code == 1
    assert refused.json["error"]["code"] == "refused"
    assert refused.json["error"]["message"].startswith("Refused: that is a password field.")
    never = app.ui("scroll", "X40")  # Settings → Permissions says Never
    assert never.code == 1
    assert never.err == (
        "deskhand ui scroll: Refused: Settings → Permissions sets “Screen elements: scroll to” "
        "to Never.\n"
    )
    assert app.ui("scroll", "X40", "--json").json["error"]["code"] == "refused"
    nothing = app.ui("see", "--app", "no-such-app")
    assert nothing.code == 1
    assert nothing.err.startswith("deskhand ui see: No open window belongs to an app named")
    assert '"See target"' in nothing.out  # the candidates
    as_json = app.ui("--json", "see", "--app", "no-such-app")
    assert as_json.code == 1
    error = as_json.json["error"]
    assert error["code"] == "app_not_running"
    assert error["message"] == "No open window belongs to an app named 'no-such-app'."
    titles = {c["title"] for c in error["candidates"] if c["type"] == "window"}
    assert titles == {"See target", "Sign in"}
    several = app.ui("see", "--title", "s", "--json")  # "See target" and "Sign in"
    assert several.json["error"]["code"] == "ambiguous"
    assert {c["title"] for c in several.json["error"]["candidates"]} == titles
    assert app.ui("click", "B999", "--json").json["error"]["code"] == "not_found"
    assert app.ui("see", "--display", "7", "--json").json["error"]["candidates"] == [
        {**screen, "type": "screen"} for screen in app.ui("screens", "--json").json["screens"]
    ]
    bad = app.ui("see", "--window-index", "1", "--json")  # an index needs its app
    assert (bad.code, bad.json["error"]["code"]) == (2, "bad_input")
    assert not [e for e in desk.form.of("text") if e["name"] == "Password"]


def test_screenshot_writes_a_png_and_prints_its_path(app: App, tmp_path: Path) -> None:
    out = tmp_path / "form.png"
    shot = app.ui("screenshot", "--app", "see_target.py", "--out", str(out))
    assert shot.code == 0 and shot.out == f"{out}\n"
    assert Image.open(out).size == (620, 440)
    as_json = app.ui("--json", "screenshot", "--title", "Sign in", "--out", str(out)).json
    assert as_json["path"] == str(out)
    assert (as_json["width"], as_json["height"]) == Image.open(out).size
    assert as_json["screen"] == 0 and as_json["scale"] == 1.0
    dialog = desk_window(app, "Sign in")
    assert as_json["window"] == dialog["id"]
    assert as_json["global_bounds"] == dialog["global_bounds"]


def test_wait_fails_at_its_own_timeout(app: App) -> None:
    started = time.monotonic()
    waited = app.ui("wait", "--app", "see_target.py", "--label", "Never there", "--for", "1")
    assert waited.code == 4 and "did not appear" in waited.err  # 4: timed out
    assert time.monotonic() - started < 8
    gone = app.ui("wait", "--app", "see_target.py", "--label", "Never there", "--gone", "--json")
    assert (gone.json["state"], gone.json["element"]) == ("gone", None)
    assert 0 <= gone.json["elapsed_ms"] < 5000
    as_json = app.ui("wait", "--json", "--app", "see_target.py", "--label", "Never", "--for", "1")
    assert (as_json.code, as_json.json["error"]["code"]) == (4, "timeout")
    assert as_json.json["error"]["message"] == (
        "Timed out: an element 'Never' did not appear in window "
        f'{desk_window(app, "See target")["id"]} "See target" (see_target.py) within 1 s.'
    )


def desk_window(app: App, title: str) -> dict[str, Any]:
    [found] = [w for w in app.ui("windows", "--json").json["windows"] if w["title"] == title]
    return found


# --- every command, in text and in JSON, with the app and without it ---------------------------

# (the command's words, what its text says, its JSON schema), in an order that makes sense on
# the desk: see makes the ids that click, type and scroll use.
EVERY = [
    (["screens"], "display 0: 1600×900 at (0, 0), primary", "deskhand.ui.screens/1"),
    (["windows"], '"See target" — see_target.py #0', "deskhand.ui.windows/1"),
    (["see", "--app", "see_target.py"], 'B1 button "Save"', "deskhand.ui.see/1"),
    (["wait", "--app", "see_target.py", "--label", "Save"], "appeared after", "deskhand.ui.wait/1"),
    (["screenshot", "--app", "see_target.py"], ".png", "deskhand.ui.screenshot/1"),
    (["see", "--app", "see_target.py", "--annotate"], ".png", "deskhand.ui.see/1"),
    (["click", "B1"], "Pressed B1 'Save' (button, see_target.py).", "deskhand.ui.click/2"),
    (["type", "T1", "Grace"], "Set T1 'Name'", "deskhand.ui.type/2"),
    (["scroll", "X40"], "Scrolled X40 'Row 40'", "deskhand.ui.scroll/2"),
]


def json_at(words: list[str], position: int) -> list[str]:
    """`--json` before `ui` (0), between `ui` and the command (1), or after the command (2)."""
    if position == 0:
        return ["--json", "ui", *words]
    if position == 1:
        return ["ui", "--json", *words]
    return ["ui", *words, "--json"]


def every_command(run: Any, never: frozenset[str] = frozenset()) -> None:
    """Each command in text, then in JSON (`--json` in turn at each place), its answer checked
    against its schema and its numbers against the desk. A command in `never` is set to Never
    in Settings: it is refused, in words and as the error `refused`."""
    x, y, width, height = FORM_RECT
    for turn, (words, said, schema) in enumerate(EVERY):
        text = run(["ui", *words])
        answer = run(json_at(words, turn % 3))
        if words[0] in never:
            assert (text.code, answer.code) == (1, 1)
            assert "to Never" in text.err
            assert checked(answer.out, "deskhand.error/1")["error"]["code"] == "refused"
            continue
        assert (text.code, text.err) == (0, ""), (words, text.err)
        assert said in text.out, (words, text.out)
        assert answer.code == 0, (words, answer.err)
        value = checked(answer.out, schema)
        if words[0] == "see":
            [form] = [e for e in value["elements"] if e["label"] == "Save"]
            assert value["window"]["title"] == "See target"
            assert form["bounds"] == form["global_bounds"]  # one screen at the origin
            assert x <= form["bounds"]["x"] < x + width and y <= form["bounds"]["y"] < y + height
            assert not [e for e in value["elements"] if e["secure"] and e["value"] is not None]
            image = value["image"]
            if "--annotate" not in words:
                assert image is None
            else:  # the whole screen, shrunk to the model's image limits
                assert Image.open(image["path"]).size == (image["width"], image["height"])
                assert image["scale"] == image["width"] / 1600 < 1
        if words[0] in ("click", "type", "scroll"):
            assert value["element"]["id"] == words[1] and value["screen"] == 0
        if words[0] in ("click", "type"):  # it acted: it says what it did, or why it cannot
            assert value["outcome"] in ("done", "no_effect", "unconfirmed"), value
            assert value["changes"] or value["outcome"] != "done"
            assert value["note"] or value["outcome"] != "unconfirmed"
        if words[0] == "click":
            assert value["how"] == "accessibility"
        if words[0] == "scroll":
            assert value["how"] == "none"  # the text run scrolled it into view already
            assert value["element"]["showing"] is True
        if words[0] == "wait":
            assert value["state"] == "found" and value["element"]["label"] == "Save"


def test_every_command_in_text_and_json_without_the_app(desk: Desk, tmp_path: Path) -> None:
    data_dir = tmp_path / "alone"
    data_dir.mkdir()
    allowed = {"screen.click": "allow", "screen.set_value": "allow", "screen.scroll_to": "allow"}
    (data_dir / "settings.json").write_text(json.dumps({"permissions": {"rules": allowed}}))

    def run(words: list[str]) -> Ran:
        return deskhand(*words, "--data-dir", str(data_dir), env=desk.env())

    every_command(run)
    assert not (data_dir / "ui" / "ui.json").exists()  # no app served these


def test_every_command_in_text_and_json_with_the_app(app: App) -> None:
    def run(words: list[str]) -> Ran:
        return deskhand(*words, "--data-dir", str(app.data_dir), env=app.desk.env())

    every_command(run, never=frozenset({"scroll"}))  # the app's settings: scroll to is Never
    assert ("screen", "click", "allowed", "mode") in audit(app.data_dir)  # its gate decided


@pytest.mark.parametrize("position", [0, 1, 2])
def test_json_goes_anywhere_on_the_line(desk: Desk, tmp_path: Path, position: int) -> None:
    words = json_at(["windows"], position)
    ran = deskhand(*words, "--data-dir", str(tmp_path / "data"), env=desk.env())
    assert ran.code == 0, ran.err
    assert checked(ran.out, "deskhand.ui.windows/1")["windows"]
    at_the_end = deskhand(
        "ui", "windows", "--data-dir", str(tmp_path / "data"), "--timeout", "5", env=desk.env()
    )
    assert at_the_end.code == 0, at_the_end.err  # --data-dir and --timeout after it, too


def test_without_a_display_or_with_the_screen_off_it_says_why(desk: Desk, tmp_path: Path) -> None:
    nowhere = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    no_display = ui(tmp_path / "a", "windows", "--json", env=nowhere)
    assert no_display.code == 5
    error = no_display.json["error"]
    assert (error["code"], error["message"]) == (
        "no_display",
        "No graphical display was found (DISPLAY is not set). Start Deskhand from a desktop "
        "session.",
    )
    off = tmp_path / "off"
    off.mkdir()
    (off / "settings.json").write_text(json.dumps({"screen": {"enabled": False}}))
    refused = ui(off, "see", "--app", "see_target.py", env=desk.env())
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == (
        "deskhand ui see: Refused: Screen control is off in Deskhand → Settings → Screen, so "
        "nothing on the screen is read or used. Turn it on there to use `deskhand ui`.\n"
    )


# Run a command in a fresh interpreter, then list what it loaded (on stderr's last line).
LOADED_BY = """
import json, sys
from desktop.__main__ import main
code = main(sys.argv[1:])
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""


def test_asking_the_running_app_loads_only_the_client(app: App) -> None:
    """`deskhand ui windows` answers fast because it loads no pydantic, asyncio or screen code:
    the app does the work."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            LOADED_BY,
            "ui",
            "windows",
            "--json",
            "--data-dir",
            str(app.data_dir),
        ],
        cwd=ROOT,
        env={**app.desk.env(), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    checked(done.stdout, "deskhand.ui.windows/1")
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    heavy = ("pydantic", "asyncio", "tools", "desktop.calls", "desktop.system", "PySide6")
    assert [name for name in loaded if name.startswith(heavy)] == []
