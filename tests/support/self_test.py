"""The line `deskhand --self-test` prints when all is well, as run from the source tree and from
the built bundle."""

from __future__ import annotations

import re

SUMMARY = re.compile(
    r"^self-test ok: window, store, settings, api client, "
    r"browser \((chromium|chrome|msedge) \d+\), page load in \d+ ms$"
)
