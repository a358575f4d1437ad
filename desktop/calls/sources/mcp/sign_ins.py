"""Where connectors' sign-ins are kept, and the state each connector's row shows.

A sign-in (tokens with their expiry, the registered client and its secret, the authorization
server's metadata) is one of Deskhand's secrets: it goes to the OS keychain (one entry per
connector) or, where there is none, to `mcp-sign-ins.json` beside mcp.json, readable by this
user only and counted among Deskhand's own places (desktop/calls/own_places/places.py), so no
tool can read it. Never in mcp.json, a log, a result or an answer: what leaves this module is
a `SignInState` (whether signed in, until when), never a token.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import threading
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.system.keystore import SERVICE, keychain_available, remember_token
from tools.data import Data
from tools.mcp.oauth.address import same_server

if TYPE_CHECKING:
    from tools.mcp.oauth.provider import SignInRecord

log = logging.getLogger(__name__)

FILE_NAME = "mcp-sign-ins.json"


class SignInStatus(StrEnum):
    SIGNED_IN = "signed_in"  # "Signed in" (until `expires_at`, refreshed before then)
    SIGN_IN = "sign_in"  # "Sign in": never signed in, or signed out
    SIGN_IN_AGAIN = "sign_in_again"  # refresh failed or the grant was revoked


ROW_WORDS = {
    SignInStatus.SIGNED_IN: "Signed in",
    SignInStatus.SIGN_IN: "Sign in",
    SignInStatus.SIGN_IN_AGAIN: "Sign in again",
}


class SignInState(Data):
    """What a connector's row says about its sign-in (no secret in it)."""

    status: SignInStatus = SignInStatus.SIGN_IN
    expires_at: float | None = None  # the access token's expiry (refreshed before it)

    @property
    def signed_in(self) -> bool:
        return self.status is SignInStatus.SIGNED_IN

    @property
    def words(self) -> str:
        """The row's words: "Signed in until 14:05", "Sign in", "Sign in again"."""
        words = ROW_WORDS[self.status]
        if self.signed_in and self.expires_at is not None:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.expires_at))
            return f"{words} (token until {when}, renewed on its own)"
        return words


class SignIns:
    """The sign-ins of one config dir: the keychain if there is one, else the private file."""

    def __init__(self, config_path: Path, *, keychain: bool | None = None) -> None:
        self.path = config_path.with_name(FILE_NAME)
        digest = hashlib.sha256(str(config_path.parent.resolve()).encode()).hexdigest()[:12]
        self._account = f"mcp-sign-in:{digest}:"
        self._keychain = keychain
        self._lock = threading.Lock()  # the file is read, changed and written whole

    @property
    def keychain(self) -> bool:
        if self._keychain is None:
            self._keychain = keychain_available()
        return self._keychain

    # -- one record ------------------------------------------------------------------

    def load(self, name: str) -> SignInRecord | None:
        from tools.mcp.oauth.provider import SignInRecord

        text = self._read_keychain(name) if self.keychain else self._read_file().get(name)
        if not text:
            return None
        try:
            record = SignInRecord.model_validate_json(text)
        except ValueError:
            log.warning("a connector's sign-in could not be read; it must sign in again")
            return None
        _remember(record)
        return record

    def save(self, name: str, record: SignInRecord) -> None:
        _remember(record)
        text = record.model_dump_json(exclude_none=True)
        if self.keychain:
            import keyring

            keyring.set_password(SERVICE, self._account + name, text)
            return
        with self._lock:
            records = self._read_file()
            records[name] = text
            self._write_file(records)

    def forget(self, name: str) -> None:
        if self.keychain:
            import keyring
            import keyring.errors

            try:
                keyring.delete_password(SERVICE, self._account + name)
            except keyring.errors.PasswordDeleteError:
                pass
            return
        with self._lock:
            records = self._read_file()
            if records.pop(name, None) is not None:
                self._write_file(records)

    def state(self, name: str, url: str = "") -> SignInState:
        """The connector's sign-in as its row shows it; tokens issued for another address than
        `url` (mcp.json changed it) count for nothing: "Sign in again"."""
        record = self.load(name)
        if record is None or (record.tokens is None and not record.lapsed):
            return SignInState()
        moved = bool(url) and same_server(record.server) != same_server(url)
        if record.lapsed or record.tokens is None or moved:
            return SignInState(status=SignInStatus.SIGN_IN_AGAIN)
        return SignInState(status=SignInStatus.SIGNED_IN, expires_at=record.expires_at)

    def keeper(self, name: str) -> Kept:
        return Kept(self, name)

    # -- the private file --------------------------------------------------------------

    def _read_keychain(self, name: str) -> str | None:
        import keyring
        import keyring.errors

        try:
            return keyring.get_password(SERVICE, self._account + name)
        except keyring.errors.KeyringError:
            log.warning("keychain read failed for a connector's sign-in")
            return None

    def _read_file(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            log.warning("%s unreadable: connectors signed in there must sign in again", self.path)
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): json.dumps(v) for k, v in data.items() if isinstance(v, dict)}

    def _write_file(self, records: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        data = {name: json.loads(text) for name, text in records.items()}
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(json.dumps(data, indent=2))
        os.chmod(tmp, 0o600)
        tmp.replace(self.path)


def _remember(record: SignInRecord) -> None:
    """Its secrets, for the guard that takes them out of any tool result (a server that echoes
    its bearer token back cannot pass it on)."""
    for secrets in (record.tokens or {}, record.client or {}):
        for field in ("access_token", "refresh_token", "client_secret"):
            value = secrets.get(field)
            if isinstance(value, str):
                remember_token(value)


class Kept:
    """One connector's record as the SDK's provider needs it (`tools.mcp.oauth.provider.Keeper`):
    read and written off the event loop (a keychain may take its time)."""

    def __init__(self, sign_ins: SignIns, name: str) -> None:
        self.sign_ins = sign_ins
        self.name = name

    async def load(self) -> SignInRecord | None:
        return await asyncio.to_thread(self.sign_ins.load, self.name)

    async def save(self, record: SignInRecord) -> None:
        await asyncio.to_thread(self.sign_ins.save, self.name, record)
