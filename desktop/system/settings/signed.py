"""The permission part of the settings carries a code that shows Deskhand wrote it.

What widens what runs unasked, or where the conversation and the key go, is guarded: the mode,
the rules and how long a plan lasts, the sites the browser may reach on the local network, the browser's console,
network, JavaScript and upload switches and the upload folder, and the model's server. When
Deskhand saves the settings it writes, beside them, that part and its HMAC-SHA256 under a key
only Deskhand holds (`permissions.key`, readable only by the person's account, inside
Deskhand's own places, which no tool may read).

On reading, a guarded part that differs from the signed one was changed outside Deskhand: the
signed part stays in force, and the differences are offered to the person (`OutsideChange`).
A file from before this code existed carries no signature; if no key exists yet either,
nothing could have signed it, so it is adopted once and signed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from tools.data import Data

SIGNED_KEY = "signed"  # the top-level key in settings.json: {"part": {...}, "mac": "..."}
KEY_NAME = "permissions.key"

# (dotted path in the settings, what the person calls it)
GUARDED: tuple[tuple[str, str], ...] = (
    ("permissions.mode", "Mode"),
    ("permissions.rules", "Rules"),
    ("permissions.plan_minutes", "Permissions → minutes a plan lasts"),
    ("browser.allow_hosts", "Browser → always allowed sites"),
    ("browser.read_console", "Browser → read the console"),
    ("browser.read_network", "Browser → read network requests"),
    ("browser.javascript_exec", "Browser → run JavaScript"),
    ("browser.file_upload", "Browser → upload files"),
    ("browser.upload_dir", "Browser → upload folder"),
    ("model.base_url", "Model → base URL"),
)
RULE_WORDS = {"allow": "Always allow", "ask": "Ask", "never": "Never"}
MODE_WORDS = {"ask": "Ask every time", "changes": "Ask for changes", "autonomous": "Autonomous"}


_made_here: set[Path] = set()  # keys this process made


class OutsideChange(Data):
    """Guarded settings that differ from what Deskhand last wrote, waiting for the person."""

    differences: list[str]
    proposed: dict[str, Any]  # the file's settings as written outside (JSON)

    def warning(self) -> str:
        """What a process without a window says on stderr."""
        return (
            "Deskhand: your permission settings were changed outside Deskhand ("
            + "; ".join(self.differences)
            + "). Those changes are ignored until you keep them in Deskhand's window; "
            "the settings Deskhand last saved apply."
        )


def _get(data: dict[str, Any], dotted: str) -> Any:
    value: Any = data
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        child = data.get(part)
        if not isinstance(child, dict):
            child = data[part] = {}
        data = child
    data[last] = value


def part_of(settings: dict[str, Any]) -> dict[str, Any]:
    """The guarded part of a settings dump."""
    return {dotted: _get(settings, dotted) for dotted, _ in GUARDED}


def with_part(settings: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    """`settings` with its guarded part replaced by `part`."""
    merged = json.loads(json.dumps(settings))
    for dotted, _ in GUARDED:
        _set(merged, dotted, part.get(dotted))
    return merged


def _words(dotted: str, value: Any) -> str:
    if dotted == "permissions.mode":
        return MODE_WORDS.get(str(value), str(value))
    if isinstance(value, bool):
        return "on" if value else "off"
    if value in ("", None):
        return "(none)"
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else f"“{value}”"


def _rule_name(key: str) -> str:
    """A rule's key in words: “browser.javascript_exec” up to consequential."""
    rest, _, cap = key.partition("^")
    return f"“{rest}”" + (f" up to {cap}" if cap else "")


def differences(trusted: dict[str, Any], found: dict[str, Any]) -> list[str]:
    """What changed from `trusted` to `found`, one line each, in the person's words."""
    lines: list[str] = []
    for dotted, title in GUARDED:
        old, new = trusted.get(dotted), found.get(dotted)
        if old == new:
            continue
        if dotted == "permissions.rules":
            old_rules = old if isinstance(old, dict) else {}
            new_rules = new if isinstance(new, dict) else {}
            for key in sorted(set(old_rules) | set(new_rules)):
                before, after = old_rules.get(key), new_rules.get(key)
                if before == after:
                    continue
                rule = f"Rule {_rule_name(key)}"
                if before is None:
                    lines.append(f"{rule}: {RULE_WORDS.get(str(after), after)} (added)")
                elif after is None:
                    lines.append(f"{rule}: {RULE_WORDS.get(str(before), before)} (removed)")
                else:
                    was, now = RULE_WORDS.get(before, before), RULE_WORDS.get(after, after)
                    lines.append(f"{rule}: {was} → {now}")
            continue
        lines.append(f"{title}: {_words(dotted, old)} → {_words(dotted, new)}")
    return lines


class Seal:
    """Signs and checks the guarded part with a key kept in an owner-only file."""

    def __init__(self, key_file: Path) -> None:
        self.key_file = key_file

    def exists(self) -> bool:
        return self.key_file.exists()

    def _key(self, *, create: bool) -> bytes | None:
        try:
            key = bytes.fromhex(self.key_file.read_text(encoding="utf-8").strip())
            if len(key) >= 16:
                return key
        except (OSError, ValueError):
            pass
        if not create:
            return None
        # None yet, or unusable: a new one (every code made with the old one stops counting).
        key = secrets.token_bytes(32)
        self.key_file.parent.mkdir(parents=True, exist_ok=True)
        self.key_file.unlink(missing_ok=True)
        fd = os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key.hex())
        _made_here.add(self.key_file)
        return key

    @property
    def new(self) -> bool:
        """No key before this run: nothing Deskhand keeps can have been signed yet (a first
        start, or the first since signing came), so what is there is adopted."""
        return not self.exists() or self.key_file in _made_here

    @staticmethod
    def _mac(key: bytes, value: Any) -> str:
        canonical = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
        return hmac.new(key, canonical.encode(), hashlib.sha256).hexdigest()

    def code(self, value: Any) -> str:
        """The code of a JSON value under Deskhand's key (made on first use)."""
        key = self._key(create=True)
        assert key is not None  # made when missing
        return self._mac(key, value)

    def good(self, value: Any, mac: Any) -> bool:
        """Whether `mac` is the code of `value` under Deskhand's key."""
        key = self._key(create=False)
        if key is None or not isinstance(mac, str):
            return False
        return hmac.compare_digest(self._mac(key, value), mac)

    def sign(self, settings: dict[str, Any]) -> dict[str, Any]:
        """The block saved beside the settings: their guarded part and its code."""
        part = part_of(settings)
        return {"part": part, "mac": self.code(part)}

    def trusted_part(self, block: Any) -> dict[str, Any] | None:
        """The signed part of `block` when its code is good under this key, else None."""
        if not isinstance(block, dict) or not isinstance(block.get("part"), dict):
            return None
        part: dict[str, Any] = block["part"]
        return part if self.good(part, block.get("mac")) else None
