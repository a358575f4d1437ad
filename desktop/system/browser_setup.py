"""The browser tool as the window sees it: which browser will run, how to install one, and a
pool to try it with (the self-test).

The ui layer never imports `tools` (an import contract in pyproject.toml holds it to that);
what it needs of the browser tool comes through here. The pool brings in Playwright and
the SDK, so it loads only when asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from desktop.system import heavy
from tools.browser.locate import find_browser, install_hint

if TYPE_CHECKING:
    from tools.browser.network.url_policy import UrlPolicy
    from tools.browser.pool import BrowserPool

__all__ = ["BrowserPool", "UrlPolicy", "find_browser", "install_hint"]


def __getattr__(name: str) -> Any:
    if name == "UrlPolicy":  # the self-test's; not needed for the window to show
        from tools.browser.network.url_policy import UrlPolicy

        return UrlPolicy
    if name == "BrowserPool":
        heavy.wait()  # Playwright and the SDK come from the one place that imports them
        from tools.browser.pool import BrowserPool

        return BrowserPool
    raise AttributeError(f"module 'desktop.system.browser_setup' has no attribute {name!r}")
