"""The browser the model drives: the SDK's browser toolset implemented with Playwright.

Public pieces:

- `PlaywrightBrowser`: the toolset (`browser_toolset_20260801`); see `driver` for how the app
  calls it. `BrowserPool` / `BrowserConfig`: one browser process, one context per chat.
- `UrlPolicy`: which addresses may open (pure); `browser_risk` / `browser_summary`: a call's
  risk level and one-line summary for its card, before it runs (pure). The gate's own comes
  from `await PlaywrightBrowser.describe(context)`, judged from the element the call will
  really act on (`effect`, `risk`), and the driver holds the call to it (`plan`).
- `find_browser` / `install_hint`: which browser will run, or the command that installs one.
"""

from tools.browser.config import BrowserConfig
from tools.browser.driver import PlaywrightBrowser, Progress, progress_scope
from tools.browser.errors import BrowserError, BrowserNotFound
from tools.browser.locate import BrowserChoice, find_browser, install_hint
from tools.browser.pool import BrowserPool
from tools.browser.risk import browser_action, browser_risk, browser_summary
from tools.browser.url_policy import UrlPolicy, UrlRefused

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
