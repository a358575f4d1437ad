"""Parsing dictionaries: the model from hand-written fixtures shaped like real ones, includes
from the system folder only, and hostile XML refused quickly."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.sdef.bundles import FIXTURES, INCLUDES
from tests.support.sdef.dictionaries import finder, mail
from tools.mac.sdef.cache import dictionary_adapter
from tools.mac.sdef.errors import NOT_A_DICTIONARY, TOO_LARGE, DictionaryRefused
from tools.mac.sdef.model import jxa_name
from tools.mac.sdef.parse import parse_sdef, parse_sdef_file
from tools.mac.sdef.xmlsafe import MAX_BYTES


def test_finder_like_dictionary_has_its_suites_commands_and_the_included_standard_suite() -> None:
    d = finder()
    assert [s.name for s in d.suites] == ["Standard Suite", "Finder Basics", "Finder items"]
    assert d.skipped_includes == []
    names = [c.name for c in d.commands()]
    assert {"open", "close", "delete", "make", "move", "empty", "reveal", "eject"} <= set(names)


def test_hidden_items_are_left_out() -> None:
    d = finder()
    assert d.command("sort") is None  # a hidden command
    assert d.command("restart") is None  # in a hidden suite
    assert d.command("empty") is not None and d.command("empty").parameters == []  # hidden param
    views = d.enumeration("ecvw")
    assert views is not None and [e.name for e in views.enumerators] == [
        "icon view",
        "list view",
        "column view",
    ]
    counting = d.command("count")
    assert counting is not None and counting.parameter("each") is None


def test_commands_have_direct_parameters_named_parameters_and_results() -> None:
    d = finder()
    make = d.command("make")
    assert make is not None and make.direct_parameter is None
    new = make.parameter("new")
    assert new is not None and not new.optional and new.types[0].name == "type"
    props = make.parameter("withProperties")  # the JXA spelling finds it too
    assert props is not None and props.optional and props.types[0].name == "record"
    assert make.result is not None and make.result.types[0].name == "specifier"
    opening = d.command("open")
    assert opening is not None and opening.direct_parameter is not None
    assert [(t.name, t.many) for t in opening.direct_parameter.types] == [
        ("file", False),
        ("file", True),
    ]


def test_synonyms_find_the_same_terms() -> None:
    d = finder()
    assert d.command("unmount") is d.command("eject")
    app = d.merged_class("application")
    assert app is not None
    assert app.property("boot disk") is app.property("startup disk")
    assert d.merged_class("file viewer") is not None
    assert d.merged_class("file viewer").name == "Finder window"  # type: ignore[union-attr]


def test_classes_merge_extensions_and_inherit_properties_with_their_access() -> None:
    d = finder()
    app = d.merged_class("application")
    assert app is not None
    assert {"name", "frontmost", "desktop", "home", "startup disk"} <= {
        p.name for p in app.properties
    }
    assert {"folder", "file", "disk", "item", "document"} <= {e.type for e in app.elements}
    folder = d.merged_class("folders")  # by plural
    assert folder is not None and folder.ancestors == ["container", "item"]
    name = folder.property("name")
    assert name is not None and name.access == "rw" and name.writable
    index = folder.property("index")
    assert index is not None and index.access == "r" and not index.writable
    assert {e.type for e in folder.elements} == {"item", "container", "folder", "file"}
    tags = folder.property("tags")
    assert tags is not None and [(t.name, t.many) for t in tags.types] == [("text", True)]


def test_enumerations_value_types_and_records() -> None:
    d = finder()
    options = d.enumeration("save options")
    assert options is not None and [e.name for e in options.enumerators] == ["yes", "no", "ask"]
    settings = d.record_type("print settings")
    assert settings is not None
    assert [p.name for p in settings.properties] == [
        "copies",
        "collating",
        "error handling",
        "requested print time",
    ]


def test_mail_like_include_leaves_out_what_its_xpointer_excludes() -> None:
    d = mail()
    names = {c.name for c in d.commands()}
    assert {"close", "quit", "count", "delete", "make", "send", "check for new mail"} <= names
    assert not {"open", "print", "save"} & names
    assert d.enumeration("save options") is None
    standard = d.suites[0]
    assert standard.name == "Standard Suite"
    assert {c.name for c in standard.classes} == {"application", "document", "window"}


def test_a_missing_include_is_skipped_and_named_and_the_rest_still_parses() -> None:
    d = finder(include_root=FIXTURES / "not-here")
    assert d.skipped_includes == ["CocoaStandard.sdef"]
    assert [s.name for s in d.suites] == ["Finder Basics", "Finder items"]
    assert d.command("reveal") is not None and d.command("make") is None


@pytest.mark.parametrize(
    "href",
    [
        "file:///etc/passwd",
        "file:///System/Library/ScriptingDefinitions/../../../etc/passwd",
        "http://example.com/CocoaStandard.sdef",
        "file://otherhost/System/Library/ScriptingDefinitions/CocoaStandard.sdef",
        "CocoaStandard.sdef",
    ],
)
def test_includes_are_read_only_from_the_system_folder(href: str, tmp_path: Path) -> None:
    text = f"""<dictionary xmlns:xi="http://www.w3.org/2003/XInclude">
      <xi:include href="{href}" xpointer="xpointer(/dictionary/suite)"/>
      <suite name="Own" code="own "><command name="ping" code="ownpping"/></suite>
    </dictionary>"""
    d = parse_sdef(text.encode(), include_root=INCLUDES)
    assert [s.name for s in d.suites] == ["Own"]
    assert len(d.skipped_includes) == 1


def test_a_symbolic_link_out_of_the_include_folder_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "ScriptingDefinitions"
    root.mkdir()
    secret = tmp_path / "Secret.sdef"
    secret.write_text(
        '<dictionary><suite name="Secret" code="scrt"><command name="leak" code="scrtleak"/>'
        "</suite></dictionary>"
    )
    os.symlink(secret, root / "Linked.sdef")
    text = b"""<dictionary xmlns:xi="http://www.w3.org/2003/XInclude">
      <xi:include href="file:///System/Library/ScriptingDefinitions/Linked.sdef"/>
    </dictionary>"""
    d = parse_sdef(text, include_root=root)
    assert d.command("leak") is None and d.skipped_includes == ["Linked.sdef"]


def test_an_include_without_xpointer_brings_the_whole_dictionary(tmp_path: Path) -> None:
    text = b"""<dictionary xmlns:xi="http://www.w3.org/2003/XInclude">
      <xi:include href="file:///System/Library/ScriptingDefinitions/CocoaStandard.sdef"/>
    </dictionary>"""
    d = parse_sdef(text, include_root=INCLUDES)
    assert [s.name for s in d.suites] == ["Standard Suite"]


def test_malformed_xml_is_refused_with_a_fixed_phrase() -> None:
    with pytest.raises(DictionaryRefused) as caught:
        parse_sdef_file(FIXTURES / "Malformed.sdef", include_root=INCLUDES)
    assert caught.value.phrase == NOT_A_DICTIONARY


def test_a_document_that_is_not_a_dictionary_is_refused() -> None:
    with pytest.raises(DictionaryRefused):
        parse_sdef(b"<plist><dict/></plist>")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE dictionary [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<dictionary><suite name="&lol9;" code="bomb"/></dictionary>"""


