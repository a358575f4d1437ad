"""`deskhand mcp`: Deskhand's tools offered to other MCP clients (what it offers, the server, and
asking the window's approval sheet). The connectors Claude uses are a tool source:
`desktop.calls.sources.mcp`."""
