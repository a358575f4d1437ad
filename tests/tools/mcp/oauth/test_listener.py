"""The loopback listener takes one answer, on its own path and host only: anything else (another
path, a page reaching it under another host name) gets a 404 and changes nothing."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx2
import pytest

from tools.mcp.oauth.errors import SignInProblem
from tools.mcp.oauth.listener import LoopbackListener


async def _answers(paths: list[tuple[str, dict[str, str]]]) -> tuple[list[int], object]:
    listener = LoopbackListener()
    await listener.start()
    listener.expect("s1")
    parts = urlsplit(listener.redirect_uri)
    assert parts.hostname == "127.0.0.1" and parts.path == "/callback" and parts.port
    waiting = asyncio.ensure_future(listener.result(5))
    statuses = []
    async with httpx2.AsyncClient() as http:
        for path, headers in paths:
            answer = await http.get(f"http://127.0.0.1:{parts.port}{path}", headers=headers)
            statuses.append(answer.status_code)
    try:
        got: object = await waiting
    except SignInProblem as exc:
        got = exc
    async with httpx2.AsyncClient() as http:
        with pytest.raises(httpx2.ConnectError):  # closed once settled: no second answer
            await http.get(listener.redirect_uri)
    return statuses, got


def test_only_its_path_and_host_are_answered_and_the_first_answer_settles_it() -> None:
    statuses, got = asyncio.run(
        _answers(
            [
                ("/other?code=c0&state=s1", {}),
                ("/callback?code=c1&state=s1", {"Host": "attacker.example.test"}),
                ("/callback?code=c2&state=s1", {}),
            ]
        )
    )

    assert statuses == [404, 404, 200]
    assert getattr(got, "code", None) == "c2"


@pytest.mark.parametrize(
    ("query", "code"),
    [("code=c&state=other", "state_mismatch"), ("error=access_denied&state=s1", "declined")],
)
def test_a_wrong_state_or_a_refusal_ends_the_sign_in(query: str, code: str) -> None:
    _, got = asyncio.run(_answers([(f"/callback?{query}", {})]))

    assert isinstance(got, SignInProblem) and got.code == code
