"""macOS's window list as targets: which windows count, their ids, apps, bundle ids and focus.

The dictionaries have the keys and value types `CGWindowListCopyWindowInfo` gives on a Mac
(menu bar items and the Dock included, as it lists them).
"""

from __future__ import annotations

import pytest

from tools.screen.backends.mac_windows import windows_from_cg
from tools.screen.displays import Display
from tools.screen.geometry import Rect
from tools.screen.see.targets import Target, TargetError, resolve


def cg(number: int, owner: str, pid: int, bounds: tuple[float, ...], **extra: object) -> dict:
    x, y, width, height = bounds
    return {
        "kCGWindowNumber": number,
        "kCGWindowOwnerName": owner,
        "kCGWindowOwnerPID": pid,
        "kCGWindowLayer": 0,
        "kCGWindowAlpha": 1.0,
        "kCGWindowIsOnscreen": True,
        "kCGWindowBounds": {"X": x, "Y": y, "Width": width, "Height": height},
        "kCGWindowMemoryUsage": 2176,
        "kCGWindowSharingState": 1,
        "kCGWindowStoreType": 1,
        **extra,
    }


LISTED = [
    cg(31, "Control Centre", 380, (1380, 0, 38, 24), kCGWindowLayer=25),
    cg(52, "TextEdit", 812, (200.0, 120.0, 640.0, 480.0), kCGWindowName="Notes.rtf"),
    cg(53, "TextEdit", 812, (260.0, 160.0, 640.0, 480.0), kCGWindowName="Untitled"),
    cg(60, "Finder", 410, (80.5, 90.25, 920.0, 436.0), kCGWindowName="Downloads"),
    cg(61, "Finder", 410, (0, 0, 1512, 982), kCGWindowAlpha=0),  # the desktop's overlay
    cg(70, "Dock", 402, (0, 900, 1512, 82), kCGWindowLayer=20),
    cg(80, "Helper", 999, (10, 10, 1, 1)),
    cg(81, "Safari", 520, (10, 10, 800, 600)),  # no title without Screen Recording
]
BUNDLES = {812: "com.apple.TextEdit", 410: "com.apple.finder", 520: "com.apple.Safari"}


def test_app_windows_are_listed_front_to_back_with_their_ids_and_bundle_ids() -> None:
    windows = windows_from_cg(LISTED, BUNDLES, front_pid=812)
    assert [(w.id, w.title, w.app, w.instance, w.pid) for w in windows] == [
        (52, "Notes.rtf", "TextEdit", "com.apple.TextEdit", 812),
        (53, "Untitled", "TextEdit", "com.apple.TextEdit", 812),
        (60, "Downloads", "Finder", "com.apple.finder", 410),
        (81, "", "Safari", "com.apple.Safari", 520),
    ]
    assert windows[2].rect == Rect(80, 90, 920, 436)
    # Only the front app's front window has the keys.
    assert [w.focused for w in windows] == [True, False, False, False]


def test_a_target_names_an_app_by_name_or_bundle_id() -> None:
    windows = windows_from_cg(LISTED, BUNDLES, front_pid=410)
    displays = [Display(index=0, frame=Rect(0, 0, 1512, 982), scale=2.0, primary=True)]
    by_bundle = resolve(Target(app="com.apple.finder"), windows, displays)
    assert by_bundle.window is not None and by_bundle.window.id == 60
    second = resolve(Target(app="textedit", window_index=1), windows, displays)
    assert second.window is not None and second.window.title == "Untitled"
    front = resolve(Target(), windows, displays)
    assert front.window is not None and front.window.id == 60
    with pytest.raises(TargetError, match=r"com\.apple\.Mail"):
        resolve(Target(app="com.apple.Mail"), windows, displays)


def test_nothing_in_front_means_no_window_has_the_focus() -> None:
    assert not any(w.focused for w in windows_from_cg(LISTED, BUNDLES, front_pid=None))
    assert windows_from_cg([{"kCGWindowNumber": 5}], {}, None) == []
