"""`app_command` reads back what a changing call left behind, in the Node JXA stand-in (a
simulation): an event made in a calendar, a folder made, a property set, an object deleted,
and fakes that drop a property (differs, named) or accept `make` and keep nothing (not
confirmed). Each test asserts the exact `Effect:` lines the model reads."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from tests.support.jxa.finder_world import DESKTOP_REPORT, finder_world
from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tests.support.sdef.bundles import FIXTURES, INCLUDES, make_bundle
from tests.support.sdef.standin import StandIn
from tools.base import ToolResult
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine
from tools.mac.sdef.app_tools import AppCommandTool, AppDictionaryTool, AppsListTool
from tools.mac.sdef.catalog import AppCatalog

DENTIST = {
    "summary": "Dentist",
    "start date": "2026-12-03T09:00",
    "end date": "2026-12-03T10:00",
}


def mac_world(**fakes: Any) -> dict[str, Any]:
    """Finder (make is native here, not scripted), Mail, and Calendar with two calendars."""
    world = finder_world()
    world["commands"]["Finder"].pop("make")
    world["bundles"]["com.apple.iCal"] = "Calendar"
    world["apps"]["Calendar"] = {
        "running": True,
        "calendars": [
            {"name": "Work", "id": "cal-work", "events": []},
            {"name": "Home", "id": "cal-home", "events": []},
        ],
    }
    world.update(fakes)
    return world


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandIn]:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    base = tmp_path_factory.mktemp("sdef-readback")
    apps = base / "Applications"
    for name, bundle_id in [("Finder", "com.apple.finder"), ("Calendar", "com.apple.iCal")]:
        make_bundle(apps, name, bundle_id=bundle_id, sdef=(FIXTURES / f"{name}.sdef").read_text())
    world = World(base / "world.json")
    world.write({})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(WORLD_ENV, str(world.path))
        patch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
        loop = asyncio.new_event_loop()
        engine = OsaEngine(workers=1)
        catalog = AppCatalog(base / "cache", roots=[str(apps)], include_root=INCLUDES)
        yield StandIn(
            loop,
            world,
            AppsListTool(catalog),
            AppDictionaryTool(catalog),
            AppCommandTool(catalog, engine),
        )
        loop.run_until_complete(engine.aclose())
        loop.close()


def effect(result: ToolResult) -> str:
    assert not result.is_error, result.text
    assert result.outcome is not None, result.text
    section = result.text[result.text.index("\nEffect:") + 1 :]
    assert section == result.outcome.effect_text()
    return section


def make_event(mac: StandIn, **fakes: Any) -> ToolResult:
    mac.world.write(mac_world(**fakes))
    return mac.app_command(
        app="Calendar",
        command="make",
        parameters={
            "new": "event",
            "at": [{"elements": "calendars", "name": "Home"}],
            "with properties": DENTIST,
        },
    )


def test_an_event_is_read_back_by_its_id(standin: StandIn) -> None:
    result = make_event(standin)
    assert effect(result) == (
        "Effect:\n+ event \"Dentist\": made in calendar 'Home', 2026-12-03 09:00–10:00"
    )
    assert result.outcome is not None and result.outcome.kind == "done"
    [event] = standin.world.app("Calendar")["calendars"][1]["events"]
    assert event["startDate"] == datetime(2026, 12, 3, 9).astimezone()


def test_a_calendar_that_drops_the_end_date_differs(standin: StandIn) -> None:
    result = make_event(standin, drops={"Calendar": ["endDate"]})
    assert effect(result) == (
        "Effect:\n+ event \"Dentist\": made in calendar 'Home', startDate 2026-12-03 09:00, "
        "endDate none\nDiffers from what was asked: endDate is none, not 2026-12-03 10:00."
    )
    assert result.outcome is not None and result.outcome.kind == "differs"


def test_a_calendar_that_ignores_make_is_not_confirmed(standin: StandIn) -> None:
    result = make_event(standin, ignore=[{"app": "Calendar", "command": "make"}])
    assert effect(result) == (
        "Effect: unknown: nothing could be read back from Calendar.\n"
        "Not confirmed: Calendar did not let its answer be read back; the change may not have "
        "been made."
    )
    assert all(not calendar["events"] for calendar in standin.world.app("Calendar")["calendars"])


def test_a_folder_made_in_finder(standin: StandIn) -> None:
    standin.world.write(mac_world())
    result = standin.app_command(
        app="Finder",
        command="make",
        parameters={
            "new": "folder",
            "at": [{"property": "desktop"}],
            "with properties": {"name": "Reports", "comment": "Q2"},
        },
    )
    assert effect(result) == ('Effect:\n+ folder "Reports": made in desktop, comment "Q2"')


def test_set_reads_the_property_back(standin: StandIn) -> None:
    standin.world.write(mac_world())
    result = standin.app_command(
        app="Finder",
        command="set",
        reference=[*DESKTOP_REPORT, {"property": "comment"}],
        parameters={"to": "Signed"},
    )
    assert effect(result) == (
        "Effect:\n~ comment of file 'report.pdf' in folder 'Desktop': \"Signed\""
    )


def test_a_set_the_app_drops_differs(standin: StandIn) -> None:
    standin.world.write(mac_world(drops={"Finder": ["comment"]}))
    result = standin.app_command(
        app="Finder",
        command="set",
        reference=[*DESKTOP_REPORT, {"property": "comment"}],
        parameters={"to": "Signed"},
    )
    assert effect(result) == (
        "Effect:\n~ comment of file 'report.pdf' in folder 'Desktop': \"\"\n"
        'Differs from what was asked: it is "", not "Signed".'
    )


def test_a_delete_the_app_ignores_differs(standin: StandIn) -> None:
    standin.world.write(mac_world(ignore=[{"app": "Finder", "command": "delete"}]))
    result = standin.app_command(app="Finder", command="delete", reference=DESKTOP_REPORT)
    assert effect(result) == (
        "Effect:\n~ file 'report.pdf' in folder 'Desktop': still there\n"
        "Differs from what was asked: it still exists."
    )


def test_a_command_with_nothing_to_read_back_is_not_confirmed(standin: StandIn) -> None:
    standin.world.write(mac_world())
    result = standin.app_command(app="Finder", command="open", direct_parameter="/tmp/a.txt")
    assert effect(result) == (
        "Effect: unknown: nothing could be read back from Finder.\n"
        "Not confirmed: Finder gave nothing back to read, so what open did rests on its own word."
    )


def test_reads_carry_no_outcome(standin: StandIn) -> None:
    standin.world.write(mac_world())
    result = standin.app_command(app="Finder", command="get", reference=DESKTOP_REPORT)
    assert not result.is_error and result.outcome is None and "Effect:" not in result.text
