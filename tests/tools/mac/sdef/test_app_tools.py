"""The three app tools end to end, with call.js in the Node JXA stand-in (a simulation).

Each test scripts Finder's or Mail's object model as a world, calls the tools as the model
would, and checks what call.js did to the world: the object specifier it built from the
reference steps, the parameters it passed, the errors it reported by number.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from datetime import datetime
from typing import Any, TypeVar

import pytest

from tests.support.jxa.finder_world import DESKTOP_REPORT, MODIFIED, finder_world
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tests.support.sdef.bundles import FIXTURES, INCLUDES, make_bundle
from tests.support.sdef.standin import StandIn
from tools.base import Risk, ToolResult
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine
from tools.mac.osa.errors import MODEL_PHRASES, OsaProblem, ProblemKind
from tools.mac.sdef.app_tools import (
    NO_OBJECT_PHRASE,
    PARAMETER_PHRASE,
    AppCommandInput,
    AppCommandTool,
    AppDictionaryTool,
    AppsListTool,
)
from tools.mac.sdef.catalog import AppCatalog
from tools.mac.sdef.errors import NO_SUCH_APP

T = TypeVar("T")


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandIn]:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    base = tmp_path_factory.mktemp("sdef")
    apps = base / "Applications"
    make_bundle(
        apps, "Finder", bundle_id="com.apple.finder", sdef=(FIXTURES / "Finder.sdef").read_text()
    )
    make_bundle(apps, "Mail", bundle_id="com.apple.mail", sdef=(FIXTURES / "Mail.sdef").read_text())
    world = World(base / "world.json")
    world.write({})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(WORLD_ENV, str(world.path))
        patch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
        loop = asyncio.new_event_loop()
        engine = OsaEngine(workers=1)
        catalog = AppCatalog(base / "cache", roots=[str(apps)], include_root=INCLUDES)
        problems: list[OsaProblem] = []
        yield StandIn(
            loop,
            world,
            AppsListTool(catalog),
            AppDictionaryTool(catalog),
            AppCommandTool(catalog, engine, on_problem=problems.append),
            problems,
        )
        loop.run_until_complete(engine.aclose())
        loop.close()


@pytest.fixture
def mac(standin: StandIn) -> StandIn:
    standin.world.write(finder_world())
    standin.problems.clear()
    return standin


def finder_app(mac: StandIn) -> dict[str, Any]:
    return mac.world.app("Finder")


# --- apps_list -> app_dictionary -> app_command ---------------------------------------------


def test_list_then_dictionary_then_command(mac: StandIn) -> None:
    listed = mac.call(mac.apps_list, {})
    assert not listed.is_error
    assert (
        "- Finder [com.apple.finder]: Commonly-used Finder commands and object classes"
        in listed.text
    )
    assert "- Mail [com.apple.mail]: Classes and commands for the Mail application" in listed.text

    shown = mac.call(mac.dictionary, {"app": "Finder", "name": "reveal"})
    view = json.loads(shown.text.split("\n")[-1])
    (suite,) = view["suites"]
    (reveal,) = suite["commands"]
    assert reveal["name"] == "reveal" and reveal["risk"] == "consequential"
    assert reveal["input_schema"]["properties"]["direct_parameter"]["$ref"] == "#/$defs/reference"

    assert (
        mac.answer(app="Finder", command="get", reference=[*DESKTOP_REPORT, {"property": "name"}])
        == "report.pdf"
    )


def test_the_dictionary_view_is_bounded_and_says_how_to_filter(mac: StandIn) -> None:
    from tools.mac.sdef import view

    catalog = mac.dictionary.catalog
    app = mac.run(catalog.find("Finder"))
    assert app is not None
    d = mac.run(catalog.dictionary(app))
    assert d is not None
    text = view.dictionary_view("Finder", d, limit=2_000)
    assert (
        "[Cut:" in text and "Filter by suite (Standard Suite, Finder Basics, Finder items)" in text
    )
    assert len(text) < 3_000
    unknown = mac.call(mac.dictionary, {"app": "Finder", "suite": "Nope"})
    assert "Its suites: Standard Suite, Finder Basics, Finder items." in unknown.text


def test_an_unknown_app_is_refused(mac: StandIn) -> None:
    result = mac.app_command(app="Frobnicator", command="get", reference=[{"property": "name"}])
    assert result.is_error and result.text == NO_SUCH_APP


# --- call.js: the reference walk, parameters, values --------------------------------------


def test_get_walks_the_reference_and_renders_objects_as_readable_paths(mac: StandIn) -> None:
    files = mac.answer(
        app="Finder",
        command="get",
        reference=[{"elements": "folders", "name": "Desktop"}, {"property": "files"}],
    )
    assert files == [
        {"reference": 'Application("Finder").folders.byName("Desktop").files.byId("file-1")'},
        {"reference": 'Application("Finder").folders.byName("Desktop").files.byId("file-2")'},
    ]
    by_index = mac.answer(
        app="Finder",
        command="get",
        reference=[{"elements": "folders", "index": 2}, {"property": "name"}],
    )
    assert by_index == "Archive"
    by_id = mac.answer(
        app="Finder",
        command="get",
        reference=[{"elements": "windows", "id": 8}, {"property": "name"}],
    )
    assert by_id == "Downloads"


def test_dates_come_back_as_iso_text(mac: StandIn) -> None:
    answer = mac.answer(
        app="Finder", command="get", reference=[*DESKTOP_REPORT, {"property": "modification date"}]
    )
    assert datetime.fromisoformat(answer["date"].replace("Z", "+00:00")) == MODIFIED


def test_count_and_exists(mac: StandIn) -> None:
    desktop = [{"elements": "folders", "name": "Desktop"}]
    assert (
        mac.answer(app="Finder", command="count", reference=[*desktop, {"elements": "files"}]) == 2
    )
    assert mac.answer(app="Finder", command="exists", reference=DESKTOP_REPORT) is True
    missing = [*desktop, {"elements": "files", "name": "gone.pdf"}]
    assert mac.answer(app="Finder", command="exists", reference=missing) is False


def test_delete_acts_on_the_object_the_reference_names(mac: StandIn) -> None:
    result = mac.app_command(app="Finder", command="delete", reference=DESKTOP_REPORT)
    assert not result.is_error
    assert result.text == (
        "Finder: delete file 'report.pdf' in folder 'Desktop': done.\n"
        "Effect:\n- file 'report.pdf' in folder 'Desktop': deleted"
    )
    names = [f["name"] for f in finder_app(mac)["folders"][0]["files"]]
    assert names == ["notes.txt"]
    (entry,) = mac.log()
    assert (entry["command"], entry["target"]) == ("delete", "file-1")


def test_named_parameters_reach_the_command_with_object_references(mac: StandIn) -> None:
    mac.app_command(
        app="Finder",
        command="move",
        reference=DESKTOP_REPORT,
        parameters={"to": [{"elements": "folders", "name": "Archive"}]},
    )
    (entry,) = mac.log()
    assert entry["command"] == "move"
    assert entry["steps"] == [
        ["prop", "folders"],
        ["name", "Desktop"],
        ["prop", "files"],
        ["name", "report.pdf"],
    ]
    assert entry["args"] == [{"to": {"$specifier": [["prop", "folders"], ["name", "Archive"]]}}]


def test_make_with_a_class_and_properties(mac: StandIn) -> None:
    mac.app_command(
        app="Finder",
        command="make",
        parameters={
            "new": "folder",
            "at": [{"property": "desktop"}],
            "with properties": {"name": "Reports", "comment": "Q2"},
        },
    )
    (entry,) = mac.log()
    assert entry["steps"] == []
    assert entry["args"] == [
        {
            "new": "folder",
            "at": {"$specifier": [["prop", "desktop"]]},
            "withProperties": {"name": "Reports", "comment": "Q2"},
        }
    ]


def test_a_file_parameter_is_a_path(mac: StandIn) -> None:
    mac.app_command(app="Finder", command="open", direct_parameter="/Users/ana/report.pdf")
    (entry,) = mac.log()
    assert entry["args"] == [{"$path": "/Users/ana/report.pdf"}]


def test_an_enumeration_goes_by_name(mac: StandIn) -> None:
    result = mac.app_command(
        app="Finder",
        command="close",
        reference=[{"elements": "windows", "index": 1}],
        parameters={"saving": "no"},
    )
    assert not result.is_error, result.text
    (entry,) = mac.log()
    assert entry["args"] == [{"saving": "no"}]
    assert [w["name"] for w in finder_app(mac)["windows"]] == ["Downloads"]


TRICKY = [
    "She said \"hi\" and 'bye'",
    "'); Application('Finder').delete(Path('/')); ('",
    "${process.exit(1)} `backtick` </x> \\u0000 \u2028 😀",
]


@pytest.mark.parametrize("text", TRICKY)
def test_set_stores_any_text_as_data(mac: StandIn, text: str) -> None:
    result = mac.app_command(
        app="Finder",
        command="set",
        reference=[*DESKTOP_REPORT, {"property": "comment"}],
        parameters={"to": text},
    )
    assert not result.is_error, result.text
    assert finder_app(mac)["folders"][0]["files"][0]["comment"] == text
    assert [e["command"] for e in mac.log()] == ["set"]


def test_setting_a_read_only_property_never_reaches_the_app(mac: StandIn) -> None:
    result = mac.app_command(
        app="Finder",
        command="set",
        reference=[{"property": "startup disk"}],
        parameters={"to": "x"},
    )
    assert result.is_error and "read-only" in result.text
    assert mac.log() == []


def test_unknown_names_never_reach_the_app(mac: StandIn) -> None:
    result = mac.app_command(
        app="Finder",
        command="get",
        reference=[{"elements": "folders", "name": "Desktop"}, {"property": "constructor"}],
    )
    assert result.is_error and "no property or elements called 'constructor'" in result.text
    assert mac.log() == []


def test_dry_run_shows_what_would_be_sent_and_runs_nothing(mac: StandIn) -> None:
    call = AppCommandInput(app="Finder", command="delete", reference=DESKTOP_REPORT, dry_run=True)
    assert mac.command.risk(call) == (Risk.READ, "Dry run: nothing is sent to the app")
    result = mac.run(mac.command.run(call, mac.ctx()))
    assert not result.is_error
    shown = json.loads(result.text.split("\n", 1)[1])
    assert shown["would_run"] == "Finder: delete file 'report.pdf' in folder 'Desktop'"
    assert shown["risk"] == "consequential"
    assert shown["script_input"]["target"][1] == {
        "elements": "files",
        "by": "name",
        "value": "report.pdf",
    }
    assert mac.log() == [] and len(finder_app(mac)["folders"][0]["files"]) == 2


# --- errors by Apple Event number -----------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "phrase", "kind"),
    [
        (-1728, NO_OBJECT_PHRASE, ProblemKind.NO_SUCH_OBJECT),
        (-1743, MODEL_PHRASES[ProblemKind.NOT_ALLOWED], ProblemKind.NOT_ALLOWED),
        (-1712, MODEL_PHRASES[ProblemKind.NO_ANSWER], ProblemKind.NO_ANSWER),
        (-1708, PARAMETER_PHRASE, ProblemKind.GENERIC),
        (-1700, PARAMETER_PHRASE, ProblemKind.GENERIC),
    ],
)
def test_errors_by_number_reach_the_model_as_fixed_phrases(
    mac: StandIn, number: int, phrase: str, kind: ProblemKind
) -> None:
    world = finder_world()
    world["errors"] = [{"app": "Finder", "number": number, "command": "get"}]
    mac.world.write(world)
    progress: list[str] = []
    result = mac.call(
        mac.command,
        {"app": "Finder", "command": "get", "reference": [*DESKTOP_REPORT, {"property": "name"}]},
        progress,
    )
    assert result.is_error and result.text == phrase
    (found,) = mac.problems
    assert (found.kind, found.number) == (kind, number)
    assert progress == [found.for_person]
    if number == -1743:
        assert "Automation" in found.suggestion


# --- what the gate and the approver see -----------------------------------------------------


def test_risk_action_target_and_summary(mac: StandIn) -> None:
    mac.run(mac.command.catalog.apps())
    delete = AppCommandInput(app="Finder", command="delete", reference=DESKTOP_REPORT)
    assert mac.command.risk(delete)[0] is Risk.CONSEQUENTIAL
    assert mac.command.action(delete) == "com.apple.finder/delete"
    assert mac.command.target(delete) == "Finder"
    assert mac.command.summary(delete) == "Finder: delete file 'report.pdf' in folder 'Desktop'"
    get = AppCommandInput(app="Finder", command="get", reference=DESKTOP_REPORT)
    assert mac.command.risk(get)[0] is Risk.READ
    send = AppCommandInput(
        app="Mail", command="send", reference=[{"elements": "outgoing messages", "index": 1}]
    )
    assert mac.command.risk(send) == (Risk.CONSEQUENTIAL, "Sends email from the person's account")
    unknown = AppCommandInput(app="Nowhere", command="get", reference=[{"property": "name"}])
    assert mac.command.risk(unknown)[0] is Risk.CONSEQUENTIAL


def test_prepare_refuses_before_anyone_is_asked(mac: StandIn) -> None:
    bad = AppCommandInput(app="Finder", command="frobnicate")
    refusal = mac.run(mac.command.prepare(bad))
    assert isinstance(refusal, ToolResult) and refusal.is_error and "reveal" in refusal.text
    good = AppCommandInput(
        app="Mail", command="send", reference=[{"elements": "outgoing messages", "index": 1}]
    )
    assert mac.run(mac.command.prepare(good)) == good
    assert mac.command.summary(good) == "Mail: send outgoing message 1"


def test_mail_send_goes_to_the_outgoing_message(mac: StandIn) -> None:
    result = mac.app_command(
        app="Mail", command="send", reference=[{"elements": "outgoing messages", "index": 1}]
    )
    assert not result.is_error, result.text
    assert mac.world.app("Mail")["sent"][0]["subject"] == "Hello"


def test_schemas_of_the_three_tools(mac: StandIn) -> None:
    for tool in (mac.apps_list, mac.dictionary, mac.command):
        schema = tool.api_schema()
        assert schema["input_schema"]["type"] == "object"
    props = mac.command.api_schema()["input_schema"]["properties"]
    assert set(props) == {
        "app",
        "command",
        "reference",
        "direct_parameter",
        "parameters",
        "dry_run",
    }


def test_long_answers_are_cut_and_say_so(mac: StandIn) -> None:
    world = finder_world()
    world["apps"]["Finder"]["folders"][0]["files"][0]["comment"] = "x" * 10_000
    mac.world.write(world)
    result = mac.app_command(
        app="Finder", command="get", reference=[*DESKTOP_REPORT, {"property": "comment"}]
    )
    assert not result.is_error
    _header, body, note = result.text.split("\n")
    assert json.loads(body) == "x" * 4_000
    assert note.startswith("[Cut:")
