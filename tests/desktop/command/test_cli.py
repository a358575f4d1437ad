"""`deskhand ui` against the real running app: one action per command over the app's local socket,
through its gate, on a desk with a Qt form and a GTK dialog (tests/support/desk.py).

The app runs as `python -m desktop` (window offscreen, screen on the desk's X server, AT-SPI on
the desk's session bus) in Autonomous mode, so changes run and only consequential actions ask.
Each command is a process of its own, as a person's terminal would start it.
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

import pytest
from PIL import Image

from tests.support.desk import Desk, running_desk, wait_accessible
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
    def json(self) -> dict[str, object]:
        return json.loads(self.out)


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
    assert seen.json["ok"] is True
    assert 'B1 button "Save"' in str(seen.json["text"]) and SECRET not in seen.out
    assert audit(alone) == [
        ("screen", "windows", "allowed", "mode"),
        ("screen", "see", "allowed", "mode"),
    ]
    assert not (alone / "ui" / "ui.json").exists()  # it served nothing


def test_without_the_app_an_action_that_would_ask_is_refused(desk: Desk, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    unseen = ui(alone, "click", "B1", env=desk.env())
    assert (unseen.code, unseen.out) == (1, "")
    assert unseen.err == unseen_error("click")
    assert ui(alone, "see", "--app", "see_target.py", env=desk.env()).code == 0
    saves = len([e for e in desk.form.of("clicked") if e["name"] == "Save"])
    clicked = ui(alone, "click", "B1", env=desk.env())
    assert clicked.code == 1 and clicked.out == ""
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
PRESSED_SAVE = "Pressed B1 'Save' (button, see_target.py).\n"
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
    assert typed.out == "Set T2 'Email' (text field, zenity) to 'ada@example.com'.\n"
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
    assert reply == {"result": {"ok": False, "text": "", "images": [], "error": "Wrong token."}}


def test_windows_and_screens_in_text_and_json(app: App) -> None:
    text = app.ui("windows")
    assert text.code == 0 and text.err == ""
    assert text.out.startswith("Windows, front to back")
    assert '"See target" — see_target.py #0' in text.out and '"Sign in"' in text.out
    as_json = app.ui("--json", "screens")
    assert as_json.json == {
        "ok": True,
        "command": "screens",
        "text": as_json.json["text"],
        "images": [],
    }
    assert "display 0: 1600×900 at (0, 0), primary" in str(as_json.json["text"])


def test_see_then_click_by_id_round_trips_through_the_app(app: App, desk: Desk) -> None:
    seen = app.ui("see", "--app", "see_target.py")
    assert seen.code == 0, seen.err
    assert 'B1 button "Save"' in seen.out and "T2 password field" in seen.out
    assert SECRET not in seen.out
    clicked = app.ui("--json", "click", "B1")
    assert clicked.json["ok"] is True
    assert clicked.json["text"] == "Pressed B1 'Save' (button, see_target.py)."
    deadline = time.monotonic() + 10
    while not [e for e in desk.form.of("clicked") if e["name"] == "Save"]:
        assert time.monotonic() < deadline, "the form never reported the click"
        time.sleep(0.02)
    typed = app.ui("type", "T1", "Grace")
    assert (
        typed.code == 0 and typed.out == "Set T1 'Name' (text field, see_target.py) to 'Grace'.\n"
    )


def test_refusals_exit_non_zero_with_one_line(app: App, desk: Desk) -> None:
    assert app.ui("see", "--app", "see_target.py").code == 0
    secret = app.ui("type", "T2", "hunter2")
    assert secret.code == 1 and secret.out == ""
    assert secret.err.startswith("deskhand ui type: Refused: that is a password field.")
    assert secret.err.count("\n") == 1
    never = app.ui("scroll", "X40")  # Settings → Permissions says Never
    assert never.code == 1
    assert never.err == (
        "deskhand ui scroll: Refused: Settings → Permissions sets “Screen elements: scroll to” "
        "to Never.\n"
    )
    nothing = app.ui("see", "--app", "no-such-app")
    assert nothing.code == 1
    assert nothing.err.startswith("deskhand ui see: No open window belongs to an app named")
    assert '"See target"' in nothing.out  # the candidates
    assert not [e for e in desk.form.of("text") if e["name"] == "Password"]


def test_screenshot_writes_a_png_and_prints_its_path(app: App, tmp_path: Path) -> None:
    out = tmp_path / "form.png"
    shot = app.ui("screenshot", "--app", "see_target.py", "--out", str(out))
    assert shot.code == 0 and shot.out == f"{out}\n"
    assert Image.open(out).size == (620, 440)
    as_json = app.ui("--json", "screenshot", "--title", "Sign in", "--out", str(out))
    [image] = as_json.json["images"]  # type: ignore[misc]
    assert image["path"] == str(out) and image["media_type"] == "image/png"
    assert (image["width"], image["height"]) == Image.open(out).size


def test_wait_fails_at_its_own_timeout(app: App) -> None:
    started = time.monotonic()
    waited = app.ui("wait", "--app", "see_target.py", "--label", "Never there", "--for", "1")
    assert waited.code == 1 and "did not appear" in waited.err
    assert time.monotonic() - started < 8
