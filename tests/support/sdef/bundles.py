"""Synthetic app bundles for the dictionary tests and the discovery benchmark.

A bundle is a folder `Name.app/Contents/Info.plist` (XML or binary plist) with the dictionary
in `Contents/Resources`, the way macOS lays them out.
"""

from __future__ import annotations

import plistlib
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).with_name("fixtures")
INCLUDES = FIXTURES / "ScriptingDefinitions"


def make_bundle(
    root: Path,
    name: str,
    *,
    bundle_id: str | None = None,
    sdef: str | bytes | None = None,
    sdef_name: str | None = None,
    enabled: Any = None,
    binary: bool = False,
    extra: dict[str, Any] | None = None,
) -> Path:
    """An app bundle `root/name.app`; `sdef` is written to Resources as `sdef_name`."""
    bundle = root / f"{name}.app"
    resources = bundle / "Contents" / "Resources"
    resources.mkdir(parents=True, exist_ok=True)
    info: dict[str, Any] = {
        "CFBundleName": name,
        "CFBundleIdentifier": bundle_id or f"com.example.{name.lower().replace(' ', '')}",
        "CFBundlePackageType": "APPL",
    }
    if sdef is not None:
        file_name = sdef_name or f"{name}.sdef"
        data = sdef.encode() if isinstance(sdef, str) else sdef
        (resources / file_name).write_bytes(data)
        info["OSAScriptingDefinition"] = file_name
    if enabled is not None:
        info["NSAppleScriptEnabled"] = enabled
    info.update(extra or {})
    fmt = plistlib.FMT_BINARY if binary else plistlib.FMT_XML
    (bundle / "Contents" / "Info.plist").write_bytes(plistlib.dumps(info, fmt=fmt))
    return bundle


def small_sdef(name: str, *, commands: int = 3, description: str | None = None) -> str:
    """A small dictionary of its own with `commands` commands and a class."""
    about = description if description is not None else f"Things {name} can do"
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE dictionary SYSTEM "file://localhost/System/Library/DTDs/sdef.dtd">',
        f'<dictionary title="{name} Terminology" xmlns:xi="http://www.w3.org/2003/XInclude">',
        '<xi:include href="file:///System/Library/ScriptingDefinitions/CocoaStandard.sdef" '
        'xpointer="xpointer(/dictionary/suite)"/>',
        f'<suite name="{name} Suite" code="xxxx" description="{about}">',
    ]
    for index in range(commands):
        parts.append(
            f'<command name="do thing {index}" code="xxxxcm{index:02d}" description="Thing {index}">'
            '<direct-parameter type="text" optional="yes"/>'
            '<parameter name="times" code="tims" type="integer" optional="yes"/>'
            '<result type="text"/></command>'
        )
    parts += [
        '<class name="widget" code="wdgt" plural="widgets" description="A widget">',
        '<property name="name" code="pnam" type="text"/>',
        '<property name="size" code="wsiz" type="integer" access="r"/>',
        "</class>",
        '<class-extension extends="application"><element type="widget"/></class-extension>',
        "</suite></dictionary>",
    ]
    return "\n".join(parts)
