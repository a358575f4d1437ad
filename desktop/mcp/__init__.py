"""MCP: the connectors Claude uses (mcp.json, their tools as a source) and the `deskhand mcp` server."""
