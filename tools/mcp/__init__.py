"""MCP servers' tools for Deskhand: connections to servers (stdio or streamable HTTP) through
the official `mcp` SDK, the API names their tools get, and how their results read; `oauth/`
signs in to remote servers with the SDK's own client auth.

Nothing here decides whether a call may run: the app's tool source describes each call to
the gate first (`desktop/mcp/source.py`).
"""
