"""The browser the model drives: the SDK's browser toolset implemented with Playwright.

Public pieces:

- `PlaywrightBrowser`: the toolset (`browser_toolset_20260801`); see `driver` for how the app
  calls it. `BrowserPool` / `BrowserConfig`: one browser process, one context per chat.
- `UrlPolicy`: which addresses may open (pure); `browser_risk` / `browser_summary`: a call's
  risk level and one-line summary from the input alone (pure). The gate's and the card's come
  from `await PlaywrightBrowser.judge(context)`, judged from the element the call will really act
  on (`effect`), and the toolset holds the call to it (`effect.approval.Approved`).
- `find_browser` / `install_hint`: which browser will run, or the command that installs one.

Each name loads its module when first used: the driver and the pool bring in Playwright and
the SDK (more than a second), which the window must not wait for just to find a browser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from tools.browser.config import BrowserConfig
    from tools.browser.driver import PlaywrightBrowser, Progress, progress_scope
    from tools.browser.effect.risk import browser_action, browser_risk, browser_summary
    from tools.browser.errors import BrowserError, BrowserNotFound
    from tools.browser.locate import BrowserChoice, find_browser, install_hint
    from tools.browser.network.url_policy import UrlPolicy, UrlRefused
    from tools.browser.pool import BrowserPool


__all__ = [
    "BrowserChoice",
    "BrowserConfig",
    "BrowserError",
    "BrowserNotFound",
    "BrowserPool",
    "PlaywrightBrowser",
    "Progress",
    "UrlPolicy",
    "UrlRefused",
    "browser_action",
    "browser_risk",
    "browser_summary",
    "find_browser",
    "install_hint",
    "progress_scope",
]

# The names of `__all__`, each imported from its module when first used.
__getattr__, __dir__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "config": ["BrowserConfig"],
        "driver": ["PlaywrightBrowser", "Progress", "progress_scope"],
        "errors": ["BrowserError", "BrowserNotFound"],
        "locate": ["BrowserChoice", "find_browser", "install_hint"],
        "pool": ["BrowserPool"],
        "effect.risk": ["browser_action", "browser_risk", "browser_summary"],
        "network.url_policy": ["UrlPolicy", "UrlRefused"],
    },
)[:2]
