"""Why a sign-in did not happen, as a code and a sentence for the person (never the SDK's own
text, which may hold a URL with a code or a state in it)."""

from __future__ import annotations

from tools.mcp.errors import McpProblem

# code → what the person reads; `{server}` is the URL they gave, `{host}` another host.
PROBLEMS: dict[str, str] = {
    "bad_url": "“{server}” is not a web address: give the server's http:// or https:// URL.",
    "not_mcp_server": "No MCP server answered at {server}. Check the URL (a Streamable HTTP "
    "endpoint, often ending in /mcp).",
    "insecure_auth_server": "The server names an authorization server that is not https "
    "({host}); Deskhand signs in only over https (or on this computer).",
    "needs_client_id": "The authorization server of {server} does not register apps itself. "
    "Give the client id (and secret, if any) you registered for Deskhand there.",
    "redirect_off_loopback": "The sign-in would send its answer somewhere other than Deskhand's "
    "own listener on this computer ({host}); it was stopped.",
    "state_mismatch": "The answer from the sign-in page did not match the sign-in Deskhand "
    "started (state mismatch); it was refused. Try again.",
    "abandoned": "The sign-in was not finished in the browser within {minutes}; nothing was added.",
    "declined": "The sign-in was declined in the browser; nothing was added.",
    "no_browser": "No browser could be opened for the sign-in (check $BROWSER); nothing was added.",
    "not_confirmed": "The sign-in was cancelled before the browser opened; nothing was added.",
    "sign_in_needed": "“{server}” needs you to sign in again.",
    "failed": "The sign-in to {server} did not work (the authorization server refused it or "
    "could not be reached).",
}


class SignInProblem(McpProblem):
    """A sign-in that did not happen: `code` (a key of PROBLEMS) and `message`."""

    def __init__(self, code: str, **words: str) -> None:
        text = PROBLEMS.get(code, PROBLEMS["failed"])
        words.setdefault("server", "the server")
        words.setdefault("host", "?")
        words.setdefault("minutes", "the time allowed")
        super().__init__(code)
        self.code = code if code in PROBLEMS else "failed"
        self.message = text.format(**words)

    def __str__(self) -> str:
        return self.message


class SignInNeeded(SignInProblem):
    """A connector whose tokens cannot be refreshed (revoked, or refresh refused): the app
    never opens a browser on its own, so its row says "Sign in again"."""

    def __init__(self, server: str) -> None:
        super().__init__("sign_in_needed", server=server)
