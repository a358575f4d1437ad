"""The API key: keychain when there is one; else this run only, or a file only the person can read."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.system.keystore import KeyStore, keychain_available
from tests.support.keychain import MemoryKeychain, installed


@pytest.fixture
def keychain() -> Iterator[MemoryKeychain]:
    with installed(backend := MemoryKeychain()):
        yield backend


def files_containing(root: Path, secret: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_key_goes_to_the_keychain_and_never_to_a_file(
    tmp_path: Path, keychain: MemoryKeychain, no_api_env: None
) -> None:
    store = KeyStore(account="api-key", key_file=tmp_path / "api-key", storage="keychain")
    assert store.set("sk-ant-secret", "keychain") == "keychain"
    assert keychain.passwords[("Deskhand", "api-key")] == "sk-ant-secret"
    assert (
        KeyStore(account="api-key", key_file=tmp_path / "api-key", storage="keychain").get()
        == "sk-ant-secret"
    )
    assert files_containing(tmp_path, "sk-ant-secret") == []


def test_without_a_keychain_the_key_is_kept_in_the_private_file_by_default(
    tmp_path: Path, no_api_env: None
) -> None:
    assert not keychain_available()
    key_file = tmp_path / "api-key"
    store = KeyStore(account="api-key", key_file=key_file, storage="keychain")
    assert store.set("sk-ant-secret", "keychain") == "file"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # The next start finds it: no asking for the key at every launch.
    assert KeyStore(account="api-key", key_file=key_file, storage="keychain").get() == (
        "sk-ant-secret"
    )


def test_without_a_keychain_a_key_for_this_run_only_is_never_written(
    tmp_path: Path, no_api_env: None
) -> None:
    assert not keychain_available()
    store = KeyStore(account="api-key", key_file=tmp_path / "api-key", storage="session")
    assert store.set("sk-ant-secret", "session") == "session"
    assert store.get() == "sk-ant-secret" and store.source() == "kept for this run only"
    assert files_containing(tmp_path, "sk-ant-secret") == []
    assert (
        KeyStore(account="api-key", key_file=tmp_path / "api-key", storage="session").get() is None
    )


def test_with_consent_the_key_is_in_a_file_only_the_person_can_read(
    tmp_path: Path, no_api_env: None
) -> None:
    key_file = tmp_path / "api-key"
    store = KeyStore(account="api-key", key_file=key_file, storage="file")
    assert store.set("sk-ant-secret", "file") == "file"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert KeyStore(account="api-key", key_file=key_file, storage="file").get() == "sk-ant-secret"


def test_environment_key_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env")
    store = KeyStore(account="api-key", key_file=tmp_path / "api-key", storage="session")
    assert store.get() == "sk-from-env" and "ANTHROPIC_API_KEY" in store.source()
