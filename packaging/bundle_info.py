"""What the bundle says about itself: name, identifier, version and the macOS Info.plist.

Read by `deskhand.spec` at build time and by the packaging tests, so the plist the app
ships with and the one the tests check are built by the same code. No Qt, no PyInstaller.
"""

from __future__ import annotations

import importlib.metadata
import plistlib
import re
import sys
import sysconfig
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
INFO_PLIST_TEMPLATE = PACKAGING / "Info.plist"
ENTITLEMENTS = PACKAGING / "entitlements.plist"

APP_NAME = "Deskhand"
BUNDLE_ID = "app.deskhand.Deskhand"
DISTRIBUTION = "deskhand"


class BundleInfoError(Exception):
    """The tree cannot be bundled as it is (a stale install, a broken template)."""


def project_version(root: Path = ROOT) -> str:
    """The version in pyproject.toml: the one source of truth for the package and the bundle."""
    with (root / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def checked_version(root: Path = ROOT) -> str:
    """The project version, after making sure the installed metadata agrees with it.

    The bundle copies the installed metadata (that is what `desktop.__version__` reads), so a
    pyproject bumped without reinstalling would ship an app that names two versions.
    """
    wanted = project_version(root)
    try:
        installed = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError as exc:
        raise BundleInfoError(
            f"{DISTRIBUTION} is not installed in this Python; run: pip install -e {root}"
        ) from exc
    if installed != wanted:
        raise BundleInfoError(
            f"pyproject.toml says {wanted} but the installed {DISTRIBUTION} is {installed}; "
            f"run: pip install -e {root}"
        )
    return wanted


_MACOS_TAG = re.compile(r"macosx[_-](\d+)[_.](\d+)")


def _macos_floor(tag: str) -> tuple[int, int] | None:
    found = _MACOS_TAG.search(tag)
    return (int(found[1]), int(found[2])) if found else None


def minimum_macos(template_floor: str, wheel_tags: list[str]) -> str:
    """The oldest macOS the bundle runs on: the template's floor, raised by what the bundled code needs.

    A PySide6 wheel tagged `macosx_14_0_arm64` crashes at launch on macOS 13, so the plist
    must not promise 13 when it was built from that wheel.
    """
    major, minor = (int(part) for part in template_floor.split(".")[:2])
    floor = (major, minor)
    for tag in wheel_tags:
        needed = _macos_floor(tag)
        if needed is not None and needed > floor:
            floor = needed
    return f"{floor[0]}.{floor[1]}"


def build_wheel_tags() -> list[str]:
    """Platform tags of what this Python bundles: the interpreter's own and Qt's wheel."""
    tags = [sysconfig.get_platform()]
    for name in ("PySide6-Essentials", "shiboken6"):
        try:
            wheel = importlib.metadata.distribution(name).read_text("WHEEL") or ""
        except importlib.metadata.PackageNotFoundError:
            continue
        tags += [
            line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")
        ]
    return tags


def load_template(path: Path = INFO_PLIST_TEMPLATE) -> dict[str, Any]:
    with path.open("rb") as file:
        return plistlib.load(file)


def info_plist(version: str, wheel_tags: list[str] | None = None) -> dict[str, Any]:
    """The Info.plist entries the BUNDLE step writes (PyInstaller adds the executable's own keys)."""
    plist = load_template()
    if plist.get("CFBundleIdentifier") != BUNDLE_ID:
        raise BundleInfoError(f"{INFO_PLIST_TEMPLATE} must name the bundle {BUNDLE_ID}")
    tags = build_wheel_tags() if wheel_tags is None else wheel_tags
    plist["LSMinimumSystemVersion"] = minimum_macos(plist["LSMinimumSystemVersion"], tags)
    plist["CFBundleShortVersionString"] = plist["CFBundleVersion"] = bundle_version(version)
    return plist


_APPLE_VERSION = re.compile(r"\d+(\.\d+){0,2}")


def bundle_version(version: str) -> str:
    """The package version as macOS wants it: up to three dot-separated integers (0.2.0rc1 -> 0.2.0)."""
    found = _APPLE_VERSION.match(version)
    if found is None:
        raise BundleInfoError(f"version {version!r} does not start with a number")
    return found[0]


def main(argv: list[str]) -> int:
    """`python packaging/bundle_info.py [--bundle-version]`: the version the build will use.

    Exits 1, saying how to fix it, when the installed package is stale.
    """
    try:
        version = checked_version()
        print(bundle_version(version) if "--bundle-version" in argv else version)
    except BundleInfoError as problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