def test_an_entity_bomb_is_refused_quickly() -> None:
    started = time.perf_counter()
    with pytest.raises(DictionaryRefused) as caught:
        parse_sdef(BILLION_LAUGHS)
    assert time.perf_counter() - started < 0.5
    assert caught.value.phrase == NOT_A_DICTIONARY


def test_external_entities_are_never_loaded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    for doctype in (
        f'<!DOCTYPE dictionary [<!ENTITY x SYSTEM "file://{secret}">]>',
        f'<!DOCTYPE dictionary [<!ENTITY % p SYSTEM "file://{secret}"> %p;]>',
    ):
        text = f'{doctype}<dictionary><suite name="&x;" code="xxxx"/></dictionary>'
        with pytest.raises(DictionaryRefused):
            parse_sdef(text.encode())


def test_the_sdef_dtd_in_a_doctype_is_allowed_and_not_loaded(tmp_path: Path) -> None:
    text = (
        f'<!DOCTYPE dictionary SYSTEM "file://{tmp_path}/missing.dtd">'
        '<dictionary><suite name="Fine" code="fine"/></dictionary>'
    )
    assert [s.name for s in parse_sdef(text.encode()).suites] == ["Fine"]


def test_an_oversized_file_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    big = tmp_path / "Huge.sdef"
    with big.open("wb") as file:
        file.write(b"<dictionary><!--")
        file.write(b" " * (MAX_BYTES + 10))
        file.write(b"--></dictionary>")
    started = time.perf_counter()
    with pytest.raises(DictionaryRefused) as caught:
        parse_sdef_file(big)
    assert caught.value.phrase == TOO_LARGE
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("term", "name"),
    [
        ("with properties", "withProperties"),
        ("do JavaScript", "doJavaScript"),
        ("URL", "url"),
        ("shut down", "shutDown"),
        ("startup disk", "startupDisk"),
        ("name", "name"),
    ],
)
def test_terms_get_their_jxa_names(term: str, name: str) -> None:
    assert jxa_name(term) == name


def test_a_parsed_dictionary_survives_json_round_trips() -> None:
    d = finder()
    again = dictionary_adapter().validate_json(dictionary_adapter().dump_json(d))
    assert again == d
    assert again.merged_class("folder") == d.merged_class("folder")


def test_an_xpointer_cannot_read_other_files(tmp_path: Path) -> None:
    secret = tmp_path / "secret.sdef"
    secret.write_text('<dictionary><suite name="Secret" code="scrt"/></dictionary>')
    text = f"""<dictionary xmlns:xi="http://www.w3.org/2003/XInclude">
      <xi:include href="file:///System/Library/ScriptingDefinitions/CocoaStandard.sdef"
                  xpointer="xpointer(doc('file://{secret}')/dictionary/suite)"/>
    </dictionary>"""
    d = parse_sdef(text.encode(), include_root=INCLUDES)
    assert d.suites == [] and d.skipped_includes == ["CocoaStandard.sdef"]
