"""Quit the way the app does with the browser open: a test runs this in a child process.

`python -m tests.support.quit_with_browser CHROMIUM MARKER` opens a page in a `BrowserPool`
under a qasync loop, quits the QApplication, and closes the pool after `aboutToQuit`, as
`desktop/app.py` does (by then qasync has stopped its loop). It prints "opened" once the page
loaded and "closed" when `close()` returned; the exit code is 0 only if nothing raised.
MARKER is passed to Chromium as a harmless switch so the test can find its processes.
"""

from __future__ import annotations

import asyncio
import sys

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from tests.support.page_server import PageServer
from tools.browser import BrowserConfig, BrowserPool, UrlPolicy


async def main(app: QApplication, chromium: str, marker: str) -> int:
    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)
    with PageServer() as pages:
        config = BrowserConfig(
            headless=True,
            executable_path=chromium,
            url_policy=UrlPolicy(allow_hosts=("127.0.0.1",)),
            extra_args=(f"--deskhand-test-marker={marker}",),
        )
        pool = BrowserPool(config)
        session = pool.session("chat")
        tab = await session.new_tab()
        await tab.page.goto(pages.url("form.html"))
        print("opened", flush=True)
        QTimer.singleShot(50, app.quit)
        await quitting.wait()
        await pool.close()
        print("closed", flush=True)
    return 0


def run() -> int:
    chromium, marker = sys.argv[1], sys.argv[2]
    app = QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        return int(loop.run_until_complete(main(app, chromium, marker)))


if __name__ == "__main__":
    sys.exit(run())
