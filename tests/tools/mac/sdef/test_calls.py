"""Calls checked against a dictionary: names, values, risk, the approver's sentence, and the
JSON Schema each dictionary type maps to."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.sdef.dictionaries import finder, mail
from tools.base import Risk
from tools.mac.sdef.cache import dictionary_adapter
from tools.mac.sdef.calls import CallParts, CallTarget, PreparedCall, prepare
from tools.mac.sdef.errors import Refused
from tools.mac.sdef.model import Dictionary, TypeRef
from tools.mac.sdef.risk import command_risk
from tools.mac.sdef.values import reference_defs, type_schema

FINDER = CallTarget(name="Finder", bundle_id="com.apple.finder", path="/System/Finder.app")
MAIL = CallTarget(name="Mail", bundle_id="com.apple.mail", path="/System/Applications/Mail.app")
DESKTOP_REPORT = [
    {"elements": "folders", "name": "Desktop"},
    {"elements": "files", "name": "report.pdf"},
]


def call(d: Dictionary, target: CallTarget = FINDER, **parts: Any) -> PreparedCall:
    return prepare(CallParts.model_validate(parts), target, d)


def refusal(d: Dictionary, target: CallTarget = FINDER, **parts: Any) -> str:
    with pytest.raises(Refused) as caught:
        call(d, target, **parts)
    return caught.value.phrase


# --- risk ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "level"),
    [
        ("get", Risk.READ),
        ("list", Risk.READ),
        ("count", Risk.READ),
        ("exists", Risk.READ),
        ("make", Risk.CHANGE),
        ("set", Risk.CHANGE),
        ("move", Risk.CHANGE),
        ("duplicate", Risk.CHANGE),
        ("save", Risk.CHANGE),
        ("select", Risk.CHANGE),
        ("delete", Risk.CONSEQUENTIAL),
        ("quit", Risk.CONSEQUENTIAL),
        ("close", Risk.CONSEQUENTIAL),
        ("send", Risk.CONSEQUENTIAL),
        ("erase", Risk.CONSEQUENTIAL),
        ("shut down", Risk.CONSEQUENTIAL),
        ("log out", Risk.CONSEQUENTIAL),
        ("do thing", Risk.CONSEQUENTIAL),
        ("check for new mail", Risk.CONSEQUENTIAL),
    ],
)
def test_the_command_name_sets_the_starting_level(command: str, level: Risk) -> None:
    assert command_risk(command, app="TextEdit", bundle_id="com.apple.TextEdit")[0] is level


def test_per_app_overrides() -> None:
    assert command_risk("open", app="TextEdit")[0] is Risk.CHANGE
    risk, reason = command_risk("open", app="Finder", bundle_id="com.apple.finder")
    assert risk is Risk.CONSEQUENTIAL and "program" in reason
    risk, reason = command_risk("send", app="Mail", bundle_id="com.apple.mail")
    assert risk is Risk.CONSEQUENTIAL and "email" in reason
    assert command_risk("empty", app="Finder")[1] == "Empties the Trash for good"


# --- the sentence the approver reads --------------------------------------------------------


def test_the_sheet_says_the_call_in_words() -> None:
    prepared = call(finder(), command="delete", reference=DESKTOP_REPORT)
    assert prepared.summary == "Finder: delete file 'report.pdf' in folder 'Desktop'"
    assert prepared.risk is Risk.CONSEQUENTIAL


@pytest.mark.parametrize(
    ("parts", "sentence"),
    [
        (
            {"command": "get", "reference": [{"property": "desktop"}, {"property": "items"}]},
            "Finder: get every item of desktop",
        ),
        (
            {
                "command": "set",
                "reference": [*DESKTOP_REPORT, {"property": "name"}],
                "parameters": {"to": "old report.pdf"},
            },
            "Finder: set name of file 'report.pdf' in folder 'Desktop' to 'old report.pdf'",
        ),
        (
            {
                "command": "move",
                "reference": DESKTOP_REPORT,
                "parameters": {"to": [{"property": "trash"}]},
            },
            "Finder: move file 'report.pdf' in folder 'Desktop' to trash",
        ),
        (
            {"command": "count", "reference": [{"elements": "windows", "every": True}]},
            "Finder: count every window",
        ),
        (
            {"command": "exists", "reference": [{"elements": "disks", "index": 2}]},
            "Finder: exists disk 2",
        ),
    ],
)
def test_sentences(parts: dict[str, Any], sentence: str) -> None:
    assert call(finder(), **parts).summary == sentence


# --- what call.js receives ------------------------------------------------------------------


def test_reference_steps_become_jxa_steps() -> None:
    prepared = call(
        finder(),
        command="get",
        reference=[
            {"property": "startup disk"},
            {"elements": "folders", "name": "Users"},
            {"elements": "items", "index": 1},
            {"property": "displayed name"},
        ],
    )
    assert prepared.payload["form"] == "get"
    assert prepared.payload["target"] == [
        {"property": "startupDisk"},
        {"elements": "folders", "by": "name", "value": "Users"},
        {"elements": "items", "by": "index", "value": 0},
        {"property": "displayedName"},
    ]
    assert prepared.payload["app"] == "com.apple.finder"
    windows = call(
        finder(),
        command="get",
        reference=[{"elements": "Finder windows", "id": 7}, {"property": "current view"}],
    )
    assert windows.payload["target"] == [
        {"elements": "finderWindows", "by": "id", "value": 7},
        {"property": "currentView"},
    ]


def test_named_parameters_are_checked_and_tagged() -> None:
    prepared = call(
        finder(),
        command="make",
        parameters={
            "new": "folder",
            "at": [{"property": "desktop"}],
            "with properties": {"name": "Reports", "label index": 2},
        },
    )
    assert prepared.payload["parameters"] == {
        "new": "folder",
        "at": {"$ref": [{"property": "desktop"}]},
        "withProperties": {"$record": {"name": "Reports", "labelIndex": 2}},
    }
    assert prepared.risk is Risk.CHANGE


def test_files_dates_and_enumerations() -> None:
    d = finder()
    closing = call(
        d,
        command="close",
        reference=[{"elements": "windows", "index": 1}],
        parameters={"saving": "ASK", "saving in": "~/Documents/x.txt"},
    )
    params = closing.payload["parameters"]
    assert params["saving"] == "ask"  # enumerations go by their dictionary name
    assert params["savingIn"]["$file"].endswith("/Documents/x.txt")
    assert params["savingIn"]["$file"].startswith("/")
    setting = call(
        d,
        command="set",
        reference=[{"elements": "files", "name": "a"}, {"property": "modification date"}],
        parameters={"to": "2024-05-03T14:30"},
    )
    assert setting.payload["value"]["$date"].startswith("2024-05-03T14:30:00")
    assert setting.payload["property"] == "modificationDate"
    assert setting.payload["target"] == [{"elements": "files", "by": "name", "value": "a"}]


def test_a_reference_given_as_direct_parameter_is_the_target() -> None:
    prepared = call(finder(), command="reveal", direct_parameter=DESKTOP_REPORT)
    assert prepared.payload["target"] == [
        {"elements": "folders", "by": "name", "value": "Desktop"},
        {"elements": "files", "by": "name", "value": "report.pdf"},
    ]
    assert prepared.payload["has_direct"] is False


def test_a_plain_direct_parameter_is_passed_as_data() -> None:
    text = "'); Application('Finder').delete(Path('/')); ('"
    d = dictionary_adapter().validate_python(
        {
            "suites": [
                {
                    "name": "S",
                    "commands": [
                        {
                            "name": "speak",
                            "direct_parameter": {"types": [{"name": "text"}]},
                            "parameters": [
                                {"name": "times", "types": [{"name": "integer"}], "optional": True}
                            ],
                        }
                    ],
                }
            ]
        }
    )
    prepared = call(d, command="speak", direct_parameter=text, parameters={"times": 2})
    assert prepared.payload["direct"] == text and prepared.payload["has_direct"] is True
    assert prepared.payload["parameters"] == {"times": 2}


# --- refusals name what exists --------------------------------------------------------------


def test_unknown_command_is_refused_with_the_commands_that_exist() -> None:
    phrase = refusal(finder(), command="frobnicate")
    assert "no command 'frobnicate'" in phrase and "reveal" in phrase and "empty" in phrase


def test_hidden_command_is_unknown() -> None:
    assert "no command 'sort'" in refusal(finder(), command="sort")


def test_unknown_element_or_property_is_refused_with_what_exists() -> None:
    phrase = refusal(finder(), command="get", reference=[{"elements": "flders"}])
    assert "no elements called 'flders'" in phrase and "folders" in phrase
    phrase = refusal(
        finder(),
        command="get",
        reference=[{"elements": "files", "name": "a"}, {"property": "colour"}],
    )
    assert "no property or elements called 'colour'" in phrase and "modification date" in phrase


def test_unknown_parameter_is_refused_with_the_parameters_that_exist() -> None:
    phrase = refusal(finder(), command="move", reference=DESKTOP_REPORT, parameters={"into": []})
    assert "no parameter 'into'" in phrase and "to" in phrase


def test_unknown_property_in_with_properties_is_refused() -> None:
    phrase = refusal(
        finder(),
        command="make",
        parameters={"new": "folder", "with properties": {"colour": "red"}},
    )
    assert "'colour'" in phrase and "label index" in phrase


def test_unknown_class_for_new_is_refused_with_the_classes() -> None:
    phrase = refusal(finder(), command="make", parameters={"new": "spaceship"})
    assert "class name" in phrase and "folder" in phrase


def test_setting_a_read_only_property_is_refused_before_it_runs() -> None:
    phrase = refusal(
        finder(),
        command="set",
        reference=[{"elements": "files", "name": "a"}, {"property": "size"}],
        parameters={"to": 1},
    )
    assert phrase == "The size property is read-only in Finder; it can't be set."


def test_set_needs_a_property_and_one_value() -> None:
    assert "property step" in refusal(
        finder(), command="set", reference=DESKTOP_REPORT, parameters={"to": "x"}
    )
    assert "exactly one named parameter" in refusal(
        finder(), command="set", reference=[{"property": "selection"}], parameters={}
    )


def test_wrong_value_types_are_refused() -> None:
    d = finder()
    assert "one of: yes, no, ask" in refusal(
        d,
        command="close",
        reference=[{"elements": "windows", "index": 1}],
        parameters={"saving": "maybe"},
    )
    assert "takes text" in refusal(
        d,
        command="set",
        reference=[{"elements": "files", "name": "a"}, {"property": "comment"}],
        parameters={"to": 5},
    )
    assert "absolute path" in refusal(
        d,
        command="close",
        reference=[{"elements": "windows", "index": 1}],
        parameters={"saving in": "relative/x.txt"},
    )


def test_missing_required_parameter_is_refused() -> None:
    assert "also needs: to" in refusal(finder(), command="move", reference=DESKTOP_REPORT)
    assert "needs a direct parameter" in refusal(finder(), command="reveal")
    assert "needs a reference" in refusal(finder(), command="get")


def test_a_value_property_has_no_elements() -> None:
    phrase = refusal(
        finder(), command="get", reference=[{"property": "product version"}, {"elements": "files"}]
    )
    assert "is a value, not an object" in phrase


def test_mail_send_is_consequential_and_takes_an_outgoing_message() -> None:
    prepared = call(
        mail(), MAIL, command="send", reference=[{"elements": "outgoing messages", "index": 1}]
    )
    assert prepared.risk is Risk.CONSEQUENTIAL
    assert prepared.summary == "Mail: send outgoing message 1"
    assert prepared.payload["target"] == [
        {"elements": "outgoingMessages", "by": "index", "value": 0}
    ]


def test_a_command_excluded_by_mails_include_is_unknown_there() -> None:
    assert "no command 'open'" in refusal(mail(), MAIL, command="open", direct_parameter="/tmp/a")


# --- JSON Schema of dictionary types --------------------------------------------------------


@pytest.mark.parametrize(
    ("types", "schema"),
    [
        ([TypeRef(name="text")], {"type": "string"}),
        ([TypeRef(name="integer")], {"type": "integer"}),
        ([TypeRef(name="real")], {"type": "number"}),
        ([TypeRef(name="boolean")], {"type": "boolean"}),
        ([TypeRef(name="date")], {"type": "string", "format": "date-time"}),
        ([TypeRef(name="text", many=True)], {"type": "array", "items": {"type": "string"}}),
        ([TypeRef(name="save options")], {"type": "string", "enum": ["yes", "no", "ask"]}),
        ([TypeRef(name="any")], {}),
        ([TypeRef(name="rectangle")], {}),
    ],
)
def test_types_map_to_json_schema(types: list[TypeRef], schema: dict[str, Any]) -> None:
    assert type_schema(types, finder()) == schema


def test_file_object_and_record_schemas() -> None:
    d = finder()
    file_schema = type_schema([TypeRef(name="alias")], d)
    assert file_schema["type"] == "string" and "POSIX path" in file_schema["description"]
    folder = type_schema([TypeRef(name="folder")], d)
    assert folder["$ref"] == "#/$defs/reference"
    settings = type_schema([TypeRef(name="print settings")], d)
    assert settings["type"] == "object" and settings["additionalProperties"] is False
    assert settings["properties"]["copies"] == {"type": "integer"}
    assert settings["properties"]["error handling"]["enum"] == ["standard", "detailed"]
    defs = reference_defs()
    assert defs["reference"]["type"] == "array"
    step_kinds = defs["reference"]["items"]["anyOf"]
    assert {tuple(sorted(s["$ref"].split("/")[-1:])) for s in step_kinds} == {
        ("ElementStep",),
        ("PropertyStep",),
    }
    assert set(defs["ElementStep"]["properties"]) == {"elements", "name", "index", "id", "every"}


def test_get_and_count_need_a_fitting_reference() -> None:
    assert "not the app itself" in refusal(finder(), command="get", reference=[])
    assert "count counts elements" in refusal(
        finder(), command="count", reference=[{"property": "desktop"}]
    )


def test_the_command_line_export_has_the_documented_shape() -> None:
    from tools.mac.sdef.export import dictionary_json

    exported = dictionary_json("Finder", finder(), bundle_id="com.apple.finder")
    assert set(exported) == {"app", "suites", "skipped_includes"}
    standard = exported["suites"][0]
    assert set(standard) == {"name", "commands", "classes", "enumerations"}
    close = next(c for c in standard["commands"] if c["name"] == "close")
    assert set(close) == {
        "name", "code", "description", "risk", "direct_parameter", "parameters", "result"
    }  # fmt: skip
    assert close["risk"] == "consequential" and close["code"] == "coreclos"
    assert close["direct_parameter"] == {"type": "specifier", "optional": False}
    assert close["parameters"][0] == {"name": "saving", "type": "save options", "optional": True}
    window = next(c for c in standard["classes"] if c["name"] == "window")
    assert {"name": "id", "type": "integer", "access": "r"} in window["properties"]
    application = next(c for c in standard["classes"] if c["name"] == "application")
    assert application["elements"] == ["documents", "windows"]
    assert {"name": "save options", "values": ["yes", "no", "ask"]} in standard["enumerations"]


def test_rough_words_without_a_dictionary() -> None:
    from tools.mac.sdef.reference import REFERENCE, rough_words

    steps = REFERENCE.validate_python(
        [{"elements": "folders", "name": "Desktop"}, {"elements": "files"}, {"property": "name"}]
    )
    assert rough_words(steps) == "name of every file in folder 'Desktop'"
