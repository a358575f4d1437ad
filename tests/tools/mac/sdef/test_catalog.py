"""Discovery of scriptable apps in synthetic bundles, the sdef-command fallback, and the
on-disk cache keyed by app path and stamp."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from tests.support.sdef.bundles import FIXTURES, INCLUDES, make_bundle, small_sdef
from tools.mac.sdef.catalog import AppCatalog
from tools.mac.sdef.discovery import DEFAULT_ROOTS, find_bundles


def catalog(tmp_path: Path, *roots: Path, sdef_tool: str | None = None) -> AppCatalog:
    return AppCatalog(
        tmp_path / "cache",
        roots=[str(root) for root in roots],
        include_root=INCLUDES,
        sdef_tool=sdef_tool,
    )


def test_the_default_roots_are_the_usual_app_folders() -> None:
    assert DEFAULT_ROOTS == (
        "/Applications",
        "/System/Applications",
        "/System/Applications/Utilities",
        "~/Applications",
        "/System/Library/CoreServices",
    )


def test_finds_scriptable_apps_and_skips_the_others(tmp_path: Path) -> None:
    apps_dir, system = tmp_path / "Applications", tmp_path / "CoreServices"
    make_bundle(
        system, "Finder", bundle_id="com.apple.finder", sdef=(FIXTURES / "Finder.sdef").read_text()
    )
    make_bundle(
        apps_dir,
        "Mail",
        bundle_id="com.apple.mail",
        sdef=(FIXTURES / "Mail.sdef").read_text(),
        enabled=True,
        binary=True,
    )
    make_bundle(apps_dir, "Calculator")  # not scriptable
    make_bundle(apps_dir / "Utilities", "Widgets", sdef=small_sdef("Widgets"), enabled="YES")
    (apps_dir / "Broken.app" / "Contents").mkdir(parents=True)  # no Info.plist
    found = asyncio.run(catalog(tmp_path, apps_dir, system).apps())
    assert [app.name for app in found] == ["Finder", "Mail", "Widgets"]
    finder, mail, widgets = found
    assert finder.bundle_id == "com.apple.finder"
    assert finder.purpose == "Commonly-used Finder commands and object classes"
    assert mail.purpose == "Classes and commands for the Mail application"
    assert widgets.purpose == "Things Widgets can do"
    assert finder.commands > 10 and finder.skipped_includes == []


def test_home_applications_folder_is_expanded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_bundle(home / "Applications", "Mine", sdef=small_sdef("Mine"))
    assert [p.name for p in find_bundles(["~/Applications"], home=home)] == ["Mine.app"]


def test_a_dictionary_path_out_of_the_bundle_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sdef"
    outside.write_text(small_sdef("Outside"))
    make_bundle(
        tmp_path / "Apps", "Sneaky", extra={"OSAScriptingDefinition": "../../../outside.sdef"}
    )
    assert asyncio.run(catalog(tmp_path, tmp_path / "Apps").apps()) == []


def test_a_refused_dictionary_leaves_the_app_out(tmp_path: Path) -> None:
    apps_dir = tmp_path / "Apps"
    make_bundle(apps_dir, "Bomb", sdef=(FIXTURES / "Malformed.sdef").read_text())
    make_bundle(apps_dir, "Good", sdef=small_sdef("Good"))
    assert [a.name for a in asyncio.run(catalog(tmp_path, apps_dir).apps())] == ["Good"]


def test_off_a_mac_the_missing_standard_include_is_reported(tmp_path: Path) -> None:
    apps_dir = tmp_path / "Apps"
    make_bundle(apps_dir, "Widgets", sdef=small_sdef("Widgets"))
    cat = AppCatalog(tmp_path / "cache", roots=[str(apps_dir)], include_root=tmp_path / "none")
    (app,) = asyncio.run(cat.apps())
    assert app.skipped_includes == ["CocoaStandard.sdef"]
    assert app.commands == 3


def fake_sdef_tool(folder: Path, text: str) -> str:
    """A stand-in for macOS's `sdef` command: prints a dictionary for any app path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dictionary.sdef").write_text(text)
    tool = folder / "sdef"
    tool.write_text(f'#!/bin/sh\ntest -d "$1" || exit 1\nexec cat "{folder / "dictionary.sdef"}"\n')
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return str(tool)


