"""A stand-in for the person's default browser, for `$BROWSER`: it opens the URL it is given
(the authorization page, which approves at once and redirects) and follows that redirect to
wherever it points, as a browser would. Standard library only; nothing leaves 127.0.0.1.

`browser_command(folder)` writes the executable `$BROWSER` names. Set `STANDIN_BROWSER_LOG` to
a file to have each opened URL appended to it, and `STANDIN_BROWSER_TAMPER=state` to answer
the listener with a forged state (an attacker's page racing the real one).
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request
from pathlib import Path


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def browser_command(folder: Path) -> str:
    """An executable that runs this script with this Python: a value for `$BROWSER`."""
    script = folder / "standin-browser"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" "$@"\n')
    script.chmod(0o755)
    return str(script)


def main(url: str) -> int:
    log = os.environ.get("STANDIN_BROWSER_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as file:
            file.write(url + "\n")
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(url, timeout=10)
        return 0  # no redirect: nothing to follow
    except urllib.error.HTTPError as answer:
        location = answer.headers.get("location")
    if not location:
        return 1
    if os.environ.get("STANDIN_BROWSER_TAMPER") == "state":
        location = location.replace("state=", "state=forged")
    try:
        urllib.request.urlopen(location, timeout=10).read()
    except urllib.error.URLError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
