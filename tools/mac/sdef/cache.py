"""Parsed dictionaries on disk, keyed by the app's path and its modification stamp.

`index.json` holds, per bundle path, the stamp it was read at and the app's summary (or that
it is not scriptable), so a discovery that finds nothing changed reads one small file. Each
dictionary is its own JSON file named from the path and stamp; files no entry names are
removed. A missing, corrupt or older-format cache is simply rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import tempfile
from pathlib import Path

from pydantic import Field, TypeAdapter, ValidationError

from tools.data import Data
from tools.mac.sdef.model import Dictionary

log = logging.getLogger(__name__)

CACHE_VERSION = 1


@functools.cache
def dictionary_adapter() -> TypeAdapter[Dictionary]:
    """The dictionary model (plain dataclasses, `model.py`) as JSON, read with the checks a
    pydantic model makes; built on first use, as every `Data` model is."""
    return TypeAdapter(Dictionary)


class ScriptableApp(Data):
    """One scriptable app as `apps_list` shows it."""

    name: str
    bundle_id: str | None = None
    path: str
    purpose: str = ""
    commands: int = 0
    skipped_includes: list[str] = Field(default_factory=list)


class IndexEntry(Data):
    stamp: str
    sdef_file: str | None = None
    app: ScriptableApp | None = None  # None: not scriptable, or no readable dictionary
    dictionary_file: str | None = None


class CacheIndex(Data):
    version: int = CACHE_VERSION
    entries: dict[str, IndexEntry] = Field(default_factory=dict)


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class DictionaryCache:
    """The cache folder (given by the app, e.g. under the user cache directory)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.index_file = self.directory / "index.json"
        self.dictionaries = self.directory / "dictionaries"

    def load_index(self) -> CacheIndex:
        try:
            index = CacheIndex.model_validate_json(self.index_file.read_bytes())
        except FileNotFoundError:
            return CacheIndex()
        except (OSError, ValidationError, ValueError) as exc:
            log.info("dictionary cache index unreadable, rebuilding: %s", type(exc).__name__)
            return CacheIndex()
        return index if index.version == CACHE_VERSION else CacheIndex()

    def save_index(self, index: CacheIndex) -> None:
        try:
            _write_atomically(self.index_file, index.model_dump_json())
        except OSError as exc:
            log.warning("could not write the dictionary cache index: %s", exc)

    @staticmethod
    def file_name(path: str, stamp: str) -> str:
        digest = hashlib.sha256(f"{path}\0{stamp}".encode("utf-8", "surrogatepass")).hexdigest()
        return f"{digest[:32]}.json"

    def save_dictionary(self, path: str, stamp: str, dictionary: Dictionary) -> str | None:
        name = self.file_name(path, stamp)
        try:
            _write_atomically(
                self.dictionaries / name, dictionary_adapter().dump_json(dictionary).decode()
            )
        except OSError as exc:
            log.warning("could not cache a dictionary: %s", exc)
            return None
        return name

    def load_dictionary(self, name: str) -> Dictionary | None:
        if not name or "/" in name or name.startswith("."):
            return None
        try:
            return dictionary_adapter().validate_json((self.dictionaries / name).read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def prune(self, keep: set[str]) -> None:
        """Remove dictionary files no index entry names any more."""
        try:
            files = list(self.dictionaries.iterdir())
        except OSError:
            return
        for file in files:
            if file.name not in keep:
                file.unlink(missing_ok=True)
