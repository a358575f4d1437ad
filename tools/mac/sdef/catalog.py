"""The scriptable apps on this computer and their dictionaries, cached on disk and in memory.

`apps()` scans the app folders, reuses every cached entry whose stamp still matches and reads
only what changed (in a thread; the `sdef` command in async subprocesses). `dictionary(app)`
loads one parsed dictionary. `peek` and `peek_dictionary` answer from memory only, for the
synchronous parts of a tool (its approval-sheet summary).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.mac.sdef.cache import CacheIndex, DictionaryCache, IndexEntry, ScriptableApp
from tools.mac.sdef.discovery import (
    DEFAULT_ROOTS,
    SDEF_TOOL_TIMEOUT,
    BundleInfo,
    find_bundles,
    find_sdef_tool,
    read_bundle,
    sdef_tool_output,
    stamp,
)
from tools.mac.sdef.errors import DictionaryRefused
from tools.mac.sdef.model import Dictionary, term_key
from tools.mac.sdef.parse import parse_sdef, parse_sdef_file

log = logging.getLogger(__name__)

FRESH_SECONDS = 30.0  # a discovery this recent is reused as it is
KEEP_IN_MEMORY = 8  # dictionaries
PURPOSE_LIMIT = 120
STANDARD_SUITES = frozenset(
    {"standardsuite", "textsuite", "typedefinitions", "typenamessuite", "requiredsuite"}
)


def purpose_of(name: str, dictionary: Dictionary) -> str:
    """One line saying what the app's scripting is for: its own first suite's description."""
    for suite in dictionary.suites:
        if term_key(suite.name) not in STANDARD_SUITES and suite.description:
            text = suite.description
            return text if len(text) <= PURPOSE_LIMIT else text[: PURPOSE_LIMIT - 1] + "…"
    commands = [c.name for c in dictionary.commands()][:4]
    if commands:
        return f"Scriptable {name}: commands such as {', '.join(commands)}"
    return f"Scriptable {name}"


@dataclass
class _Pending:
    """Bundles whose dictionary only the `sdef` command can give."""

    bundles: list[tuple[BundleInfo, str]] = field(default_factory=list)


class AppCatalog:
    """Discovery plus the on-disk cache in `cache_dir`."""

    def __init__(
        self,
        cache_dir: Path,
        *,
        roots: Sequence[str] = DEFAULT_ROOTS,
        include_root: Path | None = None,
        sdef_tool: str | None = "sdef",
        home: Path | None = None,
        sdef_timeout: float = SDEF_TOOL_TIMEOUT,
    ) -> None:
        self.cache = DictionaryCache(cache_dir)
        self.roots = tuple(roots)
        self.include_root = include_root
        self.sdef_tool = sdef_tool
        self.home = home
        self.sdef_timeout = sdef_timeout
        self._apps: list[ScriptableApp] = []
        self._files: dict[str, str] = {}  # app path -> its cached dictionary file
        self._found_at = -FRESH_SECONDS
        self._index_read = False  # the saved index, read once for `peek` before a discovery
        self._memory: OrderedDict[str, Dictionary] = OrderedDict()
        self._lock = asyncio.Lock()

    # --- discovery ----------------------------------------------------------------------

    async def apps(self, *, refresh: bool = False) -> list[ScriptableApp]:
        """Every scriptable app found, by name."""
        async with self._lock:
            if refresh or time.monotonic() - self._found_at >= FRESH_SECONDS:
                await self._discover()
            return list(self._apps)

    async def _discover(self) -> None:
        index, pending = await asyncio.to_thread(self._scan)
        tool = find_sdef_tool(self.sdef_tool) if pending.bundles else None
        if pending.bundles:
            limit = asyncio.Semaphore(4)

            async def ask(info: BundleInfo, key: str) -> None:
                async with limit:
                    data = (
                        await sdef_tool_output(tool, info.path, time_limit=self.sdef_timeout)
                        if tool
                        else None
                    )
                entry = await asyncio.to_thread(self._from_tool_output, info, key, data)
                index.entries[info.path] = entry

            await asyncio.gather(*(ask(info, key) for info, key in pending.bundles))
        self._apps, self._files = await asyncio.to_thread(self._finish, index)
        self._found_at = time.monotonic()

    def _scan(self) -> tuple[CacheIndex, _Pending]:
        old = self.cache.load_index()
        index = CacheIndex()
        pending = _Pending()
        for bundle in find_bundles(self.roots, home=self.home):
            path = str(bundle)
            entry = old.entries.get(path)
            if entry is not None and stamp(bundle, entry.sdef_file) == entry.stamp:
                index.entries[path] = entry
                continue
            info = read_bundle(bundle)
            key = stamp(bundle, info.sdef_file if info else None)
            if info is None or key is None or not info.scriptable:
                if key is not None:
                    index.entries[path] = IndexEntry(stamp=key)
                continue
            if info.sdef_file is None:
                pending.bundles.append((info, key))
                continue
            try:
                dictionary = parse_sdef_file(Path(info.sdef_file), include_root=self.include_root)
            except DictionaryRefused as exc:
                log.info("dictionary of %s refused: %s", path, exc.detail)
                index.entries[path] = IndexEntry(stamp=key, sdef_file=info.sdef_file)
                continue
            index.entries[path] = self._entry(info, key, dictionary)
        return index, pending

    def _from_tool_output(self, info: BundleInfo, key: str, data: bytes | None) -> IndexEntry:
        if data is None:
            return IndexEntry(stamp=key)
        try:
            dictionary = parse_sdef(data, include_root=self.include_root)
        except DictionaryRefused as exc:
            log.info("sdef output of %s refused: %s", info.path, exc.detail)
            return IndexEntry(stamp=key)
        return self._entry(info, key, dictionary)

    def _entry(self, info: BundleInfo, key: str, dictionary: Dictionary) -> IndexEntry:
        app = ScriptableApp(
            name=info.name,
            bundle_id=info.bundle_id,
            path=info.path,
            purpose=purpose_of(info.name, dictionary),
            commands=len(dictionary.commands()),
            skipped_includes=dictionary.skipped_includes,
        )
        file = self.cache.save_dictionary(info.path, key, dictionary)
        return IndexEntry(stamp=key, sdef_file=info.sdef_file, app=app, dictionary_file=file)

    def _finish(self, index: CacheIndex) -> tuple[list[ScriptableApp], dict[str, str]]:
        self.cache.save_index(index)
        self.cache.prune({e.dictionary_file for e in index.entries.values() if e.dictionary_file})
        return self._known(index)

    @staticmethod
    def _known(index: CacheIndex) -> tuple[list[ScriptableApp], dict[str, str]]:
        apps = sorted(
            (e.app for e in index.entries.values() if e.app is not None),
            key=lambda app: (app.name.lower(), app.path),
        )
        files = {
            e.app.path: e.dictionary_file or "" for e in index.entries.values() if e.app is not None
        }
        return apps, files

    # --- lookups ------------------------------------------------------------------------

    def peek(self, name: str) -> ScriptableApp | None:
        """The app called `name` (its name, bundle id or path) among those last discovered,
        in this process or, before its first discovery, by an earlier one (the saved index).

        So a call is described by the app's bundle id from the start, and a rule the person
        set on it (Never included) applies before any discovery or dictionary work runs."""
        if not self._apps and self._found_at < 0 and not self._index_read:
            self._index_read = True
            self._apps, self._files = self._known(self.cache.load_index())
        key = term_key(name)
        for app in self._apps:
            if name in (app.path, app.bundle_id) or term_key(app.name) == key:
                return app
        for app in self._apps:
            if app.bundle_id and term_key(app.bundle_id) == key:
                return app
        return None

    async def find(self, name: str) -> ScriptableApp | None:
        await self.apps()
        return self.peek(name)

    def peek_dictionary(self, app: ScriptableApp) -> Dictionary | None:
        # Memory is keyed by the cache file, whose name changes when the app changes.
        file = self._files.get(app.path, "")
        dictionary = self._memory.get(file)
        if dictionary is not None:
            self._memory.move_to_end(file)
        return dictionary

    async def dictionary(self, app: ScriptableApp) -> Dictionary | None:
        """The app's parsed dictionary (from memory, else the cache); None if it is gone."""
        found = self.peek_dictionary(app)
        if found is not None:
            return found
        file = self._files.get(app.path)
        if not file:
            return None
        loaded = await asyncio.to_thread(self.cache.load_dictionary, file)
        if loaded is not None:
            self._memory[file] = loaded
        while len(self._memory) > KEEP_IN_MEMORY:
            self._memory.popitem(last=False)
        return loaded
