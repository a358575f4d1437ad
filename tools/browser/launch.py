"""How the browser process is started: its switches, and the profile settings it starts with.

Two things here keep the network choke point whole:

- switches in `extra_args` that would route around the egress proxy (another proxy, no proxy,
  a PAC script, a debugging port) are dropped, because Chromium takes the last copy of a
  switch and Playwright puts `extra_args` after its own;
- the profile is seeded with "never preload pages" and "WebRTC only through the proxy".
  Chromium 156 has no switch that stops speculation-rules prefetch and prerender (tested:
  `--disable-features=Prerender2,...` and `--disable-blink-features=SpeculationRules` change
  nothing), but the "Preload pages" preference does, even for pages that carry rules, and
  the per-chat contexts inherit it from the profile they are made from.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from tools.browser.config import BrowserConfig

log = logging.getLogger(__name__)

__all__ = ["PROFILE_PREFS", "QUIET_ARGS", "launch_args", "seed_profile"]

# The browser stays quiet: no update checks, sync or first-run pages reaching out on its own.
QUIET_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
)
# WebRTC would otherwise send UDP (STUN, TURN) straight to any address a page names.
NETWORK_ARGS = ("--force-webrtc-ip-handling-policy=disable_non_proxied_udp",)
_FORBIDDEN_SWITCHES = (
    "--proxy-server",
    "--proxy-bypass-list",
    "--no-proxy-server",
    "--proxy-pac-url",
    "--proxy-auto-detect",
    "--winhttp-proxy-resolver",
    "--force-webrtc-ip-handling-policy",
    "--remote-debugging-port",
    "--remote-debugging-address",
    "--user-data-dir",
)

PROFILE_PREFS: dict[str, Any] = {
    "net": {"network_prediction_options": 2},  # never: no prefetch, prerender or preconnect
    "webrtc": {
        "ip_handling_policy": "disable_non_proxied_udp",
        "multiple_routes_enabled": False,
        "nonproxied_udp_enabled": False,
    },
}


def _allowed(arg: str) -> bool:
    name = arg.split("=", 1)[0].lower()
    return name not in _FORBIDDEN_SWITCHES


def launch_args(config: BrowserConfig) -> list[str]:
    dropped = [arg for arg in config.extra_args if not _allowed(arg)]
    if dropped:
        log.warning("Ignored browser switches that would bypass the network checker: %s", dropped)
    args = [*QUIET_ARGS, *NETWORK_ARGS, *(arg for arg in config.extra_args if _allowed(arg))]
    # Chromium refuses to start as root with its sandbox on (containers, CI).
    if sys.platform.startswith("linux") and hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


def _merge(into: dict[str, Any], values: dict[str, Any]) -> None:
    for name, value in values.items():
        if isinstance(value, dict):
            existing = into.get(name)
            if not isinstance(existing, dict):
                existing = into[name] = {}
            _merge(existing, value)
        else:
            into[name] = value


def seed_profile(user_data_dir: Path) -> None:
    """Write `PROFILE_PREFS` into the profile's Preferences, keeping everything else in it.

    Blocking file work: call it in a worker thread.
    """
    preferences = user_data_dir / "Default" / "Preferences"
    preferences.parent.mkdir(parents=True, exist_ok=True)
    current: dict[str, Any] = {}
    try:
        loaded = json.loads(preferences.read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            current = loaded
    except (OSError, ValueError):
        pass  # a new profile, or one Chromium will rebuild: start from the seed alone
    _merge(current, PROFILE_PREFS)
    preferences.write_text(json.dumps(current), encoding="utf-8")
