"""The API key: in the OS keychain (keyring) where there is one.

Where no keychain exists (a Linux without a secret service) the key is kept, by default,
in a file only the person's user account can read (mode 0600), which Settings explains;
they can choose to keep it for this run only instead. A keychain that exists but
refuses the key keeps it for this run only until the person chooses.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from desktop.system import heavy
from desktop.system.settings.model import KeyStorage

log = logging.getLogger(__name__)

MIN_KEY = 8  # shorter strings are never taken for a key (they would match by chance)
# The API keys this process has seen, so a tool result that holds one can have it replaced
# before it is stored or sent (desktop/calls/own_places/guard.py).
_seen: set[str] = set()


def remember_key(key: str | None) -> None:
    """An API key this process holds: no tool result may carry it."""
    if key and len(key.strip()) >= MIN_KEY:
        _seen.add(key.strip())


# Connectors' sign-in tokens this process has loaded (desktop/calls/sources/mcp/sign_ins.py):
# a server that echoes one back cannot get it into a result either.
_tokens: set[str] = set()


def remember_token(token: str | None) -> None:
    """A connector's token (or client secret) this process holds: no tool result may carry it."""
    if token and len(token.strip()) >= MIN_KEY:
        _tokens.add(token.strip())


def known_tokens() -> list[str]:
    """Every connector token seen so far, longest first."""
    return sorted(_tokens, key=len, reverse=True)


def known_keys() -> list[str]:
    """Every key seen so far, and the environment's, longest first (a key may contain another)."""
    keys = set(_seen)
    env = os.environ.get(ENV_KEY, "").strip()
    if len(env) >= MIN_KEY:
        keys.add(env)
    return sorted(keys, key=len, reverse=True)


SERVICE = "Deskhand"
ENV_KEY = "ANTHROPIC_API_KEY"


def keychain_available() -> bool:
    """True when keyring has a real backend (macOS Keychain, Secret Service, Windows...).

    It probes the system (a D-Bus service, a library) the first time: call it off the event
    loop (`KeyStore.aget`)."""
    heavy.wait(heavy.KEYCHAIN)  # keyring's modules come from the one place that imports them
    import keyring

    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring config must not stop the app from starting
        return False
    module = type(backend).__module__
    if module.startswith(("keyring.backends.fail", "keyring.backends.null")):
        return False
    if module.startswith("keyring.backends.chainer"):
        return bool(getattr(backend, "backends", []))
    return backend.priority > 0


class KeyStore:
    """Reads and writes the API key for one data dir."""

    def __init__(self, *, account: str, key_file: Path, storage: KeyStorage) -> None:
        self.account = account
        self.key_file = key_file
        self._storage: KeyStorage | None = None
        self._wanted: KeyStorage = storage
        self._session_key: str | None = None
        self.changes = 0  # counts `set` calls: a window can tell a new key from the same one

    @property
    def storage(self) -> KeyStorage:
        """Where the key is kept; decided on first use (looking for a keychain takes time).

        With no keychain at all, "keychain" (the default) means the private file.
        """
        if self._storage is None:
            wanted = self._wanted
            self._storage = wanted if wanted != "keychain" or keychain_available() else "file"
        return self._storage

    @storage.setter
    def storage(self, value: KeyStorage) -> None:
        self._storage = value

    def stored_key(self) -> str | None:
        """The key Deskhand holds itself (keychain, file, or this run), without the environment."""
        if self._session_key:
            return self._session_key
        if self.storage == "keychain":
            import keyring.errors

            try:
                return keyring.get_password(SERVICE, self.account) or None
            except keyring.errors.KeyringError:
                log.warning("keychain read failed")
                return None
        if self.storage == "file" and self.key_file.exists():
            return self.key_file.read_text(encoding="utf-8").strip() or None
        return None

    def get(self) -> str | None:
        """The key to use: Deskhand's own first, then `ANTHROPIC_API_KEY`."""
        key = self.stored_key() or os.environ.get(ENV_KEY) or None
        remember_key(key)  # no tool result may carry it (desktop/calls/own_places/guard.py)
        return key

    def source(self) -> str:
        """Where `get()` finds the key, in words for the person."""
        if self._session_key:
            return "kept for this run only"
        if self.stored_key():
            return {"keychain": "OS keychain", "file": str(self.key_file)}.get(
                self.storage, "this run"
            )
        if os.environ.get(ENV_KEY):
            return f"environment ({ENV_KEY})"
        return "not set"

    def set(self, key: str, storage: KeyStorage) -> KeyStorage:
        """Store `key`; returns where it went: with no keychain, "keychain" means the private
        file; a keychain that refuses the key keeps it for this run only."""
        key = key.strip()
        remember_key(key)
        self._session_key = None
        self.changes += 1
        if storage == "keychain" and not keychain_available():
            storage = "file"
        if storage == "keychain":
            import keyring.errors

            try:
                if key:
                    keyring.set_password(SERVICE, self.account, key)
                else:
                    self._delete_keychain()
                self.storage = "keychain"
                return "keychain"
            except keyring.errors.KeyringError:
                log.warning("keychain write failed; keeping the key for this run")
                storage = "session"
        if storage == "file":
            self.key_file.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(key)
            os.chmod(self.key_file, 0o600)  # also when the file existed with looser rights
            self.storage = "file"
            return "file"
        self._session_key = key or None
        self.storage = "session"
        if self.key_file.exists():
            self.key_file.unlink()
        return "session"

    def _delete_keychain(self) -> None:
        import keyring.errors

        try:
            keyring.delete_password(SERVICE, self.account)
        except keyring.errors.PasswordDeleteError:
            pass

    async def aget(self) -> str | None:
        """`get()` off the event loop: finding the keychain probes the system, and a keychain
        may show a prompt and take its time."""
        await heavy.ready(heavy.KEYCHAIN)
        return await asyncio.to_thread(self.get)
