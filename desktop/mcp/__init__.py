"""MCP: the connectors Claude uses (mcp.json, approvals, their tools as a source) and the `deskhand mcp` server."""
