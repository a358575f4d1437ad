"""The D-Bus wire format of method calls and their replies, quick enough for a thousand at a time.

Reading an accessible tree is about five calls an element. jeepney builds and parses each message
generically (the header's fields as variants, the body's signature parsed again each time):
about 130 µs a call, most of a `see`'s time. Here the header of a method call, whose five
fields are always the same kinds, is packed directly, and a reply's header is read field by
field; bodies still go through jeepney's own types, cached per signature. Little-endian is what
this side writes; a big-endian reply is handed to jeepney whole.

The format (D-Bus specification, "Message Format"): a 12-byte fixed part (endianness, type,
flags, version, body length, serial), an array of (code, variant) header fields, each field
8-aligned, padding to 8, then the body. Alignment counts from the message's start.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jeepney import Message
from jeepney.low_level import Endianness, HeaderFields, parse_signature

__all__ = ["Reply", "encode_call", "message_size", "read_reply"]

METHOD_CALL, METHOD_RETURN, ERROR, SIGNAL = 1, 2, 3, 4
_FIXED = struct.Struct("<cBBBII")
_U32 = struct.Struct("<I")
_ALIGN = {"y": 1, "g": 1, "u": 4, "i": 4, "s": 4, "o": 4}


@dataclass(frozen=True, slots=True)
class Reply:
    kind: int  # METHOD_RETURN or ERROR (or another kind, which callers ignore)
    reply_serial: int | None
    error: str  # the error's name, for an ERROR
    body: tuple[Any, ...]


@lru_cache(maxsize=64)
def _body_type(signature: str) -> Any:
    return parse_signature(list(f"({signature})"))


def _string_field(code: int, kind: bytes, value: str) -> bytes:
    data = value.encode()
    return bytes((code, 1)) + kind + b"\0" + _U32.pack(len(data)) + data + b"\0"


def encode_call(
    serial: int,
    destination: str,
    path: str,
    interface: str,
    member: str,
    signature: str = "",
    body: Sequence[Any] = (),
) -> bytes:
    """A method call message, little-endian, ready to write."""
    body_bytes = b""
    if signature:
        body_bytes = _body_type(signature).serialise(tuple(body), 0, Endianness.little)
    fields = [
        _string_field(1, b"o", path),
        _string_field(2, b"s", interface),
        _string_field(3, b"s", member),
        _string_field(6, b"s", destination),
    ]
    if signature:
        sig = signature.encode()
        fields.append(b"\x08\x01g\0" + bytes((len(sig),)) + sig + b"\0")
    array = bytearray()
    for field in fields:
        array += b"\0" * (-len(array) % 8)  # each field starts 8-aligned (the array starts at 16)
        array += field
    header = _FIXED.pack(b"l", METHOD_CALL, 0, 1, len(body_bytes), serial) + _U32.pack(len(array))
    end = len(header) + len(array)
    return bytes(header + array + b"\0" * (-end % 8) + body_bytes)


def message_size(buffer: bytes | bytearray) -> int | None:
    """The length of the message at the start of `buffer`, or None before 16 bytes arrived."""
    if len(buffer) < 16:
        return None
    order = "<" if buffer[0:1] == b"l" else ">"
    body_length, fields_length = struct.unpack_from(order + "I4xI", buffer, 4)
    header = 16 + fields_length
    return header + (-header % 8) + body_length


def read_reply(message: bytes) -> Reply:
    """One whole message, as a `Reply`."""
    if message[0:1] != b"l":
        return _slow(message)
    kind = message[1]
    fields_end = 16 + _U32.unpack_from(message, 12)[0]
    reply_serial: int | None = None
    error = ""
    signature = ""
    pos = 16
    while pos < fields_end:
        pos += -pos % 8
        code, length = message[pos], message[pos + 1]
        kind_code = message[pos + 2 : pos + 2 + length].decode()
        pos += 3 + length
        if kind_code not in _ALIGN:
            return _slow(message)
        pos += -pos % _ALIGN[kind_code]
        if kind_code == "u":
            value: Any = _U32.unpack_from(message, pos)[0]
            pos += 4
        elif kind_code in ("s", "o"):
            size = _U32.unpack_from(message, pos)[0]
            value = message[pos + 4 : pos + 4 + size].decode()
            pos += 5 + size
        elif kind_code == "g":
            size = message[pos]
            value = message[pos + 1 : pos + 1 + size].decode()
            pos += 2 + size
        else:  # "y"
            value = message[pos]
            pos += 1
        if code == HeaderFields.reply_serial:
            reply_serial = value
        elif code == HeaderFields.error_name:
            error = value
        elif code == HeaderFields.signature:
            signature = value
    body: tuple[Any, ...] = ()
    if signature:
        start = fields_end + (-fields_end % 8)
        body = tuple(_body_type(signature).parse_data(message, start, Endianness.little)[0])
    return Reply(kind=kind, reply_serial=reply_serial, error=error, body=body)


def _slow(message: bytes) -> Reply:
    parsed = Message.from_buffer(message)
    fields = parsed.header.fields
    return Reply(
        kind=parsed.header.message_type.value,
        reply_serial=fields.get(HeaderFields.reply_serial),
        error=str(fields.get(HeaderFields.error_name, "")),
        body=tuple(parsed.body),
    )
