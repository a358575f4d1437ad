"""The fast D-Bus encoder and decoder agree with jeepney, byte for byte where it matters.

Calls we encode are parsed by jeepney (the reference) into the same path, names and body; replies
jeepney builds (as an application's bus library would) are read back by ours into the same body.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jeepney import DBusAddress, Message, new_error, new_method_call, new_method_return
from jeepney.low_level import HeaderFields

from tools.screen.a11y.dbus_wire import ERROR, METHOD_RETURN, encode_call, message_size, read_reply

names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=40
)
paths = st.lists(st.from_regex(r"[A-Za-z0-9_]{1,12}", fullmatch=True), min_size=1, max_size=6).map(
    lambda parts: "/" + "/".join(parts)
)


@settings(max_examples=30, deadline=None)
@given(path=paths, text=names, x=st.integers(-(2**31), 2**31 - 1), serial=st.integers(1, 2**32 - 1))
@pytest.mark.parametrize(
    ("signature", "body"),
    [("", lambda t, x: ()), ("u", lambda t, x: (abs(x),)), ("ss", lambda t, x: (t, t[::-1])),
     ("iiu", lambda t, x: (x, -x if x > -(2**31) else 0, 0)), ("s", lambda t, x: (t,)),
     ("ssv", lambda t, x: ("org.a11y.Status", t, ("b", True)))],
)  # fmt: skip
def test_calls_we_encode_are_what_jeepney_reads(
    signature: str, body: Any, path: str, text: str, x: int, serial: int
) -> None:
    values = body(text, x)
    data = encode_call(serial, ":1.42", path, "org.a11y.atspi.Accessible", "Get", signature, values)
    assert message_size(data) == len(data)
    parsed = Message.from_buffer(data)
    fields = parsed.header.fields
    assert parsed.header.serial == serial
    assert fields[HeaderFields.path] == path
    assert fields[HeaderFields.interface] == "org.a11y.atspi.Accessible"
    assert fields[HeaderFields.member] == "Get"
    assert fields[HeaderFields.destination] == ":1.42"
    assert fields.get(HeaderFields.signature, "") == signature
    assert tuple(parsed.body) == tuple(values)
    # The same message as jeepney builds it.
    address = DBusAddress(path, bus_name=":1.42", interface="org.a11y.atspi.Accessible")
    reference = new_method_call(address, "Get", signature or None, values)
    assert Message.from_buffer(reference.serialise(serial)).body == parsed.body


@settings(max_examples=30, deadline=None)
@given(text=names, numbers=st.lists(st.integers(0, 2**32 - 1), max_size=5))
@pytest.mark.parametrize(
    ("signature", "body"),
    [("a(so)", lambda t, n: ([(":1.2", "/a/b"), (":1.3", "/c" + "/d" * len(n))],)),
     ("u", lambda t, n: (n[0] if n else 7,)), ("v", lambda t, n: (("s", t),)),
     ("au", lambda t, n: (n,)), ("(iiii)", lambda t, n: ((1, -2, 3, len(t)),)),
     ("a(ua(so))", lambda t, n: ([(2, [(":1.1", "/x")])],)), ("s", lambda t, n: (t,)),
     ("", lambda t, n: ())],
)  # fmt: skip
def test_replies_jeepney_builds_are_what_we_read(
    signature: str, body: Any, text: str, numbers: list[int]
) -> None:
    call = new_method_call(DBusAddress("/p", bus_name=":1.2", interface="i.f"), "M")
    values = body(text, numbers)
    reply = new_method_return(call, signature or None, values)
    reply.header.fields[HeaderFields.reply_serial] = 41
    reply.header.fields[HeaderFields.sender] = ":1.99"
    data = reply.serialise(55)
    read = read_reply(data)
    assert (read.kind, read.reply_serial, read.body) == (METHOD_RETURN, 41, tuple(values))
    assert message_size(data) == len(data)


def test_an_error_reply_gives_its_name() -> None:
    call = new_method_call(DBusAddress("/p", bus_name=":1.2", interface="i.f"), "M")
    error = new_error(call, "org.freedesktop.DBus.Error.UnknownObject", "s", ("gone",))
    error.header.fields[HeaderFields.reply_serial] = 9
    read = read_reply(error.serialise(3))
    assert (read.kind, read.reply_serial, read.error) == (
        ERROR,
        9,
        "org.freedesktop.DBus.Error.UnknownObject",
    )


def test_a_big_endian_reply_is_read_too() -> None:
    from jeepney.low_level import Endianness, Header, MessageType

    header = Header(
        Endianness.big,
        MessageType.method_return,
        0,
        1,
        0,
        5,
        {HeaderFields.reply_serial: 4, HeaderFields.signature: "u"},
    )
    data = Message(header, (61,)).serialise()
    assert message_size(data) == len(data)
    assert read_reply(data).body == (61,) and read_reply(data).reply_serial == 4
