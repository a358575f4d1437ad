"""`deskhand mcp`: Deskhand's tools offered to other MCP clients (what it offers, the server,
asking the window's approval sheet, and `run_routine`, which runs a routine in the app). The
connectors Claude uses are a tool source: `desktop.calls.sources.mcp`."""
