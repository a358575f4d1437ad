"""The answer a sheet gave: the sheets' tests open one on a request and read what it answered."""

from __future__ import annotations

import asyncio

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer


def answer_of(aloop, request: ApprovalRequest) -> Answer:  # type: ignore[no-untyped-def]
    return aloop.run_until_complete(asyncio.wait_for(request.wait(), 5))
