"""Turns what went wrong with a model call into words a person understands, and what to do.

The raw exception never reaches the thread as-is; each case has a fixed title and advice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.system.errors import AppError
from tools.data import Data

if TYPE_CHECKING:
    import anthropic


class MissingKeyError(AppError):
    """No API key is configured and none is in the environment."""


class ProblemWords(Data):
    """What the person reads about a failure, and what the card offers: Retry, Settings."""

    title: str
    detail: str
    retryable: bool = True
    open_settings: bool = False


class ProblemReport(ProblemWords):
    """A failure as the person sees it."""

    kind: str


class ModelCallFailed(AppError):
    """A model call failed where the exception itself cannot travel (the stream process).

    `report` is what `describe` made of the original exception; `error` names it, for logs.
    """

    def __init__(self, report: ProblemReport, error: str) -> None:
        super().__init__(f"{error}: {report.title}")
        self.report = report
        self.error = error


def stream_process_lost() -> ProblemReport:
    return ProblemReport(
        kind="stream_process",
        title="The connection to Claude stopped",
        detail="Deskhand's model connection ended unexpectedly while Claude was answering. "
        "What arrived is kept; press Retry to ask again. If it keeps happening, run "
        "`deskhand --self-test` and include its output in a bug report.",
    )


def _retry_after(exc: anthropic.APIStatusError) -> str:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        seconds = float(value) if value else 0.0
    except ValueError:
        return ""
    return f" The server asked to wait {seconds:.0f} s." if seconds >= 1 else ""


def describe(exc: BaseException, *, model: str = "") -> ProblemReport:
    """A person-facing description of a model-call failure."""
    if isinstance(exc, ModelCallFailed):
        return exc.report
    if isinstance(exc, MissingKeyError):
        return _fixed_in_settings(
            "no_key",
            "No API key",
            "Deskhand needs an Anthropic API key. Open Settings → Model and enter it "
            "(or set ANTHROPIC_API_KEY).",
            retryable=False,
        )
    # Loaded here, not at import: the SDK takes more than a second, which the window's first
    # paint must not wait for. Any other failure comes from a model call that ran, so the SDK
    # is in already (a message sent with no key is answered above, before it has loaded).
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.AuthenticationError):
        return _fixed_in_settings(
            "auth",
            "The API key was not accepted",
            "The server says the key is invalid or revoked. Check it in Settings → Model.",
            retryable=False,
        )
    if isinstance(exc, anthropic.PermissionDeniedError):
        return _fixed_in_settings(
            "permission",
            "This key may not use that",
            "The API key has no access to this model or feature. Pick another model "
            "in Settings → Model or check the key's workspace.",
        )
    if isinstance(exc, anthropic.NotFoundError):
        return _fixed_in_settings(
            "model_not_found",
            "Model not found",
            f"The server does not know the model “{model}”. Choose one from the list in "
            "Settings → Model.",
        )
    if isinstance(exc, anthropic.RateLimitError):
        return ProblemReport(
            kind="rate_limit",
            title="Rate limit reached",
            detail="Too many requests for this key right now."
            + _retry_after(exc)
            + " Wait a moment, then press Retry.",
        )
    if isinstance(exc, anthropic.APIStatusError) and _is_billing(exc):
        return ProblemReport(
            kind="billing",
            title="No credit left",
            detail="Your account has no credit or reached its spend limit. Add credit or raise "
            "the limit in the Anthropic Console, then press Retry.",
        )
    if isinstance(exc, anthropic.APIStatusError) and (
        exc.type == "overloaded_error" or exc.status_code == 529
    ):
        return ProblemReport(
            kind="overloaded",
            title="Claude is overloaded",
            detail="The service is busy right now. Your message is saved; press Retry in a moment.",
        )
    if isinstance(exc, anthropic.APITimeoutError) or isinstance(exc, httpx2.TimeoutException):
        return ProblemReport(
            kind="timeout",
            title="The request timed out",
            detail="The server took too long to answer. Check your connection and press Retry.",
        )
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        dropped = isinstance(exc, httpx2.RemoteProtocolError | httpx2.ReadError)
        return ProblemReport(
            kind="network",
            title="Connection lost" if dropped else "Can't reach the server",
            detail=(
                "The connection dropped while Claude was answering. What arrived is kept; "
                "press Retry to ask again."
                if dropped
                else "Deskhand could not connect. Check your internet connection (or the base "
                "URL in Settings → Model) and press Retry."
            ),
        )
    if isinstance(exc, anthropic.BadRequestError):
        if "prompt is too long" in (exc.api_message or "").lower():
            return context_too_long()
        return ProblemReport(
            kind="bad_request",
            title="The server refused the request",
            detail="The request was not accepted (400). Try a new chat; if it keeps happening, "
            "check the model in Settings → Model.",
        )
    if isinstance(exc, anthropic.APIStatusError):
        return ProblemReport(
            kind="server",
            title="The server had a problem",
            detail=f"The server answered with an error ({exc.status_code}). Press Retry in a moment.",
        )
    return ProblemReport(
        kind="unexpected",
        title="Something went wrong",
        detail="An unexpected error stopped this reply. Your messages are saved; press Retry.",
    )


def _fixed_in_settings(
    kind: str, title: str, detail: str, *, retryable: bool = True
) -> ProblemReport:
    """A problem the person fixes in Settings (the card offers to open them)."""
    return ProblemReport(
        kind=kind, title=title, detail=detail, retryable=retryable, open_settings=True
    )


def context_too_long() -> ProblemReport:
    return ProblemReport(
        kind="context_window",
        title="This conversation is too long",
        detail="It no longer fits in the model's context window. Start a new chat to go on.",
        retryable=False,
    )


def _is_billing(exc: anthropic.APIStatusError) -> bool:
    text = (exc.api_message or "").lower()
    return (
        exc.type == "billing_error"
        or exc.status_code == 402
        or "credit balance" in text
        or "spend limit" in text
    )
