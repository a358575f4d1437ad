"""Playwright in the bundle: the browser cache folder, the preferred browser, and downloading Chromium.

Nothing here reaches the internet: the parser reads recorded driver output (see data/README.md),
failures come from fake commands, and one end-to-end run points the real bundled driver at a
mirror served from 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import io
import os
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.system import playwright_env
from desktop.system.playwright_env import (
    BROWSERS_PATH_ENV,
    BrowserDownloadFailed,
    DownloadProgress,
    InstallOutput,
    configure_playwright,
    download_chromium,
    explain_failure,
    preferred_browser,
)

DATA = Path(__file__).with_name("data")
OK_OUTPUT = DATA / "playwright-install-ok.txt"
UNREACHABLE_OUTPUT = DATA / "playwright-install-unreachable.txt"


def parse(path: Path) -> list[DownloadProgress]:
    parser = InstallOutput()
    steps = (parser.feed(line) for line in path.read_text(encoding="utf-8").splitlines())
    return [step for step in steps if step is not None]


def collect(command: list[str], env: dict[str, str] | None = None) -> list[DownloadProgress]:
    async def run() -> list[DownloadProgress]:
        async with contextlib.aclosing(download_chromium(command, env=env or {})) as steps:
            return [step async for step in steps]

    return asyncio.run(run())


def replay(path: Path, exit_code: int = 0) -> list[str]:
    """A stand-in installer: prints a recorded output line by line, then exits with `exit_code`."""
    script = (
        "import sys, time\n"
        "for line in open(sys.argv[1], encoding='utf-8'):\n"
        "    sys.stdout.write(line); sys.stdout.flush(); time.sleep(0.002)\n"
        "sys.exit(int(sys.argv[2]))\n"
    )
    return [sys.executable, "-c", script, str(path), str(exit_code)]


# --- reading the installer's output -------------------------------------------------------------


def test_recorded_output_becomes_progress_per_item() -> None:
    steps = parse(OK_OUTPUT)
    titles = list(dict.fromkeys(step.title for step in steps))
    assert titles == ["Chrome for Testing 159.0.8154.6", "FFmpeg"]
    chromium = [s for s in steps if s.title.startswith("Chrome")]
    percents = [s.percent for s in chromium if s.percent is not None]
    assert len(percents) == len(chromium)
    assert percents == sorted(percents)  # a progress bar never goes back
    assert percents[0] == 0 and percents[-1] == 100
    assert {10, 50, 90} <= set(percents)
    assert chromium[-1].finished and not any(s.finished for s in chromium[:-1])
    assert all(s.size == "4.3 MiB" for s in chromium if s.percent not in (0, None))
    assert all("\x1b" not in s.line for s in steps)


def test_terminal_style_progress_and_older_titles_are_read_too() -> None:
    parser = InstallOutput()
    start = parser.feed(
        "Downloading Chromium 131.0.6778.33 (playwright build v1148) from https://cdn.example/c.zip"
    )
    assert start == DownloadProgress("Chromium 131.0.6778.33", 0, line=start.line if start else "")
    step = parser.feed("164.7 MiB [=========           ] 45% 12.3s")
    assert step is not None and step.percent == 45 and step.size == "164.7 MiB"
    assert parser.feed("some unrelated line with 12% in it") is None


def test_nothing_is_reported_before_a_download_starts() -> None:
    parser = InstallOutput()
    assert parser.feed("|■■■■■■■■        |  10% of 4.3 MiB") is None
    assert parser.feed("") is None


# --- failures a person can act on ----------------------------------------------------------------


def test_unreachable_server_recorded_failure_says_check_the_connection(tmp_path: Path) -> None:
    with pytest.raises(BrowserDownloadFailed) as failed:
        collect(replay(UNREACHABLE_OUTPUT, exit_code=1))
    message = failed.value.message
    assert message.startswith("Chromium could not be downloaded.")
    assert "internet connection" in message and "Google Chrome" in message
    assert "ECONNREFUSED" not in message  # the raw error stays in the details
    assert "Failed to install browsers" in failed.value.output


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Error: ENOSPC: no space left on device, write", "disk is full"),
        ("Error: EACCES: permission denied, mkdir '/x/ms-playwright'", "may not write to /cache"),
        (
            "Error: Download failed: server returned code 404 body 'nope'. URL: https://x",
            "HTTP 404",
        ),
        ("ERROR: Playwright does not support chromium on debian9-x64", "for this system"),
        ("Error: getaddrinfo ENOTFOUND cdn.playwright.dev", "could not be reached"),
        ("something nobody expected", "the installer stopped (exit code 3)"),
    ],
)
def test_each_failure_gets_its_own_advice(output: str, expected: str) -> None:
    assert expected in explain_failure(output, 3, Path("/cache"))


def test_a_missing_installer_is_a_clear_failure(tmp_path: Path) -> None:
    with pytest.raises(BrowserDownloadFailed) as failed:
        collect([str(tmp_path / "no-such-node"), "cli.js", "install"])
    assert "could not be started" in failed.value.message
    assert "Reinstall Deskhand" in failed.value.message


def test_stopping_early_ends_the_installer(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = (
        "import os, sys, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "print('Downloading Chrome for Testing 1.2.3 (playwright chromium v1) from http://x/c.zip')\n"
        "print('|■■■■■■■■        |  10% of 170.3 MiB', flush=True)\n"
        "time.sleep(60)\n"
    )

    async def take_one() -> DownloadProgress:
        async with contextlib.aclosing(
            download_chromium([sys.executable, "-c", script], env={})
        ) as steps:
            async for step in steps:
                if step.percent == 10:
                    return step
        raise AssertionError("no progress")

    step = asyncio.run(asyncio.wait_for(take_one(), 20))
    assert step.size == "170.3 MiB"
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


# --- the bundle's browser folder and preference ---------------------------------------------------


def test_a_bundle_uses_the_per_user_cache_not_the_app() -> None:
    env: dict[str, str] = {}
    assert configure_playwright(env, frozen=False) is None and env == {}
    path = configure_playwright(env, frozen=True)
    assert path == playwright_env.default_browsers_path()
    assert env[BROWSERS_PATH_ENV] == str(path)
    assert "ms-playwright" in str(path) and str(Path.home()) in str(path)
    # "0" means "inside the app": replaced; a folder the person chose: kept.
    assert configure_playwright({BROWSERS_PATH_ENV: "0"}, frozen=True) == path
    assert configure_playwright({BROWSERS_PATH_ENV: "/srv/pw"}, frozen=True) == Path("/srv/pw")


def test_installed_chrome_is_preferred_over_playwrights_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "ms-playwright"
    chromium = cache / "chromium-1255" / "chrome-linux64" / "chrome"
    chromium.parent.mkdir(parents=True)
    chromium.write_text("")
    monkeypatch.setenv(BROWSERS_PATH_ENV, str(cache))
    chrome = tmp_path / "Google Chrome"
    branded = {"chrome": (str(chrome),), "msedge": (str(tmp_path / "Edge"),)}

    without_chrome = preferred_browser(branded=branded)
    assert without_chrome is not None and without_chrome.source == "playwright"
    chrome.write_text("")
    with_chrome = preferred_browser(branded=branded)
    assert with_chrome is not None
    assert (with_chrome.source, with_chrome.path, with_chrome.channel) == (
        "chrome",
        str(chrome),
        "chrome",
    )
    configured = preferred_browser(str(chromium), branded=branded)
    assert configured is not None and configured.source == "settings"


def test_no_browser_at_all_means_offer_the_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BROWSERS_PATH_ENV, str(tmp_path / "empty"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert preferred_browser(branded={"chrome": (str(tmp_path / "none"),)}) is None


# --- the real bundled driver against a mirror on 127.0.0.1 --------------------------------------


def _stand_in_archive() -> bytes:
    """One zip for every download: a fake executable at each place the driver chmods."""
    names = [
        "chrome-linux64/chrome",
        "chrome-linux-arm64/chrome",
        "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "ffmpeg-linux",
        "ffmpeg-mac",
    ]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name in names:
            archive.writestr(name, os.urandom(200_000))
    return buffer.getvalue()


@pytest.fixture
def mirror() -> Iterator[str]:
    body = _stand_in_archive()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for start in range(0, len(body), 65536):
                self.wfile.write(body[start : start + 65536])

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_bundled_driver_downloads_into_the_cache_and_the_browser_is_then_found(
    tmp_path: Path, mirror: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "ms-playwright"
    env = playwright_env.install_env()
    env.update({BROWSERS_PATH_ENV: str(cache), "PLAYWRIGHT_DOWNLOAD_HOST": mirror})
    steps = collect(playwright_env.install_command(), env)
    finished = [s.title for s in steps if s.finished]
    assert any(title.startswith("Chrome for Testing") for title in finished)
    assert max(s.percent or 0 for s in steps) == 100
    monkeypatch.setenv(BROWSERS_PATH_ENV, str(cache))
    monkeypatch.setenv("PATH", str(tmp_path))
    found = preferred_browser(branded={})
    assert found is not None and found.source == "playwright"
    assert found.path is not None and found.path.startswith(str(cache))


def test_the_bundled_driver_failing_to_connect_gives_the_connection_advice(
    tmp_path: Path,
) -> None:
    env = playwright_env.install_env()
    env.update(
        {
            BROWSERS_PATH_ENV: str(tmp_path / "cache"),
            "PLAYWRIGHT_DOWNLOAD_HOST": "http://127.0.0.1:9",
        }
    )
    with pytest.raises(BrowserDownloadFailed) as failed:
        collect(playwright_env.install_command(), env)
    assert "could not be reached" in failed.value.message
