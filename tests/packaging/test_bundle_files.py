"""The files the macOS bundle is made from: Info.plist, entitlements, the version, the build scripts."""

from __future__ import annotations

import plistlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from desktop import __version__

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
sys.path.insert(0, str(PACKAGING))
import bundle_info  # noqa: E402  (lives next to the spec, not in a package)

REQUIRED_PLIST_KEYS = {
    "CFBundleIdentifier": str,
    "CFBundleName": str,
    "CFBundleDisplayName": str,
    "LSMinimumSystemVersion": str,
    "NSHighResolutionCapable": bool,
    "LSApplicationCategoryType": str,
    "NSAppleEventsUsageDescription": str,
    "NSScreenCaptureUsageDescription": str,
}
ENTITLEMENTS = {
    "com.apple.security.automation.apple-events",
    "com.apple.security.cs.allow-jit",
    "com.apple.security.cs.allow-unsigned-executable-memory",
}


def test_info_plist_template_is_a_valid_plist_with_every_key_macos_needs() -> None:
    plist = plistlib.loads(bundle_info.INFO_PLIST_TEMPLATE.read_bytes())
    for key, kind in REQUIRED_PLIST_KEYS.items():
        assert isinstance(plist.get(key), kind), key
    assert plist["CFBundleIdentifier"] == bundle_info.BUNDLE_ID
    assert re.fullmatch(r"[a-z]+(\.[A-Za-z0-9-]+){2,}", plist["CFBundleIdentifier"])
    assert plist["NSHighResolutionCapable"] is True
    assert plist["LSApplicationCategoryType"].startswith("public.app-category.")
    assert re.fullmatch(r"\d+\.\d+", plist["LSMinimumSystemVersion"])
    # Without a usage string macOS refuses Apple Events (-1743) and never asks the person.
    usage = plist["NSAppleEventsUsageDescription"]
    assert len(usage) > 40 and "approv" in usage
    screen = plist["NSScreenCaptureUsageDescription"]
    assert "screen" in screen and "approv" in screen


def test_the_bundle_plist_carries_the_package_version() -> None:
    version = bundle_info.checked_version()
    assert version == bundle_info.project_version() == __version__
    plist = bundle_info.info_plist(version)
    assert plist["CFBundleShortVersionString"] == plist["CFBundleVersion"] == version
    assert plistlib.loads(plistlib.dumps(plist)) == plist  # writable as a real plist


def test_a_stale_install_stops_the_build_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "deskhand"\nversion = "99.0.0"\n')
    with pytest.raises(bundle_info.BundleInfoError, match="pip install -e"):
        bundle_info.checked_version(tmp_path)


def test_the_minimum_macos_follows_the_bundled_qt_wheel() -> None:
    tags = ["cp39-abi3-macosx_14_0_arm64", "macosx-10.9-universal2"]
    assert bundle_info.minimum_macos("12.0", tags) == "14.0"
    assert bundle_info.minimum_macos("12.0", ["cp310-abi3-manylinux_2_34_x86_64"]) == "12.0"
    plist = bundle_info.info_plist("1.0.0", wheel_tags=["cp39-abi3-macosx_13_0_universal2"])
    assert plist["LSMinimumSystemVersion"] == "13.0"


@pytest.mark.parametrize(
    ("version", "expected"), [("0.1.0", "0.1.0"), ("0.2.0rc1", "0.2.0"), ("1.2.3.4", "1.2.3")]
)
def test_bundle_versions_are_what_macos_accepts(version: str, expected: str) -> None:
    assert bundle_info.bundle_version(version) == expected


def test_entitlements_are_a_valid_plist_with_only_what_is_needed() -> None:
    entitlements = plistlib.loads(bundle_info.ENTITLEMENTS.read_bytes())
    assert set(entitlements) == ENTITLEMENTS
    assert all(value is True for value in entitlements.values())


def test_every_entitlement_says_why_it_is_there() -> None:
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    root = ET.fromstring(bundle_info.ENTITLEMENTS.read_bytes(), parser=parser)
    entries = root.find("dict")
    assert entries is not None
    children = list(entries)
    assert sum(child.tag == "key" for child in children) == len(ENTITLEMENTS)
    for index, child in enumerate(children):
        if child.tag == "key":
            before = children[index - 1] if index else None
            assert before is not None and before.tag is ET.Comment, f"{child.text} has no comment"
            assert len((before.text or "").split()) >= 8, f"{child.text}: say why"


def test_build_scripts_parse_and_pass_shellcheck() -> None:
    scripts = sorted(PACKAGING.glob("*.sh"))
    assert {s.name for s in scripts} >= {"build-linux.sh", "build-macos.sh"}
    for script in scripts:
        assert script.stat().st_mode & 0o111, f"{script.name} is not executable"
        subprocess.run(["bash", "-n", str(script)], check=True)
    if shutil.which("shellcheck"):
        result = subprocess.run(
            ["shellcheck", *map(str, scripts)], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stdout


def test_the_version_command_prints_what_the_plist_will_say() -> None:
    result = subprocess.run(
        [sys.executable, str(PACKAGING / "bundle_info.py"), "--bundle-version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.strip() == bundle_info.bundle_version(
        __version__
    )
