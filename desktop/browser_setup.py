"""The browser tool as the window sees it: which browser will run, how to install one, and a
pool to try it with (the self-test).

The ui layer never imports `tools` (an import contract in pyproject.toml holds it to that);
what it needs of the browser tool comes through here.
"""

from tools.browser import BrowserPool, UrlPolicy, find_browser, install_hint

__all__ = ["BrowserPool", "UrlPolicy", "find_browser", "install_hint"]