def test_an_app_scriptable_without_a_dictionary_file_is_asked_through_the_sdef_command(
    tmp_path: Path,
) -> None:
    apps_dir = tmp_path / "Apps"
    make_bundle(apps_dir, "Legacy", enabled=True)
    tool = fake_sdef_tool(tmp_path / "bin", small_sdef("Legacy", description="Old terminology"))
    (app,) = asyncio.run(catalog(tmp_path, apps_dir, sdef_tool=tool).apps())
    assert app.name == "Legacy" and app.purpose == "Old terminology"
    assert asyncio.run(catalog(tmp_path / "other", apps_dir, sdef_tool=None).apps()) == []


def test_a_hanging_sdef_command_is_stopped(tmp_path: Path) -> None:
    apps_dir = tmp_path / "Apps"
    make_bundle(apps_dir, "Stuck", enabled=True)
    tool = tmp_path / "sdef"
    tool.write_text("#!/bin/sh\nexec sleep 30\n")
    tool.chmod(0o755)

    async def discover() -> list[str]:
        cat = AppCatalog(
            tmp_path / "cache", roots=[str(apps_dir)], sdef_tool=str(tool), sdef_timeout=0.5
        )
        async with asyncio.timeout(10):
            return [a.name for a in await cat.apps()]

    assert asyncio.run(discover()) == []


# --- the cache ------------------------------------------------------------------------------


def test_cached_discovery_reuses_what_did_not_change_and_rereads_what_did(tmp_path: Path) -> None:
    apps_dir = tmp_path / "Apps"
    bundle = make_bundle(apps_dir, "Widgets", sdef=small_sdef("Widgets", description="First"))
    sdef = bundle / "Contents" / "Resources" / "Widgets.sdef"
    first = asyncio.run(catalog(tmp_path, apps_dir).apps())
    assert first[0].purpose == "First"

    # Same size, same mtime: the cache is trusted (a new catalog, so nothing is in memory).
    before = sdef.stat()
    sdef.write_text(small_sdef("Widgets", description="Other"))
    os.utime(sdef, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert asyncio.run(catalog(tmp_path, apps_dir).apps())[0].purpose == "First"

    # A new mtime: read again.
    os.utime(sdef, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert asyncio.run(catalog(tmp_path, apps_dir).apps())[0].purpose == "Other"


def test_the_cache_keeps_one_dictionary_file_per_app_and_drops_removed_apps(tmp_path: Path) -> None:
    apps_dir = tmp_path / "Apps"
    make_bundle(apps_dir, "One", sdef=small_sdef("One"))
    gone = make_bundle(apps_dir, "Two", sdef=small_sdef("Two"))
    asyncio.run(catalog(tmp_path, apps_dir).apps())
    files = tmp_path / "cache" / "dictionaries"
    assert len(list(files.iterdir())) == 2
    for path in sorted(gone.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    gone.rmdir()
    assert [a.name for a in asyncio.run(catalog(tmp_path, apps_dir).apps())] == ["One"]
    assert len(list(files.iterdir())) == 1


def test_a_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    apps_dir = tmp_path / "Apps"
    make_bundle(apps_dir, "Widgets", sdef=small_sdef("Widgets"))
    asyncio.run(catalog(tmp_path, apps_dir).apps())
    (tmp_path / "cache" / "index.json").write_text("{not json")
    for file in (tmp_path / "cache" / "dictionaries").iterdir():
        file.write_text("[]")
    cat = catalog(tmp_path, apps_dir)
    (app,) = asyncio.run(cat.apps())
    dictionary = asyncio.run(cat.dictionary(app))
    assert app.name == "Widgets"
    # the index was unreadable, so the dictionary was parsed and cached again
    assert dictionary is not None and dictionary.command("do thing 1") is not None


def test_dictionaries_load_from_the_cache_and_stay_in_memory(tmp_path: Path) -> None:
    apps_dir = tmp_path / "Apps"
    make_bundle(
        apps_dir,
        "Finder",
        bundle_id="com.apple.finder",
        sdef=(FIXTURES / "Finder.sdef").read_text(),
    )
    asyncio.run(catalog(tmp_path, apps_dir).apps())
    cat = catalog(tmp_path, apps_dir)

    async def load() -> None:
        app = await cat.find("com.apple.finder")
        assert app is not None and cat.peek("finder") == app
        assert cat.peek_dictionary(app) is None
        dictionary = await cat.dictionary(app)
        assert dictionary is not None and dictionary.command("reveal") is not None
        assert cat.peek_dictionary(app) is dictionary

    asyncio.run(load())
